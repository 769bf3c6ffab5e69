# zcuda_windows_app(TARGET DESCRIPTION): on Windows, embeds the application manifest (long paths,
# UTF-8 active code page, no elevation) and a version resource into an executable. Elsewhere it
# does nothing.
function(zcuda_windows_app target description)
  if(NOT WIN32)
    return()
  endif()
  set(ZCUDA_APP_NAME "${target}")
  set(ZCUDA_APP_DESCRIPTION "${description}")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}_resources")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/windows/app.manifest.in" "${dir}/${target}.manifest" @ONLY)
  if(MSVC)
    # The MSVC linker writes a manifest of its own; a .manifest source is merged into it.
    set(ZCUDA_RC_MANIFEST "")
    target_sources(${target} PRIVATE "${dir}/${target}.manifest")
  else()
    # 1 = CREATEPROCESS_MANIFEST_RESOURCE_ID, 24 = RT_MANIFEST
    set(ZCUDA_RC_MANIFEST "1 24 \"${dir}/${target}.manifest\"")
  endif()
  configure_file("${PROJECT_SOURCE_DIR}/cmake/windows/app.rc.in" "${dir}/${target}.rc" @ONLY)
  target_sources(${target} PRIVATE "${dir}/${target}.rc")
  set_property(SOURCE "${dir}/${target}.rc" APPEND PROPERTY OBJECT_DEPENDS "${dir}/${target}.manifest")
endfunction()
