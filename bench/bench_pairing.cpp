// BLS12-381 pairing: one pairing, its two halves, G2 preparation, and a Groth16-sized multi-pairing.
#include <benchmark/benchmark.h>

#include <random>
#include <utility>
#include <vector>

#include "prover/algebra/pairing.hpp"

namespace {

using namespace cuzk::algebra;

// Fixed-seed random points (benchmarks need no printed seed: nothing is asserted).
std::pair<G1Affine, G2Affine> bench_points(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Fr a = Fr::from_u64(rng()), b = Fr::from_u64(rng());
  return {(G1::generator() * a).to_affine(), (G2::generator() * b).to_affine()};
}

void BM_Pairing(benchmark::State& state) {
  auto [p, q] = bench_points(1);
  for (auto _ : state) benchmark::DoNotOptimize(pairing(p, q));
}
BENCHMARK(BM_Pairing)->Unit(benchmark::kMicrosecond);

void BM_G2Prepare(benchmark::State& state) {
  auto [p, q] = bench_points(2);
  for (auto _ : state) benchmark::DoNotOptimize(G2Prepared::from(q));
}
BENCHMARK(BM_G2Prepare)->Unit(benchmark::kMicrosecond);

void BM_MillerLoopPrepared(benchmark::State& state) {
  auto [p, q] = bench_points(3);
  std::vector<std::pair<G1Affine, G2Prepared>> terms = {{p, G2Prepared::from(q)}};
  for (auto _ : state) benchmark::DoNotOptimize(miller_loop(terms));
}
BENCHMARK(BM_MillerLoopPrepared)->Unit(benchmark::kMicrosecond);

void BM_FinalExponentiation(benchmark::State& state) {
  auto [p, q] = bench_points(4);
  std::vector<std::pair<G1Affine, G2Prepared>> terms = {{p, G2Prepared::from(q)}};
  Fp12 f = miller_loop(terms);
  for (auto _ : state) benchmark::DoNotOptimize(final_exponentiation(f));
}
BENCHMARK(BM_FinalExponentiation)->Unit(benchmark::kMicrosecond);

// Arg = number of terms; 4 is one Groth16 verification (all G2 points prepared on the fly).
void BM_MultiPairing(benchmark::State& state) {
  std::vector<std::pair<G1Affine, G2Affine>> terms;
  for (int i = 0; i < state.range(0); ++i) terms.push_back(bench_points(10 + i));
  for (auto _ : state) benchmark::DoNotOptimize(multi_pairing(terms));
}
BENCHMARK(BM_MultiPairing)->Arg(4)->Unit(benchmark::kMicrosecond);

}  // namespace
