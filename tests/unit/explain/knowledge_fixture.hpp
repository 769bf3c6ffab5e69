#pragma once
// The compiled-in knowledge base, and a knowledge-base file around one entry, for the explain tests.
#include <stdexcept>
#include <string>

#include <zcuda/explain/explain.hpp>

namespace zcuda::test {

inline const explain::KnowledgeBase& kb() {
  auto loaded = explain::builtin_knowledge_base();
  if (!loaded) throw std::runtime_error(loaded.error().message);
  return **loaded;
}

inline std::string with_entry(const std::string& entry_json) { return R"({"format": 1, "entries": [)" + entry_json + "]}"; }

}  // namespace zcuda::test
