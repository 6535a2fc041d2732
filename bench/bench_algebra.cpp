// Field, curve, MSM and NTT micro-benchmarks (CPU). Inputs are fixed-seed random values: nothing is
// asserted here (tests/test_msm.cpp and tests/test_domain.cpp check the results).
#include <benchmark/benchmark.h>

#include <map>
#include <random>
#include <vector>

#include "prover/algebra/curve.hpp"
#include "prover/groth16/domain.hpp"
#include "prover/groth16/msm.hpp"

namespace {

using namespace cuzk::algebra;

template <class F>
F random_element(std::mt19937_64& rng) {
  for (;;) {
    typename F::Repr r{};
    for (auto& limb : r) limb = rng();
    r[F::N - 1] &= (u64{1} << (F::kBits % 64)) - 1;
    if (F::is_canonical(r)) return F::from_canonical(r);
  }
}

template <class F>
void BM_FieldMul(benchmark::State& state) {
  std::mt19937_64 rng(1);
  F a = random_element<F>(rng), b = random_element<F>(rng);
  for (auto _ : state) {
    a *= b;  // a dependent chain: latency of one multiplication
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_FieldMul<Fp>)->Name("Fp_mul");
BENCHMARK(BM_FieldMul<Fr>)->Name("Fr_mul");

template <class Cfg>
Jacobian<Cfg> random_point(std::mt19937_64& rng) {
  return Jacobian<Cfg>::generator() * random_element<Fr>(rng);
}

void BM_G1Add(benchmark::State& state) {
  std::mt19937_64 rng(2);
  G1 p = random_point<G1Config>(rng), q = random_point<G1Config>(rng);
  for (auto _ : state) {
    p = p + q;
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_G1Add)->Name("G1_add");

void BM_G1MixedAdd(benchmark::State& state) {
  std::mt19937_64 rng(3);
  G1 p = random_point<G1Config>(rng);
  G1Affine q = random_point<G1Config>(rng).to_affine();
  for (auto _ : state) {
    p = p.add_mixed(q);
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_G1MixedAdd)->Name("G1_mixed_add");

void BM_G1Dbl(benchmark::State& state) {
  std::mt19937_64 rng(4);
  G1 p = random_point<G1Config>(rng);
  for (auto _ : state) {
    p = p.dbl();
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_G1Dbl)->Name("G1_dbl");

void BM_G2Add(benchmark::State& state) {
  std::mt19937_64 rng(5);
  G2 p = random_point<G2Config>(rng), q = random_point<G2Config>(rng);
  for (auto _ : state) {
    p = p + q;
    benchmark::DoNotOptimize(p);
  }
}
BENCHMARK(BM_G2Add)->Name("G2_add");

// MSM inputs, generated once per group at the largest size and shared by prefixes: bases are
// P_i = P_{i-1} + Q for a random Q (one addition each, then one batch inversion), scalars are
// uniformly random.
template <class Cfg>
struct MsmInputs {
  std::vector<Affine<Cfg>> bases;
  std::vector<Fr> scalars;
};

template <class Cfg>
const MsmInputs<Cfg>& msm_inputs(std::size_t n) {
  static MsmInputs<Cfg> inputs;
  if (inputs.bases.size() < n) {
    std::mt19937_64 rng(6);
    const Jacobian<Cfg> step = random_point<Cfg>(rng);
    std::vector<Jacobian<Cfg>> points(n);
    Jacobian<Cfg> acc = step;
    for (auto& p : points) {
      p = acc;
      acc += step;
    }
    inputs.bases = batch_to_affine(points);
    inputs.scalars.resize(n);
    for (auto& s : inputs.scalars) s = random_element<Fr>(rng);
  }
  return inputs;
}

// Arguments: log2 of the point count, thread count (0 = every hardware thread).
void BM_G1Msm(benchmark::State& state) {
  const std::size_t n = std::size_t{1} << state.range(0);
  const auto& in = msm_inputs<G1Config>(std::size_t{1} << 20);
  std::span<const G1Affine> bases(in.bases.data(), n);
  std::span<const Fr> scalars(in.scalars.data(), n);
  for (auto _ : state) {
    G1 r = cuzk::groth16::msm_g1(bases, scalars, static_cast<unsigned>(state.range(1)));
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_G1Msm)
    ->Name("G1_msm")
    ->ArgNames({"log_n", "threads"})
    ->ArgsProduct({{16, 18, 20}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_G2Msm(benchmark::State& state) {
  const std::size_t n = std::size_t{1} << state.range(0);
  const auto& in = msm_inputs<G2Config>(n);
  for (auto _ : state) {
    G2 r = cuzk::groth16::msm_g2(in.bases, in.scalars, static_cast<unsigned>(state.range(1)));
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_G2Msm)
    ->Name("G2_msm")
    ->ArgNames({"log_n", "threads"})
    ->ArgsProduct({{16}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Ntt(benchmark::State& state) {
  const std::size_t n = std::size_t{1} << state.range(0);
  cuzk::groth16::EvaluationDomain domain(n);
  std::mt19937_64 rng(7);
  std::vector<Fr> values(n);
  for (auto& v : values) v = random_element<Fr>(rng);
  for (auto _ : state) {
    domain.fft(values);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_Ntt)
    ->Name("NTT")
    ->ArgName("log_n")
    ->DenseRange(16, 21)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Ntt)
    ->Name("NTT")
    ->ArgName("log_n")
    ->Arg(22)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
