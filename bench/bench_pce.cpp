// The pre-compiled constraint evaluator on one PoRep partition (first argument 0: 2KiB, 1: 8MiB, 2: one
// challenge of 32GiB; second argument: threads, 0 = all; C1 data from gen-c1, made once outside the timed
// loops): PCE extraction (CompactRecorder) against the plain Recorder, writing and loading the cache file
// (warm and cold page cache), the witness alone (WitnessGen), the SpMV a, b, c = A·z, B·z, C·z with the
// coefficient fast paths against one multiplication per entry, the whole PCE proving input (witness + SpMV),
// and direct synthesis (ProvingAssignment, bellperson's way). Sizes (bytes on disk and in memory) are
// reported as counters of BM_PceWrite and BM_PceBuild.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <omp.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/temp_dir.hpp"
#include "pce/cache_file.hpp"
#include "pce/compact_r1cs.hpp"
#include "pce/compact_recorder.hpp"
#include "pce/evaluate.hpp"
#include "pce/porep_pce.hpp"
#include "prover/porep/circuit.hpp"
#include "prover/porep/gen_c1.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "prover/r1cs/proving_assignment.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cuzk;
using algebra::Fr;

struct Fixture {
  porep::StackedCircuitShape shape;
  porep::PartitionWitness witness;
  pce::CompactR1cs pce;
  std::vector<Fr> inputs, aux;  // WitnessGen's
  io::TempDir dir{"cuzk_bench_pce_"};
  fs::path file;
};

// 0: a 2KiB partition, 1: an 8MiB partition, 2: one challenge of a 32GiB partition (the 32GiB circuit
// with challenges = 1: 7.2 M constraints, the same gadgets in the same mix as the 18-challenge
// partition of 130 M, which would not fit this machine's memory next to its witness).
const Fixture& fixture(int size) {
  static std::unique_ptr<Fixture> fixtures[3];
  std::unique_ptr<Fixture>& f = fixtures[size];
  if (f) return *f;
  f = std::make_unique<Fixture>();
  static const char* const kProofs[] = {"StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1", "StackedDrg32GiBV1_1"};
  porep::GenC1Options o;
  o.proof = porep::find_registered_seal_proof(kProofs[size]);
  o.seed = 1;  // fixed: nothing is asserted
  o.sparse = size != 0;
  const porep::GeneratedC1 g = porep::generate_c1(o);
  f->shape = porep::StackedCircuitShape::from_sector(*o.proof->shape);
  f->witness = porep::PartitionWitness::from_c1(g.c1, 0);
  if (size == 2) {
    f->shape.challenges = 1;
    f->witness.challenges.resize(1);
  }
  f->pce = pce::build_porep_pce(f->shape);
  r1cs::WitnessGen cs;
  porep::synthesize_stacked_circuit(cs, f->shape, f->witness);
  f->inputs = cs.inputs();
  f->aux = cs.aux();
  f->file = f->dir.file("partition.pce");
  pce::write_cache_file(f->file, f->pce, pce::porep_circuit_description(f->shape));
  return *f;
}

void set_counters(benchmark::State& state, const Fixture& f) {
  state.counters["constraints"] = static_cast<double>(f.pce.num_constraints());
  state.counters["entries"] = static_cast<double>(f.pce.nnz());
}

void BM_PceBuild(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    pce::CompactR1cs p = pce::build_porep_pce(f.shape);
    benchmark::DoNotOptimize(p.a.columns.data());
  }
  set_counters(state, f);
  state.counters["bytes_in_memory"] = static_cast<double>(f.pce.memory_bytes());
  state.counters["bytes_per_constraint"] =
      static_cast<double>(f.pce.memory_bytes()) / static_cast<double>(f.pce.num_constraints());
}

void BM_RecorderExtract(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    r1cs::Recorder cs;
    porep::synthesize_stacked_circuit(cs, f.shape, porep::PartitionWitness::blank(f.shape));
    r1cs::R1cs r = cs.finish();
    benchmark::DoNotOptimize(r.a.columns.data());
  }
  set_counters(state, f);
}

void BM_PceWrite(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<int>(state.range(0)));
  pce::CacheHeader h;
  for (auto _ : state) h = pce::write_cache_file(f.dir.file("write.pce"), f.pce, "bench");
  set_counters(state, f);
  state.counters["bytes_on_disk"] = static_cast<double>(h.file_size);
  state.counters["content_bytes"] = static_cast<double>(h.content_bytes);
}

unsigned threads_arg(const benchmark::State& state) {
  return static_cast<unsigned>(state.range(1));
}

// range(1): threads (0 = all). cold: the file's pages are dropped from the page cache before each load
// (POSIX_FADV_DONTNEED on a clean file; a VM's host may still cache the disk).
void load(benchmark::State& state, bool cold) {
  const Fixture& f = fixture(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    if (cold) {
      state.PauseTiming();
      const int fd = ::open(f.file.c_str(), O_RDONLY | O_CLOEXEC);
      ::fdatasync(fd);
      ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
      ::close(fd);
      state.ResumeTiming();
    }
    pce::CompactR1cs p =
        pce::read_cache_file(f.file, pce::porep_circuit_description(f.shape), threads_arg(state));
    benchmark::DoNotOptimize(p.a.columns.data());
  }
  set_counters(state, f);
}
void BM_PceLoadWarm(benchmark::State& state) {
  load(state, false);
}
void BM_PceLoadCold(benchmark::State& state) {
  load(state, true);
}

void BM_WitnessGen(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    r1cs::WitnessGen cs;
    cs.reserve(f.pce.num_inputs, f.pce.num_aux);
    porep::synthesize_stacked_circuit(cs, f.shape, f.witness);
    benchmark::DoNotOptimize(cs.aux().data());
  }
  set_counters(state, f);
}

// range(1): threads (0 = all).
void BM_PceSpmv(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<int>(state.range(0)));
  const std::size_t n = f.pce.num_constraints();
  std::vector<Fr> a(n), b(n), c(n);
  for (auto _ : state) {
    pce::evaluate_into(f.pce, f.inputs, f.aux, a, b, c, static_cast<unsigned>(state.range(1)));
    benchmark::DoNotOptimize(a.data());
  }
  set_counters(state, f);
  state.counters["entries/s"] =
      benchmark::Counter(static_cast<double>(f.pce.nnz() * state.iterations()), benchmark::Counter::kIsRate);
}

// The same products with one Montgomery multiplication per entry, over the plain R1cs (32-byte
// coefficients): what the fast paths and the compact form save.
void BM_NaiveSpmv(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<int>(state.range(0)));
  const r1cs::R1cs r = pce::expand(f.pce);
  const std::size_t n = r.num_constraints(), ni = r.num_inputs;
  std::vector<Fr> a(n), b(n), c(n);
  const int threads = state.range(1) == 0 ? omp_get_max_threads() : static_cast<int>(state.range(1));
  auto value = [&](std::uint32_t v) -> const Fr& { return v < ni ? f.inputs[v] : f.aux[v - ni]; };
  auto row = [&](const r1cs::SparseMatrix& m, std::size_t k) {
    Fr acc = Fr::zero();
    for (std::uint64_t t = m.row_offsets[k]; t < m.row_offsets[k + 1]; ++t)
      acc += m.values[t] * value(m.columns[t]);
    return acc;
  };
  for (auto _ : state) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(n); ++k) {
      a[k] = row(r.a, k);
      b[k] = row(r.b, k);
      c[k] = row(r.c, k);
    }
    benchmark::DoNotOptimize(a.data());
  }
  set_counters(state, f);
}

// WitnessGen + SpMV + densities: the PCE proving path's whole input.
void BM_PceProverInput(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    groth16::ProverInput in =
        pce::porep_prover_input(f.pce, f.shape, f.witness, static_cast<unsigned>(state.range(1)));
    benchmark::DoNotOptimize(in.a.data());
  }
  set_counters(state, f);
}

// Direct synthesis: ProvingAssignment evaluates every linear combination as it is enforced.
void BM_ProvingAssignment(benchmark::State& state) {
  const Fixture& f = fixture(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    r1cs::ProvingAssignment cs;
    porep::synthesize_stacked_circuit(cs, f.shape, f.witness);
    groth16::ProverInput in = std::move(cs).finish<groth16::ProverInput>();
    benchmark::DoNotOptimize(in.a.data());
  }
  set_counters(state, f);
}

#define PCE_BENCH(fn) BENCHMARK(fn)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0)
PCE_BENCH(BM_PceBuild)->DenseRange(0, 2);
PCE_BENCH(BM_RecorderExtract)->DenseRange(0, 2);
PCE_BENCH(BM_PceWrite)->DenseRange(0, 2);
PCE_BENCH(BM_PceLoadWarm)->ArgsProduct({{0, 1, 2}, {1, 0}});
PCE_BENCH(BM_PceLoadCold)->ArgsProduct({{0, 1, 2}, {1, 0}});
PCE_BENCH(BM_WitnessGen)->DenseRange(0, 2);
PCE_BENCH(BM_PceSpmv)->ArgsProduct({{0, 1, 2}, {1, 0}});
PCE_BENCH(BM_NaiveSpmv)->ArgsProduct({{0, 1, 2}, {1, 0}});
PCE_BENCH(BM_PceProverInput)->ArgsProduct({{0, 1, 2}, {1, 0}});
PCE_BENCH(BM_ProvingAssignment)->DenseRange(0, 2);

}  // namespace
