#include "prover/update/parallel_witness.hpp"

#include <cstdint>
#include <map>
#include <mutex>

#include "prover/r1cs/constraint_system.hpp"
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
  r1cs::fill_challenge_witness<UpdateError>(
      update_layout(shape), inputs, aux, threads,
      [&](r1cs::WitnessSlice& cs) { return synthesize_update_common(cs, shape, w); },
      [&](r1cs::WitnessSlice& cs, const circuit_detail::UpdateCommon& common, std::size_t i) {
        synthesize_update_challenge(cs, shape, w, common, i);
      });
}

}  // namespace cuzk::update
