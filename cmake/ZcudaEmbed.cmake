# Embeds data files (the pinned manifest, the GPU tables) into the binary, so zcuda works with
# nothing beside it. Each file becomes one entry of a generated table, see embedded.hpp: TABLE
# names the function that returns it (default files; an empty FILES makes an empty table).
function(zcuda_embed_files target)
  cmake_parse_arguments(ARG "" "TABLE" "FILES" ${ARGN})
  if(NOT ARG_TABLE)
    set(ARG_TABLE files)
  endif()
  set(out_cpp "${CMAKE_CURRENT_BINARY_DIR}/${target}_embedded_${ARG_TABLE}.cpp")
  string(REPLACE ";" "|" joined "${ARG_FILES}")
  add_custom_command(
    OUTPUT "${out_cpp}"
    COMMAND ${CMAKE_COMMAND} "-DOUT=${out_cpp}" "-DFILES=${joined}" "-DTABLE=${ARG_TABLE}"
            -P "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
    DEPENDS ${ARG_FILES} "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
    COMMENT "Embedding data files into ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE "${out_cpp}")
  # The rule above belongs to the calling folder; a target defined in another folder needs this
  # custom target to get it run before compiling.
  string(MAKE_C_IDENTIFIER "${CMAKE_CURRENT_SOURCE_DIR}" dir_id)
  add_custom_target(${target}_embed_${ARG_TABLE}_${dir_id} DEPENDS "${out_cpp}")
  add_dependencies(${target} ${target}_embed_${ARG_TABLE}_${dir_id})
endfunction()
