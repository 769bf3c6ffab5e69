// Choosing the knowledge bundle in use: lazily, on the first use of a knowledge file.
#include <zcuda/manifest/knowledge.hpp>

#include <algorithm>
#include <mutex>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <zcuda/base/path_text.hpp>
#include <zcuda/base/whole_number.hpp>
#include <zcuda/manifest/embedded.hpp>
#include <zcuda/platform/files.hpp>

namespace zcuda::knowledge {

namespace {

std::optional<std::filesystem::path>& folder_slot() {
  static std::optional<std::filesystem::path> slot;
  return slot;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

// The installed bundle <folder>/<version>, checked; an error says why it is not used. Without
// `read_files` the files' sizes are checked but their bytes are read only when asked for (find):
// a command that reads one knowledge file does not read them all.
Result<Bundle> load_installed(const std::filesystem::path& folder, std::uint64_t version_number, Time at, bool read_files) {
  const auto dir = folder / std::to_string(version_number);
  auto index_text = platform::read_file(dir / kIndexName, kMaxIndexBytes);
  if (!index_text) return std::unexpected(index_text.error());
  auto signature_text = platform::read_file(dir / kSignatureName, kMaxSignatureBytes);
  if (!signature_text) return std::unexpected(signature_text.error());
  auto index = verify_index(*index_text, *signature_text, trusted_roots());
  if (!index) return std::unexpected(index.error());
  if (index->version != version_number) {
    return refuse(Refusal::mismatch, ErrorKind::integrity,
                  fmt::format("{} holds bundle {}, not {}", path_to_utf8(dir), index->version, version_number));
  }
  Bundle bundle;
  bundle.compiled_in = false;
  bundle.location = dir;
  for (const auto& entry : index->files) {
    const auto file = dir / entry.name;
    std::optional<std::string> content;
    std::uint64_t size = 0;
    if (read_files) {
      auto read = platform::read_file(file, kMaxFileBytes);
      if (!read) return std::unexpected(read.error());
      size = read->size();
      content = std::move(*read);
    } else {
      std::error_code ec;
      size = std::filesystem::file_size(file, ec);
      if (ec) return refuse(Refusal::mismatch, ErrorKind::integrity, fmt::format("{}: {}", path_to_utf8(file), ec.message()));
    }
    // The digests were checked at install; a size check catches a torn or replaced file cheaply.
    if (size != entry.size) {
      return refuse(Refusal::mismatch, ErrorKind::integrity, fmt::format("{} has {} bytes; its index says {}", path_to_utf8(file), size, entry.size));
    }
    if (content) bundle.files.emplace(entry.name, std::move(*content));
  }
  if (auto fresh = check_fresh(*index, *signature_text, at); !fresh) {
    bundle.expired = true;
    bundle.warnings.push_back(fresh.error().message + "; still in use, as the newest valid bundle (run 'zcuda update')");
  }
  bundle.index = std::move(*index);
  return bundle;
}

}  // namespace

void set_folder(std::filesystem::path path) { folder_slot() = std::move(path); }
std::optional<std::filesystem::path> folder() { return folder_slot(); }

std::optional<std::uint64_t> read_pointer(const std::filesystem::path& path) {
  auto text = platform::read_file(path / kCurrentName, 64);
  if (!text) return std::nullopt;
  return whole_number<std::uint64_t>(trimmed(std::move(*text)));
}

Bundle compiled_in() {
  Bundle bundle;
  const auto text = embedded::find(kIndexName);
  if (auto index = text ? parse_index(*text) : fail(ErrorKind::internal, "no index")) {
    bundle.index = std::move(*index);
  } else {
    bundle.index.version = compiled_in_version();  // cannot happen: the build made the index
  }
  return bundle;
}

namespace {

Bundle choose(const std::optional<std::filesystem::path>& path, Time at, bool read_files) {
  Bundle fallback = compiled_in();
  if (!path) return fallback;
  const auto pointer = read_pointer(*path);
  if (!pointer) return fallback;
  if (*pointer <= fallback.index.version) {
    // Never older than the compiled-in bundle, whatever the pointer says.
    return fallback;
  }
  auto installed = load_installed(*path, *pointer, at, read_files);
  if (installed) return std::move(*installed);
  const std::string why = fmt::format("Installed knowledge bundle {} is not used: {}", *pointer, installed.error().message);
  // The newest valid bundle then: an older installed one, as long as it is newer than the compiled-in.
  std::vector<std::uint64_t> older;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(*path, ec)) {
    const auto number = whole_number<std::uint64_t>(path_to_utf8(entry.path().filename()));
    if (number && *number<*pointer&& * number> fallback.index.version) older.push_back(*number);
  }
  std::sort(older.rbegin(), older.rend());
  for (const auto candidate : older) {
    if (auto earlier = load_installed(*path, candidate, at, read_files)) {
      earlier->warnings.insert(earlier->warnings.begin(), fmt::format("{}; using installed bundle {}", why, candidate));
      return std::move(*earlier);
    }
  }
  fallback.warnings.push_back(fmt::format("{}; using the compiled-in bundle {}", why, fallback.index.version));
  return fallback;
}

}  // namespace

Bundle load(const std::optional<std::filesystem::path>& path, Time at) { return choose(path, at, true); }

const Bundle& active() {
  static const Bundle bundle = [] {
    Bundle chosen = choose(folder(), now(), false);
    for (const auto& warning : chosen.warnings) spdlog::warn("{}", warning);
    return chosen;
  }();
  return bundle;
}

std::optional<std::string_view> find(std::string_view name) {
  const Bundle& bundle = active();
  if (!bundle.compiled_in) {
    if (const auto* entry = bundle.index.file(name)) {
      // Read on first use and kept for the life of the process (callers keep the view).
      static std::mutex mutex;
      static std::map<std::string, std::string, std::less<>> read;
      const std::lock_guard lock(mutex);
      if (auto it = read.find(name); it != read.end()) return std::string_view(it->second);
      auto content = platform::read_file(bundle.location / entry->name, kMaxFileBytes);
      if (content && content->size() == entry->size) return std::string_view(read.emplace(entry->name, std::move(*content)).first->second);
      spdlog::warn("{} changed since knowledge bundle {} was chosen; using the compiled-in copy", path_to_utf8(bundle.location / entry->name),
                   bundle.index.version);
    }
  }
  return embedded::find(name);
}

std::optional<nlohmann::json> parsed(std::string_view name) {
  if (active().compiled_in) {
    if (const auto cbor = embedded::find_parsed(std::string(name) + ".cbor")) {
      auto from_cbor = nlohmann::json::from_cbor(cbor->begin(), cbor->end(), true, false);
      if (!from_cbor.is_discarded()) return from_cbor;
    }
  }
  const auto text = find(name);
  if (!text) return std::nullopt;
  return nlohmann::json::parse(*text, nullptr, false);
}

std::uint64_t version_for_display() {
  const std::uint64_t built = compiled_in_version();
  if (auto path = folder()) {
    if (auto pointer = read_pointer(*path); pointer && *pointer > built) return *pointer;
  }
  return built;
}

nlohmann::json to_json(const Bundle& bundle) {
  return {{"version", bundle.index.version},
          {"source", bundle.compiled_in ? std::string("compiled-in") : path_to_utf8(bundle.location)},
          {"published", format_time(bundle.index.published)},
          {"expires", format_time(bundle.index.expires)},
          {"expired", bundle.expired},
          {"warnings", bundle.warnings}};
}

}  // namespace zcuda::knowledge
