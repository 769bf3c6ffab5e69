#include <zcuda/logbook/logbook.hpp>

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include <zcuda/base/path_format.hpp>

namespace zcuda::logbook {

namespace {
spdlog::level::level_enum console_level(Verbosity verbosity) {
  switch (verbosity) {
    case Verbosity::quiet:
      return spdlog::level::err;
    case Verbosity::normal:
      return spdlog::level::warn;
    case Verbosity::verbose:
      return spdlog::level::info;
    case Verbosity::debug:
      return spdlog::level::debug;
  }
  return spdlog::level::warn;
}

std::shared_ptr<spdlog::sinks::sink> console_sink(Verbosity verbosity) {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  sink->set_level(console_level(verbosity));
  sink->set_pattern(verbosity == Verbosity::debug ? "zcuda: [%H:%M:%S.%e %l] %v" : "zcuda: %l: %v");
  return sink;
}
}  // namespace

void init_console_logging(Verbosity verbosity) {
  auto logger = std::make_shared<spdlog::logger>("zcuda", console_sink(verbosity));
  logger->set_level(console_level(verbosity));
  spdlog::set_default_logger(logger);
}

Result<std::filesystem::path> init_logging(const std::filesystem::path& log_folder, Verbosity verbosity) {
  auto console = console_sink(verbosity);
  std::filesystem::path file = log_folder / "zcuda.log";
  std::shared_ptr<spdlog::sinks::sink> file_sink;
  try {
    // Three files of 5 MiB keep weeks of ordinary use and bound the disk taken.
    file_sink = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(file.string(), 5u << 20, 3);
  } catch (const spdlog::spdlog_ex& e) {
    init_console_logging(verbosity);
    return fail(ErrorKind::io, fmt::format("Could not open the log file {}: {}", file, e.what()));
  }
  file_sink->set_level(spdlog::level::debug);
  file_sink->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z [%P] %l: %v");
  auto logger = std::make_shared<spdlog::logger>("zcuda", spdlog::sinks_init_list{console, file_sink});
  logger->set_level(spdlog::level::debug);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  return file;
}

}  // namespace zcuda::logbook
