// What both stages of a run share (job/sector_work.hpp): the unsatisfied-circuit error and its test, and a
// partition's randomness.
#include "job/sector_work.hpp"

#include <string>

#include "prover/groth16/randomness.hpp"
#include "prover/porep/synthesis.hpp"

namespace cuzk::job::detail {

JobError unsatisfied_error(const std::string& where, const porep::C1Output& c1, unsigned k, std::size_t row) {
  std::string named = porep::check_partition(c1, k).value_or("constraint " + std::to_string(row));
  return JobError(JobError::Kind::kUnsatisfiedCircuit,
                  where + ": the vanilla proofs do not satisfy the circuit at " + named +
                      " (a tampered or corrupt C1 file?)");
}

bool is_unsatisfied(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const JobError& e) {
    return e.kind() == JobError::Kind::kUnsatisfiedCircuit;
  } catch (...) {
    return false;
  }
}

std::pair<algebra::Fr, algebra::Fr> partition_randomness(const ProveOptions& options) {
  if (options.fixed_randomness) return *options.fixed_randomness;
  // Two draws in this order, as the proving stages always drew them.
  algebra::Fr r = groth16::random_fr();
  algebra::Fr s = groth16::random_fr();
  return {r, s};
}

}  // namespace cuzk::job::detail
