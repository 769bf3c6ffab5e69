# The MinGW-w64 cross build links the static archives that scripts/windows-deps.sh builds. A static
# archive names none of its own dependencies, and the libcurl and libarchive headers must be told
# they are not being used from DLLs; both are said here, once, on the imported targets.
# Static zlib too (Debian's MinGW zlib also has an import library for zlib1.dll).
set(ZLIB_USE_STATIC_LIBS ON)
find_package(ZLIB REQUIRED)
set_property(TARGET CURL::libcurl APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS CURL_STATICLIB)
# Schannel (TLS and the certificate store), Winsock, and the system libraries libcurl calls.
set_property(TARGET CURL::libcurl APPEND PROPERTY INTERFACE_LINK_LIBRARIES
  ZLIB::ZLIB secur32 crypt32 bcrypt ws2_32 iphlpapi advapi32 normaliz)
set_property(TARGET LibArchive::LibArchive APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS LIBARCHIVE_STATIC)
set_property(TARGET LibArchive::LibArchive APPEND PROPERTY INTERFACE_LINK_LIBRARIES ZLIB::ZLIB bcrypt advapi32)
set_property(TARGET OpenSSL::Crypto APPEND PROPERTY INTERFACE_LINK_LIBRARIES ws2_32 crypt32 user32 advapi32)
