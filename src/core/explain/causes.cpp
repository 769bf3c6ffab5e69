// One message, several causes: what this machine's facts say of each cause's signals, and the
// causes ranked by them (likely first, then those nothing here tells, then those ruled out).
#include <zcuda/explain/explain.hpp>

#include <algorithm>

#include <fmt/format.h>

namespace zcuda::explain {

std::string_view to_string(Signal signal) {
  switch (signal) {
    case Signal::driver_25_5_1:
      return "driver_25_5_1";
    case Signal::integrated_gpu_first:
      return "integrated_gpu_first";
    case Signal::runtime_files_quarantined:
      return "runtime_files_quarantined";
  }
  return "driver_25_5_1";
}

const std::vector<Signal>& all_signals() {
  static const std::vector<Signal> all = {Signal::driver_25_5_1, Signal::integrated_gpu_first, Signal::runtime_files_quarantined};
  return all;
}

std::string_view to_string(Likelihood likelihood) {
  switch (likelihood) {
    case Likelihood::likely:
      return "likely";
    case Likelihood::possible:
      return "possible";
    case Likelihood::unlikely:
      return "unlikely";
  }
  return "possible";
}

namespace {

SignalReading driver_reading(const MachineFacts& machine) {
  SignalReading r{Signal::driver_25_5_1, std::nullopt, {}};
  if (!machine.profile) {
    r.because = "the driver was not looked at";
    return r;
  }
  const auto& p = *machine.profile;
  if (p.os != platform::Os::windows) {
    r.holds = false;
    r.because = "this is not Windows, where Adrenalin 25.5.1 is";
    return r;
  }
  const auto& version = p.driver.adrenalin_version;
  if (version.empty()) {
    r.because = "zcuda could not read the Adrenalin version";
    return r;
  }
  r.holds = version.starts_with("25.5.1");
  r.because =
      r.holds.value() ? fmt::format("Adrenalin {} is installed here", version) : fmt::format("the driver here is Adrenalin {}, not 25.5.1", version);
  return r;
}

SignalReading integrated_reading(const MachineFacts& machine) {
  SignalReading r{Signal::integrated_gpu_first, std::nullopt, {}};
  if (!machine.profile) {
    r.because = "the GPUs were not looked at";
    return r;
  }
  std::vector<const detect::Gpu*> amd;
  for (const auto& g : machine.profile->gpus) {
    if (g.vendor_id == detect::kVendorAmd) amd.push_back(&g);
  }
  if (amd.empty()) {
    r.because = "zcuda found no AMD GPU here";
    return r;
  }
  const bool any_integrated = std::any_of(amd.begin(), amd.end(), [](auto* g) { return g->integrated; });
  const bool any_discrete = std::any_of(amd.begin(), amd.end(), [](auto* g) { return !g->integrated; });
  if (!any_integrated || !any_discrete) {
    r.holds = false;
    r.because = any_integrated ? "this machine's only AMD GPU is integrated: there is no discrete one to pick instead"
                               : "this machine has no integrated AMD GPU";
    return r;
  }
  // The first the runtime enumerates: HIP index 0 where known, else the first listed.
  const detect::Gpu* first = amd.front();
  for (const auto* g : amd) {
    if (g->hip_index && *g->hip_index == 0) first = g;
  }
  const auto* discrete = *std::find_if(amd.begin(), amd.end(), [](auto* g) { return !g->integrated; });
  r.holds = first->integrated;
  const std::string name = first->name.empty() ? std::string("an AMD GPU") : first->name;
  if (first->integrated) {
    r.because = fmt::format("the integrated {} is enumerated first here{}", name,
                            discrete->hip_index ? fmt::format("; the discrete GPU is HIP index {}", *discrete->hip_index) : "");
  } else {
    r.because = fmt::format("the discrete {} is enumerated first here", name);
  }
  return r;
}

SignalReading quarantine_reading(const MachineFacts& machine) {
  SignalReading r{Signal::runtime_files_quarantined, std::nullopt, {}};
  if (!machine.quarantined.empty()) {
    r.holds = true;
    r.because = fmt::format("runtime files the install receipt lists are missing or empty: {}", fmt::join(machine.quarantined, ", "));
  } else if (machine.quarantine_checked) {
    r.holds = false;
    r.because = "zcuda's installed runtime has all its files";
  } else {
    r.because = "no runtime installed by zcuda to check (an application's own ZLUDA folder is not checked)";
  }
  return r;
}

}  // namespace

SignalReading read_signal(Signal signal, const MachineFacts& machine) {
  switch (signal) {
    case Signal::driver_25_5_1:
      return driver_reading(machine);
    case Signal::integrated_gpu_first:
      return integrated_reading(machine);
    case Signal::runtime_files_quarantined:
      return quarantine_reading(machine);
  }
  return {};
}

std::vector<RankedCause> rank_causes(const Entry& entry, const MachineFacts& machine) {
  std::vector<RankedCause> out;
  for (const auto& c : entry.causes) {
    RankedCause ranked{c.id, c.cause, c.fix, c.source, Likelihood::possible, {}};
    bool any_yes = false;
    bool all_no = !c.when.empty();
    for (auto signal : c.when) {
      const auto reading = read_signal(signal, machine);
      any_yes = any_yes || reading.holds == true;
      all_no = all_no && reading.holds == false;
      ranked.because.push_back(reading.because);
    }
    if (c.when.empty()) ranked.because.push_back("no machine fact tells this cause apart");
    ranked.likelihood = any_yes ? Likelihood::likely : all_no ? Likelihood::unlikely : Likelihood::possible;
    out.push_back(std::move(ranked));
  }
  std::stable_sort(out.begin(), out.end(), [](const RankedCause& a, const RankedCause& b) { return a.likelihood < b.likelihood; });
  return out;
}

}  // namespace zcuda::explain
