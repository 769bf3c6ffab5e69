#include <algorithm>

#include <fmt/format.h>

#include <zcuda/install/install.hpp>

#include "layout.hpp"

namespace zcuda::install {

namespace {

bool matches_os(manifest::TargetOs target, platform::Os os) {
  if (target == manifest::TargetOs::any) return true;
  return (target == manifest::TargetOs::windows) == (os == platform::Os::windows);
}

bool named_by(const manifest::Artifact& a, const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return n == a.id || n == a.component; });
}

}  // namespace

Result<Plan> make_plan(const manifest::Manifest& manifest, const Selection& selection, const home::Home& home) {
  Plan plan;
  plan.os = selection.os;
  plan.channel = selection.channel;
  plan.manifest_origin = manifest.origin;
  const std::string os_name(platform::os_id(selection.os));

  for (const auto& name : selection.only) {
    bool known = std::any_of(manifest.artifacts.begin(), manifest.artifacts.end(),
                             [&](const manifest::Artifact& a) { return a.id == name || a.component == name; });
    if (!known) {
      std::string ids;
      for (const auto& a : manifest.artifacts) ids += (ids.empty() ? "" : ", ") + a.id;
      return fail(ErrorKind::usage, fmt::format("--only {}: no artifact or component of that name in the manifest", name),
                  fmt::format("Known artifacts: {}.", ids));
    }
  }

  bool any_for_os = false;
  for (const auto& artifact : manifest.artifacts) {
    PlanItem item;
    item.artifact = artifact;
    item.destination = layout::version_dir(home, artifact.component, artifact.version);
    const bool explicitly_named = named_by(artifact, selection.only);
    if (!matches_os(artifact.os, selection.os)) {
      item.skip_reason = fmt::format("for {} (pass --os {} to prepare it here)", manifest::to_string(artifact.os), manifest::to_string(artifact.os));
    } else if (artifact.channel && *artifact.channel != selection.channel) {
      any_for_os = true;
      const auto channel = manifest::to_string(*artifact.channel);
      item.skip_reason = fmt::format("in the {} channel (pass --channel {})", channel, channel);
    } else if (!selection.only.empty() && !explicitly_named) {
      any_for_os = true;
      item.skip_reason = "not named by --only";
    } else if (artifact.optional && !explicitly_named && !(selection.with_libtorch && artifact.component == "libtorch")) {
      any_for_os = true;
      item.skip_reason = artifact.component == "libtorch" ? "optional (pass --with-libtorch)" : fmt::format("optional (pass --only {})", artifact.id);
    } else {
      any_for_os = true;
      item.selected = true;
    }
    plan.items.push_back(std::move(item));
  }

  if (!any_for_os) {
    Error e{ErrorKind::unsupported,
            fmt::format("No {} artifact is pinned in the {} manifest yet", os_name, manifest.origin == "embedded" ? "built-in" : manifest.origin),
            fmt::format("zcuda installs only what a manifest pins with a SHA-256. Write a manifest with the URL and the digest you "
                        "checked yourself (format: docs/manifest-format.md) and run: zcuda install --manifest FILE{}",
                        selection.os == platform::Os::linux ? ". To prepare a Windows offline folder from this machine, pass --os windows." : "."),
            {}};
    for (const auto& a : manifest.artifacts) e.notes.push_back(fmt::format("pinned: {} (os {})", a.id, manifest::to_string(a.os)));
    return std::unexpected(std::move(e));
  }
  return plan;
}

}  // namespace zcuda::install
