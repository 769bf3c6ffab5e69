# The portable Linux build (`release-portable` preset): zcuda links the static archives that
# scripts/portable-deps.sh builds (ZCUDA_PORTABLE_PREFIX names the prefix) and nothing of the
# host's libcurl, OpenSSL, libarchive, fmt or spdlog. glibc and the C++ runtime stay shared, so
# HIP and CUDA can still be dlopened. Included before the find_package calls; the link
# interfaces that static archives do not carry themselves are added by
# zcuda_portable_link_interfaces() after them.
if(NOT EXISTS "${ZCUDA_PORTABLE_PREFIX}/zcuda-deps.txt")
  message(FATAL_ERROR "ZCUDA_PORTABLE_PREFIX (${ZCUDA_PORTABLE_PREFIX}) is not a prefix from scripts/portable-deps.sh. "
    "Run: ZCUDA_PORTABLE_PREFIX=$(scripts/portable-deps.sh | tail -n 1) cmake --preset release-portable")
endif()
set(_p "${ZCUDA_PORTABLE_PREFIX}")
# Exact archives, so no find module can fall back to the host's shared libraries (FORCE: a
# prefix of newer versions replaces what an earlier configure cached).
set(ZLIB_USE_STATIC_LIBS ON)
set(ZLIB_INCLUDE_DIR "${_p}/include" CACHE PATH "" FORCE)
set(ZLIB_LIBRARY "${_p}/lib/libz.a" CACHE FILEPATH "" FORCE)
set(ZLIB_LIBRARY_RELEASE "${_p}/lib/libz.a" CACHE FILEPATH "" FORCE)
set(OPENSSL_USE_STATIC_LIBS ON)
set(OPENSSL_ROOT_DIR "${_p}")
set(OPENSSL_INCLUDE_DIR "${_p}/include" CACHE PATH "" FORCE)
set(OPENSSL_CRYPTO_LIBRARY "${_p}/lib/libcrypto.a" CACHE FILEPATH "" FORCE)
set(OPENSSL_SSL_LIBRARY "${_p}/lib/libssl.a" CACHE FILEPATH "" FORCE)
set(CURL_NO_CURL_CMAKE ON)
set(CURL_INCLUDE_DIR "${_p}/include" CACHE PATH "" FORCE)
set(CURL_LIBRARY_RELEASE "${_p}/lib/libcurl.a" CACHE FILEPATH "" FORCE)
set(LibArchive_INCLUDE_DIR "${_p}/include" CACHE PATH "" FORCE)
set(LibArchive_LIBRARY "${_p}/lib/libarchive.a" CACHE FILEPATH "" FORCE)
set(fmt_DIR "${_p}/lib/cmake/fmt" CACHE PATH "" FORCE)
set(spdlog_DIR "${_p}/lib/cmake/spdlog" CACHE PATH "" FORCE)
find_package(Threads REQUIRED)
unset(_p)

function(zcuda_portable_link_interfaces)
  find_package(ZLIB REQUIRED)
  # ZCUDA_CURL_WITHOUT_CA_PATH: fetch/http.cpp looks for the distribution's CA bundle itself.
  set_property(TARGET CURL::libcurl APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS CURL_STATICLIB ZCUDA_CURL_WITHOUT_CA_PATH)
  set_property(TARGET CURL::libcurl APPEND PROPERTY INTERFACE_LINK_LIBRARIES
    OpenSSL::SSL OpenSSL::Crypto ZLIB::ZLIB Threads::Threads)
  set_property(TARGET LibArchive::LibArchive APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS LIBARCHIVE_STATIC)
  set_property(TARGET LibArchive::LibArchive APPEND PROPERTY INTERFACE_LINK_LIBRARIES ZLIB::ZLIB)
  set_property(TARGET OpenSSL::Crypto APPEND PROPERTY INTERFACE_LINK_LIBRARIES Threads::Threads)
endfunction()
