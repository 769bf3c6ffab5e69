#pragma once
// Windows only: for as long as it lives, this process's HKEY_LOCAL_MACHINE and HKEY_CURRENT_USER
// are scratch keys under HKCU\Software\zcuda-tests\<id> (RegOverridePredefKey, made for testing
// installers), so a test can write the values Windows or an installer would and see zcuda read
// them, without administrator rights and without touching the machine's own registry.
#include <windows.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace zcuda::test {

class RegistryScratch {
 public:
  RegistryScratch() : base_(L"Software\\zcuda-tests\\" + std::to_wstring(GetCurrentProcessId()) + L"-" + std::to_wstring(GetTickCount64())) {
    machine_ = create(HKEY_CURRENT_USER, base_ + L"\\machine");
    user_ = create(HKEY_CURRENT_USER, base_ + L"\\user");
    if (RegOverridePredefKey(HKEY_LOCAL_MACHINE, machine_) != ERROR_SUCCESS || RegOverridePredefKey(HKEY_CURRENT_USER, user_) != ERROR_SUCCESS) {
      throw std::runtime_error("RegOverridePredefKey failed");
    }
  }
  ~RegistryScratch() {
    RegOverridePredefKey(HKEY_LOCAL_MACHINE, nullptr);
    RegOverridePredefKey(HKEY_CURRENT_USER, nullptr);
    RegCloseKey(machine_);
    RegCloseKey(user_);
    RegDeleteTreeW(HKEY_CURRENT_USER, base_.c_str());
  }
  RegistryScratch(const RegistryScratch&) = delete;
  RegistryScratch& operator=(const RegistryScratch&) = delete;

  // Writes under the (overridden) HKLM or HKCU, creating the key.
  static void set_string(HKEY root, const std::wstring& key, const std::wstring& name, const std::wstring& value, DWORD type = REG_SZ) {
    HKEY k = create(root, key);
    RegSetValueExW(k, name.c_str(), 0, type, reinterpret_cast<const BYTE*>(value.c_str()), static_cast<DWORD>((value.size() + 1) * sizeof(wchar_t)));
    RegCloseKey(k);
  }
  static void set_qword(HKEY root, const std::wstring& key, const std::wstring& name, std::uint64_t value) {
    HKEY k = create(root, key);
    RegSetValueExW(k, name.c_str(), 0, REG_QWORD, reinterpret_cast<const BYTE*>(&value), sizeof value);
    RegCloseKey(k);
  }
  static void create_key(HKEY root, const std::wstring& key) { RegCloseKey(create(root, key)); }
  // Registry value names ignore case too: a value must go before it can come back spelt otherwise.
  static void delete_value(HKEY root, const std::wstring& key, const std::wstring& name) {
    HKEY k = create(root, key);
    RegDeleteValueW(k, name.c_str());
    RegCloseKey(k);
  }

 private:
  static HKEY create(HKEY root, const std::wstring& path) {
    HKEY key = nullptr;
    if (RegCreateKeyExW(root, path.c_str(), 0, nullptr, 0, KEY_ALL_ACCESS, nullptr, &key, nullptr) != ERROR_SUCCESS) {
      throw std::runtime_error("RegCreateKeyExW failed");
    }
    return key;
  }

  std::wstring base_;
  HKEY machine_ = nullptr;
  HKEY user_ = nullptr;
};

}  // namespace zcuda::test
