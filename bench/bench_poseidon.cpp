// Poseidon (neptune legacy, Standard) for the arities the PoRep circuit uses (2, 4, 8, 11):
// native hashes per second, the legacy circuit's full witness per hash (WitnessGen), its Recorder and
// Counter synthesis, and one arity-8 Merkle inclusion level (insert + hash) as witness.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "prover/gadgets/por.hpp"
#include "prover/gadgets/poseidon.hpp"
#include "prover/gadgets/poseidon_native.hpp"
#include "prover/r1cs/constraint_system.hpp"

namespace {

using cuzk::algebra::Fr;
using cuzk::gadgets::AllocatedNum;
namespace poseidon = cuzk::gadgets::poseidon;
namespace r1cs = cuzk::r1cs;

// Fixed-seed inputs (benchmarks assert nothing, so no printed seed is needed).
std::vector<Fr> bench_preimage(std::size_t arity) {
  std::mt19937_64 rng(arity);
  std::vector<Fr> v;
  for (std::size_t i = 0; i < arity; ++i) v.push_back(Fr::from_canonical({rng(), rng(), rng(), rng() >> 3}));
  return v;
}

void BM_PoseidonNative(benchmark::State& state) {
  const auto arity = static_cast<std::size_t>(state.range(0));
  const poseidon::Constants& c = poseidon::constants(arity);
  std::vector<Fr> preimage = bench_preimage(arity);
  for (auto _ : state) {
    preimage[0] = poseidon::hash(c, preimage);  // chain the hashes so nothing is hoisted
    benchmark::DoNotOptimize(preimage[0]);
  }
  state.SetItemsProcessed(state.iterations());  // hashes
}
BENCHMARK(BM_PoseidonNative)->Arg(2)->Arg(4)->Arg(8)->Arg(11)->Unit(benchmark::kMicrosecond);

void BM_PoseidonNativeReference(benchmark::State& state) {
  const auto arity = static_cast<std::size_t>(state.range(0));
  const poseidon::Constants& c = poseidon::constants(arity);
  std::vector<Fr> preimage = bench_preimage(arity);
  for (auto _ : state) {
    preimage[0] = poseidon::hash_reference(c, preimage);
    benchmark::DoNotOptimize(preimage[0]);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PoseidonNativeReference)->Arg(2)->Arg(8)->Arg(11)->Unit(benchmark::kMicrosecond);

// The circuit's aux values written to a caller buffer (no constraint system).
void BM_PoseidonCircuitTrace(benchmark::State& state) {
  const auto arity = static_cast<std::size_t>(state.range(0));
  const poseidon::Constants& c = poseidon::constants(arity);
  std::vector<Fr> preimage = bench_preimage(arity);
  std::vector<Fr> aux(poseidon::circuit_constraint_count(c));
  for (auto _ : state) {
    preimage[0] = poseidon::hash_with_circuit_witness(c, preimage, aux.data());
    benchmark::DoNotOptimize(aux.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(aux.size()));  // values
}
BENCHMARK(BM_PoseidonCircuitTrace)->Arg(2)->Arg(4)->Arg(8)->Arg(11)->Unit(benchmark::kMicrosecond);

// poseidon_hash on a WitnessGen, reused across iterations (its aux vector is cleared, capacity kept).
void BM_PoseidonWitnessGen(benchmark::State& state) {
  const auto arity = static_cast<std::size_t>(state.range(0));
  const poseidon::Constants& c = poseidon::constants(arity);
  std::vector<Fr> preimage = bench_preimage(arity);
  r1cs::WitnessGen cs;
  std::vector<AllocatedNum> vars;
  for (const Fr& v : preimage) vars.push_back(AllocatedNum::alloc_value(cs, v));
  const std::size_t base = cs.aux().size();
  for (auto _ : state) {
    cs.mutable_aux().resize(base);
    AllocatedNum out = cuzk::gadgets::poseidon_hash(cs, std::span<const AllocatedNum>(vars), c);
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(poseidon::circuit_constraint_count(c)));
}
BENCHMARK(BM_PoseidonWitnessGen)->Arg(2)->Arg(4)->Arg(8)->Arg(11)->Unit(benchmark::kMicrosecond);

void BM_PoseidonRecorder(benchmark::State& state) {
  const auto arity = static_cast<std::size_t>(state.range(0));
  const poseidon::Constants& c = poseidon::constants(arity);
  for (auto _ : state) {
    r1cs::Recorder cs;
    std::vector<AllocatedNum> vars;
    for (std::size_t i = 0; i < arity; ++i) vars.push_back(AllocatedNum::alloc_value(cs, Fr::zero()));
    AllocatedNum out = cuzk::gadgets::poseidon_hash(cs, std::span<const AllocatedNum>(vars), c);
    benchmark::DoNotOptimize(out);
    benchmark::DoNotOptimize(cs.finish());
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(poseidon::circuit_constraint_count(c)));
}
BENCHMARK(BM_PoseidonRecorder)->Arg(2)->Arg(8)->Arg(11)->Unit(benchmark::kMicrosecond);

void BM_PoseidonCounter(benchmark::State& state) {
  const auto arity = static_cast<std::size_t>(state.range(0));
  const poseidon::Constants& c = poseidon::constants(arity);
  for (auto _ : state) {
    r1cs::Counter cs;
    std::vector<AllocatedNum> vars;
    for (std::size_t i = 0; i < arity; ++i) vars.push_back(AllocatedNum::alloc_value(cs, Fr::zero()));
    AllocatedNum out = cuzk::gadgets::poseidon_hash(cs, std::span<const AllocatedNum>(vars), c);
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(poseidon::circuit_constraint_count(c)));
}
BENCHMARK(BM_PoseidonCounter)->Arg(8)->Unit(benchmark::kMicrosecond);

// One PoR of a 32GiB tree C / R (8-8-0, 10 levels) on a WitnessGen: 5,302 constraints.
void BM_PorInclusion32GiBWitnessGen(benchmark::State& state) {
  const cuzk::gadgets::TreeShape shape{8, 8};
  const std::size_t leaves = std::size_t{1} << 30;
  std::vector<cuzk::gadgets::PathElementValues> path = cuzk::gadgets::blank_path(leaves, shape);
  std::mt19937_64 rng(7);
  for (auto& e : path) {
    for (auto& s : e.siblings) s = Fr::from_u64(rng());
    e.index = rng() % (e.siblings.size() + 1);
  }
  for (auto _ : state) {
    r1cs::WitnessGen cs;
    AllocatedNum root = AllocatedNum::alloc_value(cs, Fr::one());
    AllocatedNum leaf = AllocatedNum::alloc_value(cs, Fr::from_u64(5));
    cuzk::gadgets::enforce_inclusion<cuzk::gadgets::PoseidonTreeHash>(
        cs, shape, std::span<const cuzk::gadgets::PathElementValues>(path), root, leaf);
    benchmark::DoNotOptimize(cs.aux().data());
  }
}
BENCHMARK(BM_PorInclusion32GiBWitnessGen)->Unit(benchmark::kMicrosecond);

}  // namespace
