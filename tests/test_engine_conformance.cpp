// The engine conformance suite (tests/engine_conformance.hpp) on the CPU engine.
#include "tests/engine_conformance.hpp"

namespace cuzk::test::conformance {
namespace {

struct CpuEngine {
  static std::unique_ptr<ProverEngine> make(const groth16::Parameters& params) {
    return groth16::make_cpu_engine(params, 2);
  }
  static bool holds_constraints() { return false; }  // a, b, c are evaluated on the host (pce/evaluate.hpp)
  static void require() {}
};

INSTANTIATE_TYPED_TEST_SUITE_P(Cpu, EngineConformance, CpuEngine);

}  // namespace
}  // namespace cuzk::test::conformance
