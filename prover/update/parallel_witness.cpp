#include "prover/update/parallel_witness.hpp"

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <span>
#include <string>

#include "prover/r1cs/constraint_system.hpp"
#include "prover/r1cs/witness_slice.hpp"
#include "prover/update/errors.hpp"

namespace cuzk::update {

namespace {

UpdateLayout count_layout(const UpdateShape& shape) {
  const PartitionWitness blank = PartitionWitness::blank(shape);
  r1cs::Counter common;
  const circuit_detail::UpdateCommon shared = synthesize_update_common(common, shape, blank);
  r1cs::Counter one_challenge;
  synthesize_update_challenge(one_challenge, shape, blank, shared, 0);
  UpdateLayout layout;
  layout.common_inputs = common.num_inputs();
  layout.common_aux = common.num_aux();
  layout.inputs_per_challenge = one_challenge.num_inputs() - 1;  // a fresh Counter starts with ONE
  layout.aux_per_challenge = one_challenge.num_aux();
  layout.challenges = shape.challenge_count;
  return layout;
}

}  // namespace

const UpdateLayout& update_layout(const UpdateShape& shape) {
  static std::mutex mutex;
  static std::map<std::uint64_t, UpdateLayout> layouts;  // by sector_nodes: it decides the whole shape
  std::lock_guard lock(mutex);
  auto it = layouts.find(shape.sector_nodes);
  if (it == layouts.end()) it = layouts.emplace(shape.sector_nodes, count_layout(shape)).first;
  return it->second;
}

void generate_update_witness(const UpdateShape& shape, const PartitionWitness& w, std::vector<Fr>& inputs,
                             std::vector<Fr>& aux, unsigned threads) {
  check_witness_shape(shape, w);
  const UpdateLayout& layout = update_layout(shape);
  // resize() keeps a recycled buffer's pages: only a first partition faults its memory in.
  inputs.resize(layout.num_inputs());
  aux.resize(layout.num_aux());
  inputs[0] = Fr::one();

  auto slice = [&](std::size_t input_begin, std::size_t inputs_count, std::size_t aux_begin,
                   std::size_t aux_count) {
    return r1cs::WitnessSlice(std::span<Fr>(aux).subspan(aux_begin, aux_count), aux_begin,
                              std::span<Fr>(inputs).subspan(input_begin, inputs_count), input_begin);
  };
  auto refuse = [](const std::string& part, const r1cs::WitnessSlice& cs, std::size_t want_inputs,
                   std::size_t want_aux) {
    throw UpdateError("update circuit: " + part + " allocated " + std::to_string(cs.inputs_used()) +
                      " inputs and " + std::to_string(cs.aux_used()) +
                      " aux variables where the circuit's layout has " + std::to_string(want_inputs) +
                      " and " + std::to_string(want_aux));
  };

  r1cs::WitnessSlice common_cs = slice(1, layout.common_inputs - 1, 0, layout.common_aux);
  const circuit_detail::UpdateCommon common = synthesize_update_common(common_cs, shape, w);
  if (!common_cs.filled())
    refuse("the partition's common part", common_cs, layout.common_inputs - 1, layout.common_aux);

  const int num_threads = threads == 0 ? omp_get_max_threads() : static_cast<int>(threads);
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
  // One challenge per iteration, handed out dynamically (they take about the same time).
#pragma omp parallel for schedule(dynamic, 1) num_threads(num_threads) if (num_threads > 1)
  for (std::size_t i = 0; i < layout.challenges; ++i) {
    if (failed.load(std::memory_order_relaxed)) continue;
    try {
      r1cs::WitnessSlice cs =
          slice(layout.common_inputs + i * layout.inputs_per_challenge, layout.inputs_per_challenge,
                layout.common_aux + i * layout.aux_per_challenge, layout.aux_per_challenge);
      synthesize_update_challenge(cs, shape, w, common, i);
      if (!cs.filled())
        refuse("challenge " + std::to_string(i), cs, layout.inputs_per_challenge, layout.aux_per_challenge);
    } catch (...) {
#pragma omp critical(cuzk_update_witness_failure)
      if (!failure) failure = std::current_exception();
      failed = true;
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace cuzk::update
