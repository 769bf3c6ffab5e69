# cmake -DFROM=DIR -DTO=DIR -P copy_dlls.cmake: copies every DLL in FROM into TO when changed.
# (A script rather than one `cmake -E copy_if_different` with every path: LibTorch has enough
# DLLs to overflow Windows' command-line length.)
file(GLOB dlls "${FROM}/*.dll")
foreach(dll IN LISTS dlls)
  get_filename_component(name "${dll}" NAME)
  if(NOT EXISTS "${TO}/${name}" OR "${dll}" IS_NEWER_THAN "${TO}/${name}")
    file(COPY "${dll}" DESTINATION "${TO}")
  endif()
endforeach()
