// A circuit's witness computed part by part on several threads: the variables before the first challenge
// (the common part), then each challenge's. Every challenge of a shape allocates the same numbers of aux and
// input variables (its gadgets depend only on the shape), so challenge i's range is known before any is
// computed and each thread writes its own (r1cs::WitnessSlice). The PoRep and update partitions' witnesses
// (porep/parallel_witness.hpp, update/parallel_witness.hpp) are such circuits.
#pragma once

#include <omp.h>

#include <atomic>
#include <cstddef>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/r1cs/witness_slice.hpp"

namespace cuzk::r1cs {

// Variables of one circuit: those before the first challenge, and those of each challenge.
struct ChallengeLayout {
  std::size_t common_inputs = 0;  // ONE included
  std::size_t common_aux = 0;
  std::size_t inputs_per_challenge = 0;
  std::size_t aux_per_challenge = 0;
  std::size_t challenges = 0;

  std::size_t num_inputs() const { return common_inputs + challenges * inputs_per_challenge; }
  std::size_t num_aux() const { return common_aux + challenges * aux_per_challenge; }
};

// Fills `inputs` (ONE first) and `aux` by the layout: common(cs) on this thread returns what the challenges
// read, then challenge(cs, shared, i) for every i, on up to `threads` threads (0: all), handed out
// dynamically. Their capacity is reused (resize keeps a recycled buffer's pages mapped). Throws
// Error(message) when a part allocates another number of variables than the layout says; the first exception
// of a challenge is rethrown after the loop.
template <class Error, class Common, class Challenge>
void fill_challenge_witness(const ChallengeLayout& layout, std::vector<algebra::Fr>& inputs,
                            std::vector<algebra::Fr>& aux, unsigned threads, Common&& common,
                            Challenge&& challenge) {
  inputs.resize(layout.num_inputs());
  aux.resize(layout.num_aux());
  inputs[0] = algebra::Fr::one();
  auto slice = [&](std::size_t input_begin, std::size_t inputs_count, std::size_t aux_begin,
                   std::size_t aux_count) {
    return WitnessSlice(std::span<algebra::Fr>(aux).subspan(aux_begin, aux_count), aux_begin,
                        std::span<algebra::Fr>(inputs).subspan(input_begin, inputs_count), input_begin);
  };
  auto refuse = [](const std::string& part, const WitnessSlice& cs, std::size_t want_inputs,
                   std::size_t want_aux) {
    throw Error(part + " allocated " + std::to_string(cs.inputs_used()) + " inputs and " +
                std::to_string(cs.aux_used()) + " aux variables where the circuit's layout has " +
                std::to_string(want_inputs) + " and " + std::to_string(want_aux));
  };

  WitnessSlice common_cs = slice(1, layout.common_inputs - 1, 0, layout.common_aux);
  const auto shared = common(common_cs);
  if (!common_cs.filled())
    refuse("the partition's common part", common_cs, layout.common_inputs - 1, layout.common_aux);

  const int num_threads = threads == 0 ? omp_get_max_threads() : static_cast<int>(threads);
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
#pragma omp parallel for schedule(dynamic, 1) num_threads(num_threads) if (num_threads > 1)
  for (std::size_t i = 0; i < layout.challenges; ++i) {
    if (failed.load(std::memory_order_relaxed)) continue;
    try {
      WitnessSlice cs =
          slice(layout.common_inputs + i * layout.inputs_per_challenge, layout.inputs_per_challenge,
                layout.common_aux + i * layout.aux_per_challenge, layout.aux_per_challenge);
      challenge(cs, shared, i);
      if (!cs.filled())
        refuse("challenge " + std::to_string(i), cs, layout.inputs_per_challenge, layout.aux_per_challenge);
    } catch (...) {
#pragma omp critical(cuzk_challenge_witness_failure)
      if (!failure) failure = std::current_exception();
      failed = true;
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace cuzk::r1cs
