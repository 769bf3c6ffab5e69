#pragma once
// Data files compiled into the binary (cmake/ZcudaEmbed.cmake generates files()), so zcuda works
// with nothing beside it: the pinned manifest, the GPU tables.
#include <optional>
#include <string_view>
#include <vector>

namespace zcuda::embedded {

struct File {
  std::string_view name;  // the file's name without folders, e.g. "artifacts.json"
  std::string_view content;
};

const std::vector<File>& files();

// The content of the embedded file called `name`, if there is one.
std::optional<std::string_view> find(std::string_view name);

// The compiled-in knowledge's JSON files as CBOR ("app-profiles.json.cbor"), made by the build
// from the same files (src/buildtools/json_to_cbor.cpp); empty in a cross build, which cannot run
// the tool. Reading CBOR costs a fraction of lexing the text, and every launch reads two files.
const std::vector<File>& parsed_files();
std::optional<std::string_view> find_parsed(std::string_view name);

}  // namespace zcuda::embedded
