// The JSON form of a profile (docs/detect.md). Ids are JSON integers; absent values are null.
#include <algorithm>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include <zcuda/detect/profile.hpp>

namespace zcuda::detect {

namespace {

template <class T>
nlohmann::json optional_value(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json text_or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

}  // namespace

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::info:
      return "info";
  }
  return "info";
}

bool Profile::ready() const {
  return std::none_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity == Severity::error; });
}

bool Profile::ready_for_physx32() const {
  // What only CUDA compute needs: the HIP SDK and its math libraries.
  static const std::set<std::string> sdk_only = {"no-hip-sdk", "rocblas-missing", "rocblas-kernels-missing", "hip-sdk-too-old",
                                                 "driver-too-old-for-hip"};
  if (os != platform::Os::windows) return false;
  if (std::none_of(gpus.begin(), gpus.end(), [](const Gpu& g) { return g.vendor_id == kVendorAmd; })) return false;
  return std::all_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity != Severity::error || sdk_only.contains(f.code); });
}

void to_json(nlohmann::json& out, const Profile& p) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : p.gpus) {
    gpus.push_back({{"name", g.name},
                    {"name_source", to_string(g.name_source)},
                    {"vendor_id", g.vendor_id},
                    {"device_id", g.device_id},
                    {"revision", optional_value(g.revision)},
                    {"gfx", text_or_null(g.gfx)},
                    {"gfx_source", text_or_null(std::string(to_string(g.gfx_source)))},
                    {"integrated", g.integrated},
                    {"integrated_reason", text_or_null(g.integrated_reason)},
                    {"vram_bytes", optional_value(g.vram_bytes)},
                    {"pci_address", text_or_null(g.pci_address)},
                    {"render_node", text_or_null(g.render_node)},
                    {"kernel_driver", text_or_null(g.driver)},
                    {"kfd_node", optional_value(g.kfd_node)},
                    {"hip_index", optional_value(g.hip_index)},
                    {"luid", optional_value(g.luid)},
                    {"seen_by", g.seen_by},
                    {"status", to_string(g.status)},
                    {"status_source", text_or_null(g.status_source)},
                    {"min_hip_sdk", text_or_null(g.min_hip_sdk)}});
  }
  const auto& d = p.driver;
  nlohmann::json driver = {{"loaded", d.module_loaded},
                           {"version", text_or_null(d.version)},
                           {"initstate", text_or_null(d.initstate)},
                           {"kfd_present", d.kfd_present},
                           {"kfd_accessible", optional_value(d.kfd_accessible)},
                           {"kfd_error", text_or_null(d.kfd_error)},
                           {"kfd_group", text_or_null(d.kfd_group)},
                           {"user_in_kfd_group", optional_value(d.user_in_kfd_group)},
                           {"adrenalin_version", text_or_null(d.adrenalin_version)},
                           {"driver_desc", text_or_null(d.driver_desc)}};
  const auto& r = p.hip_runtime;
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& dev : r.devices) {
    devices.push_back({{"index", dev.index},
                       {"name", dev.name},
                       {"gcn_arch_name", dev.gcn_arch_name},
                       {"gfx", dev.gfx},
                       {"total_memory", dev.total_memory},
                       {"integrated", dev.integrated},
                       {"pci_bus", dev.pci_bus},
                       {"pci_device", dev.pci_device},
                       {"pci_domain", dev.pci_domain}});
  }
  nlohmann::json runtime = {{"probed", r.probed},
                            {"loaded", r.loaded},
                            {"library", text_or_null(r.library)},
                            {"path", text_or_null(r.path)},
                            {"file_version", text_or_null(r.file_version)},
                            {"properties_symbol", text_or_null(r.props_symbol)},
                            {"zluda_choice", text_or_null(r.zluda_choice)},
                            {"runtime_version", optional_value(r.runtime_version)},
                            {"driver_version", optional_value(r.driver_version)},
                            {"device_count", optional_value(r.device_count)},
                            {"device_count_status", optional_value(r.count_status)},
                            {"error", text_or_null(r.error)},
                            {"devices", devices}};
  auto install_json = [](const HipInstall& h) {
    nlohmann::json libraries = nlohmann::json::array();
    for (const auto& l : h.libraries) libraries.push_back({{"component", l.component}, {"found", l.found}, {"path", text_or_null(l.path)}});
    nlohmann::json kernels = nlohmann::json::object();
    for (const auto& [gfx, k] : h.kernels) {
      kernels[gfx] = {{"rocblas", k.rocblas},
                      {"rocblas_files", k.rocblas_files},
                      {"rocblas_code_objects", k.rocblas_code_objects},
                      {"hipblaslt", k.hipblaslt},
                      {"hipblaslt_files", k.hipblaslt_files}};
    }
    return nlohmann::json{{"root", h.root},
                          {"version", text_or_null(h.version)},
                          {"version_source", text_or_null(h.version_source)},
                          {"found_via", h.found_via},
                          {"libraries", libraries},
                          {"rocblas_archs", h.rocblas_archs},
                          {"hipblaslt_archs", h.hipblaslt_archs},
                          {"kernels", kernels},
                          {"missing_zluda_names", h.missing_zluda_names}};
  };
  nlohmann::json installs = nlohmann::json::array();
  for (const auto& h : p.hip_installs) installs.push_back(install_json(h));
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : p.findings) {
    findings.push_back({{"severity", to_string(f.severity)}, {"code", f.code}, {"message", f.message}, {"hint", f.hint}});
  }
  out = {{"os", platform::os_id(p.os)},
         {"root", p.root},
         {"ready", p.ready()},
         {"ready_for", {{"cuda", p.ready()}, {"physx32", p.ready_for_physx32()}}},
         {"gpus", gpus},
         {"driver", driver},
         {"hip_runtime", runtime},
         {"hip", p.selected_hip() ? install_json(*p.selected_hip()) : nlohmann::json(nullptr)},
         {"hip_installs", installs},
         {"cuda",
          {{"nvidia_gpu", p.cuda.nvidia_gpu},
           {"toolkits", p.cuda.toolkits},
           {"cuda_path", text_or_null(p.cuda.cuda_path_env)},
           {"shadowing_libraries", p.cuda.shadowing},
           {"driver_stub_only", p.cuda.driver_stub_only}}},
         {"findings", findings},
         {"probe_notes", p.probe_notes}};
}

}  // namespace zcuda::detect
