// The error of a partition whose witness does not satisfy its circuit (job/sector_work.hpp).
#include "job/sector_work.hpp"

#include <string>

#include "prover/porep/synthesis.hpp"

namespace cuzk::job::detail {

JobError unsatisfied_error(const std::string& where, const porep::C1Output& c1, unsigned k, std::size_t row) {
  std::string named = porep::check_partition(c1, k).value_or("constraint " + std::to_string(row));
  return JobError(JobError::Kind::kUnsatisfiedCircuit,
                  where + ": the vanilla proofs do not satisfy the circuit at " + named +
                      " (a tampered or corrupt C1 file?)");
}

}  // namespace cuzk::job::detail
