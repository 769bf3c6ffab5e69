# The release archive (CPack): zcuda and zcuda-probe with the license, the third-party notices and
# the documentation. `cpack --preset windows` makes zcuda-<version>-windows-x86_64.zip;
# scripts/release-linux.sh makes zcuda-<version>-linux-x86_64.tar.gz (`release-portable`).
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/THIRD_PARTY_NOTICES.md" "${PROJECT_SOURCE_DIR}/README.md"
        DESTINATION .)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION docs)
# The portable Linux build links its libraries in: their licences and versions go along.
if(ZCUDA_PORTABLE_PREFIX)
  install(DIRECTORY "${ZCUDA_PORTABLE_PREFIX}/share/licenses/" DESTINATION licenses)
  install(FILES "${ZCUDA_PORTABLE_PREFIX}/zcuda-deps.txt" DESTINATION licenses)
endif()

set(CPACK_PACKAGE_NAME zcuda)
set(CPACK_PACKAGE_VENDOR "zcuda")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
if(WIN32)
  set(CPACK_SYSTEM_NAME windows-x86_64)
else()
  set(CPACK_SYSTEM_NAME linux-x86_64)
endif()
set(CPACK_GENERATOR ZIP)
# Release executables without their symbol tables.
set(CPACK_STRIP_FILES ON)
# One top folder, zcuda-<version>-<system>/, as release archives usually have.
set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)
include(CPack)
