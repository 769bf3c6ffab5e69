#pragma once
#ifdef _WIN32
#define ZCUDA_EXPORT extern "C" __declspec(dllexport)
#else
#define ZCUDA_EXPORT extern "C" __attribute__((visibility("default")))
#endif
