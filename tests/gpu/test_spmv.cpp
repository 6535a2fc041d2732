// The GPU SpMV (gpu/spmv.hpp) against the CPU one (pce/evaluate.hpp), bit for bit: random compact matrices
// with every coefficient kind and row lengths on both sides of the thread/warp split, and the 2KiB and 8MiB
// PoRep partition circuits with their real witnesses (then a tampered one). Also the device satisfaction
// check against groth16::first_unsatisfied. C++ rather than CUDA: it only calls the gpu library's host API.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/host_staging.hpp"
#include "gpu/spmv.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/pce_test_support.hpp"

namespace cuzk::pce {
namespace {

struct GpuResult {
  r1cs::Evaluation abc;
  std::optional<std::size_t> first_unsatisfied;
};

// z up, SpMV, a, b, c down (and the device check of a * b = c).
GpuResult gpu_evaluate(const gpu::DeviceR1cs& circuit, std::span<const Fr> inputs, std::span<const Fr> aux) {
  gpu::Stream stream;
  gpu::HostStaging staging;
  gpu::DeviceBuffer<Fr> z(circuit.num_variables());
  const std::size_t n = circuit.num_constraints();
  gpu::DeviceBuffer<Fr> a(n), b(n), c(n);
  circuit.upload_witness(inputs, aux, z.data(), z.size(), staging, stream);
  circuit.evaluate(z.data(), a.data(), b.data(), c.data(), stream);
  GpuResult out;
  out.first_unsatisfied = gpu::first_unsatisfied(a.data(), b.data(), c.data(), n, stream);
  out.abc.a.resize(n);
  out.abc.b.resize(n);
  out.abc.c.resize(n);
  a.download(out.abc.a, stream);
  b.download(out.abc.b, stream);
  c.download(out.abc.c, stream);
  stream.synchronize();
  return out;
}

std::size_t long_rows(const CompactMatrix& m) {
  std::size_t count = 0;
  for (std::size_t r = 0; r < m.rows(); ++r)
    count += m.row_offsets[r + 1] - m.row_offsets[r] > gpu::DeviceR1cs::kLongRow;
  return count;
}

// Every coefficient class (+-1, +-2^k for k in 1..254, table values) in rows of 0 to 9 entries and of
// 31, 32, 33, 64, 100 and 700 entries (the warp kernel's side, and its boundary), against witnesses
// mixing 0, 1, small and random values (every fast path of both SpMVs).
TEST(GpuSpmv, RandomMatricesEveryCoefficientClassMatchCpu) {
  CUZK_REQUIRE_GPU();
  auto rng = test::seeded_rng("GpuSpmv.RandomMatricesEveryCoefficientClassMatchCpu");
  RandomR1csShape shape;
  shape.num_aux = 3000;
  shape.rows = 5000;
  shape.table_values = 40;
  shape.short_row_limit = 10;
  shape.long_row_odds = 50;
  shape.long_lengths = {31, 32, 33, 64, 100, 700};
  const r1cs::R1cs cs = random_r1cs(rng, shape);
  const CompactR1cs pce = compact(cs);
  ASSERT_EQ(expand(pce), cs);
  const CoefficientStats stats = coefficient_stats(pce);
  ASSERT_GT(stats.plus_minus_one, 0u);
  ASSERT_GT(stats.power_of_two, 0u);
  ASSERT_GT(stats.table, 0u);
  ASSERT_GT(long_rows(pce.a), 0u);
  ASSERT_GT(long_rows(pce.b), 0u);
  ASSERT_GT(long_rows(pce.c), 0u);
  const gpu::DeviceR1cs device(pce.view());
  EXPECT_EQ(device.num_constraints(), pce.num_constraints());
  EXPECT_GE(device.device_bytes(), gpu::DeviceR1cs::device_bytes_bound(pce.view()));
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<Fr> inputs, aux;
    random_witness(rng, cs, inputs, aux);
    const r1cs::Evaluation expected = evaluate(pce, inputs, aux, 2);
    const GpuResult got = gpu_evaluate(device, inputs, aux);
    EXPECT_EQ(got.abc.a, expected.a) << "trial " << trial;
    EXPECT_EQ(got.abc.b, expected.b) << "trial " << trial;
    EXPECT_EQ(got.abc.c, expected.c) << "trial " << trial;
    groth16::ProverInput cpu_check;
    cpu_check.a = expected.a;
    cpu_check.b = expected.b;
    cpu_check.c = expected.c;
    // Random values satisfy no row with nonzero products: both checks name the same first row.
    EXPECT_EQ(got.first_unsatisfied, groth16::first_unsatisfied(cpu_check)) << "trial " << trial;
  }
}

TEST(GpuSpmv, WrongWitnessSizeIsRefused) {
  CUZK_REQUIRE_GPU();
  const groth16::DemoCircuit demo = groth16::make_demo_circuit();
  const CompactR1cs pce = compact(demo.cs);
  const gpu::DeviceR1cs device(pce.view());
  const std::vector<Fr> short_aux(demo.aux.begin(), demo.aux.end() - 1);
  EXPECT_THROW(gpu_evaluate(device, demo.inputs, short_aux), gpu::GpuError);
  const GpuResult ok = gpu_evaluate(device, demo.inputs, demo.aux);
  const r1cs::Evaluation expected = evaluate(pce, demo.inputs, demo.aux);
  EXPECT_EQ(ok.abc.a, expected.a);
  EXPECT_EQ(ok.first_unsatisfied, std::nullopt);
}

// The partition circuit of a generated C1 file: its real witness (satisfied: both checks agree), then the
// same witness with one aux value that A reads changed: a differs, still equal to the CPU's, and the device
// check names the CPU check's first unsatisfied row.
void expect_partition_matches_cpu(const char* proof_name, std::uint64_t seed, bool sparse) {
  SCOPED_TRACE(proof_name);
  const porep::GeneratedC1 g = generated(proof_name, seed, sparse);
  const auto shape = porep::StackedCircuitShape::from_sector(*g.c1.registered_proof->shape);
  const CompactR1cs pce = build_porep_pce(shape);
  const gpu::DeviceR1cs device(pce.view());
  const groth16::ProverInput in =
      porep_prover_input(pce, shape, porep::PartitionWitness::from_c1(g.c1, 0), 2);
  ASSERT_EQ(groth16::first_unsatisfied(in), std::nullopt);
  const GpuResult got = gpu_evaluate(device, in.inputs, in.aux);
  EXPECT_TRUE(got.abc.a == in.a);  // EXPECT_EQ would print millions of values on a failure
  EXPECT_TRUE(got.abc.b == in.b);
  EXPECT_TRUE(got.abc.c == in.c);
  EXPECT_EQ(got.first_unsatisfied, std::nullopt);

  // An aux variable in a row of A of the thread kernel and one in a row of the warp kernel.
  std::vector<Fr> aux = in.aux;
  std::optional<std::uint32_t> short_column, long_column;
  for (std::size_t r = 0; r < pce.a.rows() && !(short_column && long_column); ++r) {
    const std::uint32_t begin = pce.a.row_offsets[r], end = pce.a.row_offsets[r + 1];
    std::optional<std::uint32_t>& pick = end - begin > gpu::DeviceR1cs::kLongRow ? long_column : short_column;
    for (std::uint32_t i = begin; i < end && !pick; ++i)
      if (pce.a.columns[i] >= pce.num_inputs) pick = pce.a.columns[i];
  }
  ASSERT_TRUE(short_column && long_column);
  aux[*short_column - pce.num_inputs] += Fr::one();
  aux[*long_column - pce.num_inputs] += Fr::from_u64(3);
  const r1cs::Evaluation expected = evaluate(pce, in.inputs, aux, 2);
  const GpuResult tampered = gpu_evaluate(device, in.inputs, aux);
  EXPECT_FALSE(tampered.abc.a == got.abc.a) << "a tampered witness gives another a";
  EXPECT_TRUE(tampered.abc.a == expected.a);
  EXPECT_TRUE(tampered.abc.b == expected.b);
  EXPECT_TRUE(tampered.abc.c == expected.c);
  groth16::ProverInput cpu_check;
  cpu_check.a = expected.a;
  cpu_check.b = expected.b;
  cpu_check.c = expected.c;
  const std::optional<std::size_t> cpu_first = groth16::first_unsatisfied(cpu_check);
  ASSERT_TRUE(cpu_first.has_value());
  EXPECT_EQ(tampered.first_unsatisfied, cpu_first);
}

TEST(GpuSpmv, Porep2KiBPartitionMatchesCpu) {
  CUZK_REQUIRE_GPU();
  expect_partition_matches_cpu("StackedDrg2KiBV1_1", 5, false);
}

TEST(GpuSpmv, Porep8MiBPartitionMatchesCpu) {
  CUZK_REQUIRE_GPU();
  expect_partition_matches_cpu("StackedDrg8MiBV1_1", 6, true);
}

}  // namespace
}  // namespace cuzk::pce
