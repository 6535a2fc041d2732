#include "prover/porep/parallel_witness.hpp"

#include <map>
#include <mutex>
#include <tuple>

#include "prover/r1cs/constraint_system.hpp"
#include "prover/r1cs/witness_slice.hpp"

namespace cuzk::porep {

namespace {

PartitionLayout count_layout(const StackedCircuitShape& shape) {
  const PartitionWitness blank = PartitionWitness::blank(shape);
  r1cs::Counter common;
  const PartitionCommon shared = synthesize_partition_common(common, blank);
  r1cs::Counter one_challenge;
  synthesize_partition_challenge(one_challenge, shape, blank, shared, 0);
  PartitionLayout layout;
  layout.common_inputs = common.num_inputs();
  layout.common_aux = common.num_aux();
  layout.inputs_per_challenge = one_challenge.num_inputs() - 1;  // a fresh Counter starts with ONE
  layout.aux_per_challenge = one_challenge.num_aux();
  layout.challenges = shape.challenges;
  return layout;
}

}  // namespace

const PartitionLayout& partition_layout(const StackedCircuitShape& shape) {
  static std::mutex mutex;
  static std::map<std::tuple<std::uint64_t, unsigned, unsigned, unsigned, unsigned, unsigned>,
                  PartitionLayout>
      layouts;
  const auto key = std::make_tuple(shape.nodes, shape.layers, shape.challenges, shape.base_arity,
                                   shape.sub_arity, shape.top_arity);
  std::lock_guard lock(mutex);
  auto it = layouts.find(key);
  if (it == layouts.end()) it = layouts.emplace(key, count_layout(shape)).first;
  return it->second;
}

void generate_partition_witness(const StackedCircuitShape& shape, const PartitionWitness& w,
                                std::vector<algebra::Fr>& inputs, std::vector<algebra::Fr>& aux,
                                unsigned threads) {
  check_witness_shape(shape, w);
  r1cs::fill_challenge_witness<PorepError>(
      partition_layout(shape), inputs, aux, threads,
      [&](r1cs::WitnessSlice& cs) { return synthesize_partition_common(cs, w); },
      [&](r1cs::WitnessSlice& cs, const PartitionCommon& common, std::size_t i) {
        synthesize_partition_challenge(cs, shape, w, common, i);
      });
}

}  // namespace cuzk::porep
