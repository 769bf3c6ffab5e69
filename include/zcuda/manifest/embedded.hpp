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

}  // namespace zcuda::embedded
