#include "job/phase_order.hpp"

#include <array>

namespace cuzk::job {

namespace {

// The phases a run records (job/front_stage.cpp, job/back_stage.cpp), in the order a run goes through them.
// Shared phases first: every input checked up front (inputs.check: parsed, validated, outputs and parameters
// looked at), the parameter file's header (verifying key and lengths), the parameters loaded by the engine
// (read, cold or warm from the page cache, and decoded: gpu/groth16_engine.hpp), the constraint cache (loaded
// or built) before the first synthesis, the proving engine's setup (named "<engine>.setup", e.g. gpu.setup)
// and the constraint matrices offered to it ("<engine>.constraints"). Then one sector: parse, validate, check
// (--check), synthesize, inputs (public inputs checked), satisfied (a*b = c), evaluate (a, b, c on the host
// for an engine that declined them), prove with its parts h, msm_g1, msm_g2, verify, write.
constexpr std::array<std::string_view, 23> kRunOrder = {
    "inputs.check",  "params.header", "params.load", "params.load.cold", "params.load.warm",
    "params.decode", "pce.load",      "pce.build",   "gpu.setup",        "gpu.constraints",
    "parse",         "validate",      "check",       "synthesize",       "inputs",
    "satisfied",     "evaluate",      "prove",       "prove.h",          "prove.msm_g1",
    "prove.msm_g2",  "verify",        "write"};
constexpr std::size_t kEngineSetupRank = 8;
static_assert(kRunOrder[kEngineSetupRank] == "gpu.setup");

}  // namespace

std::size_t phase_rank(std::string_view phase) {
  for (std::size_t i = 0; i < kRunOrder.size(); ++i)
    if (kRunOrder[i] == phase) return i;
  if (phase.ends_with(".setup")) return kEngineSetupRank;  // another engine's setup
  if (phase.ends_with(".constraints")) return kEngineSetupRank + 1;
  if (phase == "total") return kRunOrder.size() + 1;
  return kRunOrder.size();  // unknown: after the known ones, by name
}

}  // namespace cuzk::job
