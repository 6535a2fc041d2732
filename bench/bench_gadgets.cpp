// SHA-256 gadget throughput on one core: witness generation (WitnessGen), matrix recording (Recorder),
// counting (Counter). "values" counts witness values (aux variables) produced.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "prover/gadgets/sha256.hpp"
#include "prover/r1cs/constraint_system.hpp"

namespace {

using namespace cuzk::gadgets;
using cuzk::r1cs::Counter;
using cuzk::r1cs::Recorder;
using cuzk::r1cs::WitnessGen;

std::vector<bool> bench_bits(std::size_t n) {
  std::mt19937_64 rng(42);  // fixed seed: nothing is asserted
  std::vector<bool> bits(n);
  for (std::size_t i = 0; i < n; ++i) bits[i] = rng() & 1;
  return bits;
}

// One compression from the constant IV on 512 allocated bits (25,840 + 512 constraints).
template <class CS>
void compress_once(CS& cs, const std::vector<bool>& bits) {
  std::vector<Boolean> input;
  input.reserve(512);
  for (bool b : bits) input.push_back(AllocatedBit::alloc(cs, b));
  benchmark::DoNotOptimize(sha256_compression_function(cs, input, sha256_iv()));
}

void BM_Sha256Compression_WitnessGen(benchmark::State& state) {
  auto bits = bench_bits(512);
  std::size_t values = 0;
  for (auto _ : state) {
    WitnessGen cs;
    cs.reserve(1, 26400);
    compress_once(cs, bits);
    values += cs.aux().size();
    benchmark::DoNotOptimize(cs.aux().data());
  }
  state.counters["values/s"] = benchmark::Counter(static_cast<double>(values), benchmark::Counter::kIsRate);
  state.counters["compressions/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sha256Compression_WitnessGen)->Unit(benchmark::kMicrosecond);

// The same, reusing one witness buffer (as a per-thread synthesis loop would).
void BM_Sha256Compression_WitnessGenReused(benchmark::State& state) {
  auto bits = bench_bits(512);
  WitnessGen cs;
  cs.reserve(1, 26400);
  std::size_t values = 0;
  for (auto _ : state) {
    cs.mutable_aux().clear();
    compress_once(cs, bits);
    values += cs.aux().size();
    benchmark::DoNotOptimize(cs.aux().data());
  }
  state.counters["values/s"] = benchmark::Counter(static_cast<double>(values), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sha256Compression_WitnessGenReused)->Unit(benchmark::kMicrosecond);

void BM_Sha256Compression_Recorder(benchmark::State& state) {
  auto bits = bench_bits(512);
  std::size_t constraints = 0;
  for (auto _ : state) {
    Recorder cs;
    compress_once(cs, bits);
    constraints += cs.num_constraints();
    benchmark::DoNotOptimize(cs.finish());
  }
  state.counters["constraints/s"] =
      benchmark::Counter(static_cast<double>(constraints), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sha256Compression_Recorder)->Unit(benchmark::kMicrosecond);

// The same with the matrices reserved up front (as a PCE build that knows the circuit's size would do).
void BM_Sha256Compression_RecorderReserved(benchmark::State& state) {
  auto bits = bench_bits(512);
  std::size_t constraints = 0;
  for (auto _ : state) {
    Recorder cs;
    cs.reserve_constraints(26400, 61000);  // A has the most terms: 60,480
    compress_once(cs, bits);
    constraints += cs.num_constraints();
    benchmark::DoNotOptimize(cs.finish());
  }
  state.counters["constraints/s"] =
      benchmark::Counter(static_cast<double>(constraints), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sha256Compression_RecorderReserved)->Unit(benchmark::kMicrosecond);

void BM_Sha256Compression_Counter(benchmark::State& state) {
  auto bits = bench_bits(512);
  std::size_t constraints = 0;
  for (auto _ : state) {
    Counter cs;
    compress_once(cs, bits);
    constraints += cs.num_constraints();
  }
  state.counters["constraints/s"] =
      benchmark::Counter(static_cast<double>(constraints), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sha256Compression_Counter)->Unit(benchmark::kMicrosecond);

}  // namespace
