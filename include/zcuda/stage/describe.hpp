#pragma once
// Human-readable text for plans and results (the CLI prints it; --json uses to_json).
#include <string>

#include <zcuda/stage/stage.hpp>
#include <zcuda/ui/style.hpp>

namespace zcuda::stage {

std::string describe(const Plan& plan, const ui::Style& style);
std::string describe(const StageResult& result, const ui::Style& style);
std::string describe(const UnstageResult& result, const ui::Style& style);
std::string describe(const Recovery& recovery);

}  // namespace zcuda::stage
