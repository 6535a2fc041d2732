// The pre-compiled constraint evaluator: compact coefficients, the compact recorder against the plain
// Recorder, SpMV against r1cs::evaluate (the naive one-multiplication-per-entry reference), proofs made
// through the PCE path, and the cache file (round trip, every corruption detected, load-or-build).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "io/temp_dir.hpp"
#include "pce/cache.hpp"
#include "pce/cache_file.hpp"
#include "pce/compact_r1cs.hpp"
#include "pce/compact_recorder.hpp"
#include "pce/errors.hpp"
#include "pce/evaluate.hpp"
#include "pce/porep_pce.hpp"
#include "pce/xxhash64.hpp"
#include "prover/gadgets/merkle_native.hpp"
#include "prover/gadgets/multipack.hpp"
#include "prover/gadgets/num.hpp"
#include "prover/gadgets/por.hpp"
#include "prover/gadgets/poseidon.hpp"
#include "prover/gadgets/sha256.hpp"
#include "prover/groth16/demo_circuit.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/groth16/setup.hpp"
#include "prover/groth16/verifier.hpp"
#include "prover/porep/circuit.hpp"
#include "prover/porep/gen_c1.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "prover/r1cs/evaluate.hpp"
#include "tests/test_util.hpp"

namespace cuzk::pce {
namespace {

namespace fs = std::filesystem;
using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using gadgets::Boolean;
using r1cs::Variable;

Fr rand_fr(std::mt19937_64& rng) {
  return test::random_field<Fr>(rng);
}

// --------------------------------------------------------------------------------------------------------
// Test circuits, each a template over the constraint system, with its values fixed at construction.

// 512 allocated message bits -> SHA-256 -> the 256 digest bits packed into 2 public inputs.
struct Sha256Circuit {
  std::vector<bool> message;
  explicit Sha256Circuit(std::mt19937_64& rng, std::size_t bits = 512) {
    for (std::size_t i = 0; i < bits; ++i) message.push_back((rng() & 1) != 0);
  }
  template <class CS>
  void operator()(CS& cs) const {
    std::vector<Boolean> bits;
    for (bool b : message) bits.push_back(AllocatedBit::alloc(cs, b));
    std::vector<Boolean> digest = gadgets::sha256(cs, bits);
    gadgets::pack_into_inputs(cs, std::span<const Boolean>(digest));
  }
};

// Poseidon of a random preimage (MDS and round-constant coefficients: the table codes), output inputized,
// plus a strict bit decomposition of the output (coefficients 2^k up to 2^254).
struct PoseidonCircuit {
  std::vector<Fr> preimage;
  PoseidonCircuit(std::mt19937_64& rng, std::size_t arity) {
    for (std::size_t i = 0; i < arity; ++i) preimage.push_back(rand_fr(rng));
  }
  template <class CS>
  void operator()(CS& cs) const {
    std::vector<AllocatedNum> vars;
    for (const Fr& v : preimage) vars.push_back(AllocatedNum::alloc_value(cs, v));
    AllocatedNum out = gadgets::poseidon_hash(cs, std::span<const AllocatedNum>(vars),
                                              gadgets::poseidon::constants(preimage.size()));
    out.inputize(cs);
    out.to_bits_le_strict(cs);
  }
};

// A Merkle inclusion proof in a Poseidon tree of shape 8-4-2 (insertion gadgets, index packing).
struct PorCircuit {
  gadgets::merkle::TreeShape shape{8, 4, 2};
  std::vector<Fr> leaves;
  std::size_t index;
  Fr root;
  std::vector<gadgets::PathElementValues> path;
  explicit PorCircuit(std::mt19937_64& rng) {
    const std::size_t count = 64 * shape.base_tree_count();
    for (std::size_t i = 0; i < count; ++i) leaves.push_back(rand_fr(rng));
    index = static_cast<std::size_t>(rng() % count);
    root = gadgets::merkle::tree_root<gadgets::merkle::PoseidonHasher>(leaves, shape);
    path = gadgets::merkle::tree_path<gadgets::merkle::PoseidonHasher>(leaves, shape, index);
  }
  template <class CS>
  void operator()(CS& cs) const {
    gadgets::por_circuit<gadgets::PoseidonTreeHash>(cs, shape, leaves[index],
                                                    std::span<const gadgets::PathElementValues>(path), root,
                                                    /*private_root=*/false);
  }
};

// Rows the recorders must normalize: unsorted terms, repeated variables, sums that cancel to zero,
// inputs allocated between aux variables, an empty row.
struct MergeCircuit {
  Fr x_value;
  template <class CS>
  void operator()(CS& cs) const {
    using LC = typename CS::LC;
    Variable x = cs.alloc("x", [&] { return x_value; });
    Variable x_in = cs.alloc_input("x input", [&] { return x_value; });
    cs.enforce("x input", LC(x_in), LC(Variable::one()), LC(x));
    Variable y = cs.alloc("y", [&] { return x_value * x_value; });
    cs.enforce("square", LC(x).add(x).sub(x).add(Variable::one()).sub(Variable::one()), LC(x),
               LC(y).add(y).sub(y));
    Variable y_in = cs.alloc_input("y input", [&] { return x_value * x_value; });
    // Unsorted: y_in (input 2) after aux y, x; and a coefficient 3 + (-3) on x that cancels.
    LC unsorted = LC(y, Fr::from_u64(5)).add(x, Fr::from_u64(3)).add(y_in).add(x, -Fr::from_u64(3)).sub(y_in);
    cs.enforce("unsorted", unsorted, LC(Variable::one()), LC(y, Fr::from_u64(5)));
    cs.enforce("empty", LC(), LC(), LC());
    cs.enforce("y input", LC(y_in), LC(Variable::one()), LC(y));
  }
};

// Runs `circuit` on the Recorder, the CompactRecorder and WitnessGen, and checks: the compact recorder
// gives the Recorder's matrices exactly; PCE densities equal r1cs::compute_densities; the PCE's a, b, c
// equal r1cs::evaluate's and groth16::witness_from_r1cs's bit for bit, at several thread counts; and,
// for a satisfying witness, a_k * b_k = c_k.
template <class Circuit>
void expect_pce_matches_direct(const Circuit& circuit, const std::string& name,
                               std::initializer_list<unsigned> thread_counts = {1u, 2u, 7u},
                               bool satisfied = true) {
  SCOPED_TRACE(name);
  r1cs::Recorder recorder;
  circuit(recorder);
  const r1cs::R1cs direct = recorder.finish();
  CompactRecorder compact_recorder;
  circuit(compact_recorder);
  const CompactR1cs pce = compact_recorder.finish();
  ASSERT_EQ(expand(pce), direct);
  EXPECT_EQ(expand(compact(direct)), direct);
  validate(pce, name);

  r1cs::WitnessGen witness;
  circuit(witness);
  ASSERT_EQ(witness.inputs().size(), direct.num_inputs);
  ASSERT_EQ(witness.aux().size(), direct.num_aux);
  const r1cs::Evaluation expected = r1cs::evaluate(direct, witness.inputs(), witness.aux());
  const r1cs::Densities expected_densities = r1cs::compute_densities(direct);
  EXPECT_EQ(pce.densities.a_aux, expected_densities.a_aux);
  EXPECT_EQ(pce.densities.b_input, expected_densities.b_input);
  EXPECT_EQ(pce.densities.b_aux, expected_densities.b_aux);
  for (unsigned threads : thread_counts) {
    const r1cs::Evaluation got = evaluate(pce, witness.inputs(), witness.aux(), threads);
    EXPECT_EQ(got.a, expected.a) << threads << " threads";
    EXPECT_EQ(got.b, expected.b) << threads << " threads";
    EXPECT_EQ(got.c, expected.c) << threads << " threads";
  }
  const groth16::ProverInput via_pce = make_prover_input(pce, witness.inputs(), witness.aux());
  const groth16::ProverInput via_r1cs = groth16::witness_from_r1cs(direct, witness.inputs(), witness.aux());
  EXPECT_EQ(via_pce.a, via_r1cs.a);
  EXPECT_EQ(via_pce.b, via_r1cs.b);
  EXPECT_EQ(via_pce.c, via_r1cs.c);
  EXPECT_EQ(via_pce.densities.a_aux, via_r1cs.densities.a_aux);
  EXPECT_EQ(via_pce.densities.b_input, via_r1cs.densities.b_input);
  EXPECT_EQ(via_pce.densities.b_aux, via_r1cs.densities.b_aux);
  if (satisfied) {
    EXPECT_EQ(groth16::first_unsatisfied(via_pce), std::nullopt) << "the witness satisfies the circuit";
  }
}

// --------------------------------------------------------------------------------------------------------

TEST(PceCoefficients, PowersOfTwoAndTable) {
  auto rng = test::seeded_rng("PceCoefficients.PowersOfTwoAndTable");
  CoefficientEncoder encoder;
  Fr p = Fr::one();
  for (unsigned k = 0; k <= kMaxExponent; ++k) {
    EXPECT_EQ(encoder.encode(p), power_of_two_code(k, false)) << k;
    EXPECT_EQ(encoder.encode(-p), power_of_two_code(k, true)) << k;
    p = p + p;
  }
  EXPECT_EQ(encoder.encode(Fr::one()), kPlusOne);
  EXPECT_EQ(encoder.encode(-Fr::one()), kMinusOne);
  // 2^255 mod r is not a power of two below r: a table value.
  EXPECT_TRUE(is_table_code(encoder.encode(p)));
  EXPECT_TRUE(is_table_code(encoder.encode(Fr::from_u64(3))));
  std::vector<Fr> values = {p, Fr::from_u64(3)};
  for (int i = 0; i < 100; ++i) {
    Fr v = rand_fr(rng);
    const CoeffCode code = encoder.encode(v);
    ASSERT_TRUE(is_table_code(code));
    EXPECT_EQ(encoder.encode(v), code) << "the same value gets the same code";
    if (table_index(code) == values.size()) values.push_back(v);
  }
  CompactR1cs holder;
  holder.table = encoder.table();
  EXPECT_EQ(holder.table, values);
  for (unsigned k = 0; k <= kMaxExponent; k += 17) {
    Fr expected = Fr::one();
    for (unsigned i = 0; i < k; ++i) expected = expected + expected;
    EXPECT_EQ(holder.coefficient(power_of_two_code(k, false)), expected);
    EXPECT_EQ(holder.coefficient(power_of_two_code(k, true)), -expected);
  }
}

TEST(PceCoefficients, TableLimitIsReported) {
  CoefficientEncoder encoder;
  for (std::size_t i = 0; i < kMaxTableSize; ++i) encoder.encode(Fr::from_u64(1000003 + 2 * i));
  try {
    encoder.encode(Fr::from_u64(999));
    FAIL() << "a 32,769th table value must be refused";
  } catch (const PceError& e) {
    EXPECT_EQ(e.kind(), PceErrorKind::kLimits);
  }
}

// --------------------------------------------------------------------------------------------------------

TEST(PceEvaluate, DemoCircuitMatchesDirectEvaluation) {
  const groth16::DemoCircuit demo = groth16::make_demo_circuit();
  const CompactR1cs pce = compact(demo.cs);
  EXPECT_EQ(expand(pce), demo.cs);
  const r1cs::Evaluation expected = r1cs::evaluate(demo.cs, demo.inputs, demo.aux);
  for (unsigned threads : {1u, 3u}) {
    const r1cs::Evaluation got = evaluate(pce, demo.inputs, demo.aux, threads);
    EXPECT_EQ(got.a, expected.a);
    EXPECT_EQ(got.b, expected.b);
    EXPECT_EQ(got.c, expected.c);
  }
  const r1cs::Densities d = r1cs::compute_densities(demo.cs);
  EXPECT_EQ(pce.densities.a_aux, d.a_aux);
  EXPECT_EQ(pce.densities.b_input, d.b_input);
  EXPECT_EQ(pce.densities.b_aux, d.b_aux);
}

TEST(PceEvaluate, MergeRulesMatchTheRecorder) {
  auto rng = test::seeded_rng("PceEvaluate.MergeRulesMatchTheRecorder");
  expect_pce_matches_direct(MergeCircuit{rand_fr(rng)}, "merge");
}

TEST(PceEvaluate, Sha256CircuitMatchesDirectEvaluation) {
  auto rng = test::seeded_rng("PceEvaluate.Sha256CircuitMatchesDirectEvaluation");
  expect_pce_matches_direct(Sha256Circuit(rng), "sha256 512 bits");
  expect_pce_matches_direct(Sha256Circuit(rng, 1000), "sha256 1000 bits");
}

TEST(PceEvaluate, PoseidonCircuitsMatchDirectEvaluation) {
  auto rng = test::seeded_rng("PceEvaluate.PoseidonCircuitsMatchDirectEvaluation");
  for (std::size_t arity : {2, 4, 8, 11}) {
    expect_pce_matches_direct(PoseidonCircuit(rng, arity), "poseidon arity " + std::to_string(arity));
  }
}

TEST(PceEvaluate, PorCircuitMatchesDirectEvaluation) {
  auto rng = test::seeded_rng("PceEvaluate.PorCircuitMatchesDirectEvaluation");
  expect_pce_matches_direct(PorCircuit(rng), "por 8-4-2");
}

// Random matrices with every coefficient class against random witnesses mixing 0, 1, small and random
// values: every fast path of the SpMV against one multiplication per entry.
TEST(PceEvaluate, RandomMatricesEveryCoefficientClass) {
  auto rng = test::seeded_rng("PceEvaluate.RandomMatricesEveryCoefficientClass");
  r1cs::R1cs cs;
  cs.num_inputs = 5;
  cs.num_aux = 300;
  std::vector<Fr> table_values;
  for (int i = 0; i < 20; ++i) table_values.push_back(rand_fr(rng));
  auto random_coeff = [&]() -> Fr {
    switch (rng() % 6) {
      case 0:
        return Fr::one();
      case 1:
        return -Fr::one();
      case 2:
      case 3: {
        Fr p = Fr::one();
        for (unsigned k = rng() % (kMaxExponent + 1); k > 0; --k) p = p + p;
        return rng() % 2 ? p : -p;
      }
      case 4:
        return table_values[rng() % table_values.size()];
      default:
        return rand_fr(rng);
    }
  };
  for (int row = 0; row < 2000; ++row) {
    for (r1cs::SparseMatrix* m : {&cs.a, &cs.b, &cs.c}) {
      const std::size_t len = rng() % 9;
      for (std::size_t t = 0; t < len; ++t) {
        m->columns.push_back(static_cast<std::uint32_t>(rng() % cs.num_variables()));
        m->values.push_back(random_coeff());
      }
      m->row_offsets.push_back(m->columns.size());
    }
  }
  const CompactR1cs pce = compact(cs);
  ASSERT_EQ(expand(pce), cs);
  const CoefficientStats stats = coefficient_stats(pce);
  EXPECT_GT(stats.plus_minus_one, 0u);
  EXPECT_GT(stats.power_of_two, 0u);
  EXPECT_GT(stats.table, 0u);
  EXPECT_EQ(stats.plus_minus_one + stats.power_of_two + stats.table, pce.nnz());
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<Fr> inputs{Fr::one()}, aux;
    auto random_value = [&]() -> Fr {
      switch (rng() % 4) {
        case 0:
          return Fr::zero();
        case 1:
          return Fr::one();
        case 2:
          return Fr::from_u64(rng() % 1000);
        default:
          return rand_fr(rng);
      }
    };
    for (std::size_t i = 1; i < cs.num_inputs; ++i) inputs.push_back(random_value());
    for (std::size_t i = 0; i < cs.num_aux; ++i) aux.push_back(random_value());
    const r1cs::Evaluation expected = r1cs::evaluate(cs, inputs, aux);
    const r1cs::Evaluation got = evaluate(pce, inputs, aux, 1 + trial);
    EXPECT_EQ(got.a, expected.a);
    EXPECT_EQ(got.b, expected.b);
    EXPECT_EQ(got.c, expected.c);
  }
}

TEST(PceEvaluate, WrongWitnessSizeIsRefused) {
  const groth16::DemoCircuit demo = groth16::make_demo_circuit();
  const CompactR1cs pce = compact(demo.cs);
  std::vector<Fr> short_aux(demo.aux.begin(), demo.aux.end() - 1);
  try {
    evaluate(pce, demo.inputs, short_aux);
    FAIL() << "a short witness must be refused";
  } catch (const PceError& e) {
    EXPECT_EQ(e.kind(), PceErrorKind::kWitness);
  }
}

// --------------------------------------------------------------------------------------------------------
// Proofs through the PCE path verify.

template <class Circuit>
void expect_pce_proof_verifies(const Circuit& circuit, std::mt19937_64& rng) {
  r1cs::Recorder recorder;
  circuit(recorder);
  const r1cs::R1cs direct = recorder.finish();
  CompactRecorder compact_recorder;
  circuit(compact_recorder);
  const CompactR1cs pce = compact_recorder.finish();
  r1cs::WitnessGen witness;
  circuit(witness);
  const groth16::ToxicWaste waste{rand_fr(rng), rand_fr(rng), rand_fr(rng), rand_fr(rng), rand_fr(rng)};
  const groth16::Parameters params = groth16::generate_parameters(expand(pce), waste, 2);
  const std::vector<Fr> public_inputs(witness.inputs().begin() + 1, witness.inputs().end());
  groth16::ProverInput input = make_prover_input(pce, witness.inputs(), witness.aux(), 2);
  const groth16::Proof proof = groth16::prove(params, std::move(input), rand_fr(rng), rand_fr(rng), 2);
  const groth16::PreparedVerifyingKey pvk = groth16::prepare_verifying_key(params.vk);
  EXPECT_TRUE(groth16::verify(pvk, proof, public_inputs));
  std::vector<Fr> tampered = public_inputs;
  tampered[0] += Fr::one();
  EXPECT_FALSE(groth16::verify(pvk, proof, tampered));
}

TEST(PceProof, DemoCircuitProofThroughPceVerifies) {
  auto rng = test::seeded_rng("PceProof.DemoCircuitProofThroughPceVerifies");
  const groth16::DemoCircuit demo = groth16::make_demo_circuit();
  const CompactR1cs pce = compact(demo.cs);
  const groth16::ToxicWaste waste{rand_fr(rng), rand_fr(rng), rand_fr(rng), rand_fr(rng), rand_fr(rng)};
  const groth16::Parameters params = groth16::generate_parameters(demo.cs, waste, 2);
  const groth16::Proof proof =
      groth16::prove(params, make_prover_input(pce, demo.inputs, demo.aux, 2), rand_fr(rng), rand_fr(rng), 2);
  const groth16::PreparedVerifyingKey pvk = groth16::prepare_verifying_key(params.vk);
  EXPECT_TRUE(groth16::verify(pvk, proof, demo.public_inputs()));
}

TEST(PceProof, PoseidonCircuitProofThroughPceVerifies) {
  auto rng = test::seeded_rng("PceProof.PoseidonCircuitProofThroughPceVerifies");
  expect_pce_proof_verifies(PoseidonCircuit(rng, 2), rng);
}

// --------------------------------------------------------------------------------------------------------
// Cache files.

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const fs::path& p, std::span<const std::uint8_t> bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Overwrites one byte in place (no truncation: ext4 flushes a file rewritten after truncation on close,
// which would make the flip tests wait on the disk thousands of times).
void patch_byte(const fs::path& p, std::size_t pos, std::uint8_t value) {
  std::fstream f(p, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(pos));
  f.put(static_cast<char>(value));
}

// The kind of PceError reading `path` throws, or nullopt when it reads fine.
std::optional<PceErrorKind> read_error(const fs::path& path, const std::string& description,
                                       unsigned threads = 1) {
  try {
    read_cache_file(path, description, threads);
    return std::nullopt;
  } catch (const PceError& e) {
    return e.kind();
  }
}

const std::string kDemoDescription = "demo circuit v1 secrets=3,5,7 rounds=50";

TEST(PceFile, RoundTripGivesIdenticalMatrices) {
  auto rng = test::seeded_rng("PceFile.RoundTripGivesIdenticalMatrices");
  io::TempDir dir("cuzk_pce_");
  CompactRecorder recorder;
  Sha256Circuit{rng}(recorder);
  const CompactR1cs pce = recorder.finish();
  const std::string description = "sha256 test circuit";
  struct Case {
    std::size_t chunk_bytes;
    unsigned threads;
  };
  for (const Case& c : {Case{16u << 20, 1}, Case{65536, 2}, Case{4099, 3}}) {
    WriteOptions options;
    options.chunk_bytes = c.chunk_bytes;
    options.threads = c.threads;
    const CacheHeader written = write_cache_file(dir.file("sha.pce"), pce, description, options);
    EXPECT_EQ(written.file_size, fs::file_size(dir.file("sha.pce")));
    EXPECT_LT(written.compressed_bytes(), written.content_bytes) << "zstd compresses the matrices";
    CacheHeader header;
    const CompactR1cs back = read_cache_file(dir.file("sha.pce"), description, c.threads, &header);
    EXPECT_EQ(back, pce) << "chunk " << c.chunk_bytes;
    EXPECT_EQ(header.num_constraints, pce.num_constraints());
    EXPECT_EQ(header.num_inputs, pce.num_inputs);
    EXPECT_EQ(header.num_aux, pce.num_aux);
    EXPECT_EQ(header.nnz_a, pce.a.nnz());
    EXPECT_EQ(header.nnz_b, pce.b.nnz());
    EXPECT_EQ(header.nnz_c, pce.c.nnz());
    EXPECT_EQ(header.density_b_aux, pce.densities.b_aux.popcount());
    EXPECT_EQ(header.description, description);
    EXPECT_EQ(header.circuit_id, circuit_id(description));
    EXPECT_EQ(header.content_digest, written.content_digest);
    EXPECT_EQ(header.num_chunks, (header.content_bytes + c.chunk_bytes - 1) / c.chunk_bytes);
  }
  // No temporary file is left behind.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
}

// zstd's frame checksum is the low 32 bits of XXH64(content) (zstd frame format, Content_Checksum): an
// independent implementation to check ours against, at many lengths (every tail case of the function).
TEST(PceFile, Xxh64MatchesZstdFrameChecksums) {
  auto rng = test::seeded_rng("PceFile.Xxh64MatchesZstdFrameChecksums");
  EXPECT_EQ(Xxh64::of("", 0), 0xEF46DB3751D8E999ULL);  // xxHash's published XXH64 of the empty input
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ASSERT_NE(cctx, nullptr);
  ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)));
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 100; ++n) lengths.push_back(n);
  for (std::size_t n : {255, 256, 1000, 4097, 65536, 100003}) lengths.push_back(n);
  for (std::size_t n : lengths) {
    std::vector<std::uint8_t> data(n);
    for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> frame(ZSTD_compressBound(n) + 16);
    const std::size_t size = ZSTD_compress2(cctx, frame.data(), frame.size(), data.data(), n);
    ASSERT_FALSE(ZSTD_isError(size));
    std::uint32_t stored;
    std::memcpy(&stored, frame.data() + size - 4, 4);
    const std::uint64_t ours = Xxh64::of(data.data(), n);
    EXPECT_EQ(static_cast<std::uint32_t>(ours), stored) << n << " bytes";
    // Streaming in random pieces gives the same value.
    Xxh64 h;
    for (std::size_t done = 0; done < n;) {
      const std::size_t piece = std::min<std::size_t>(n - done, rng() % 70);
      h.update(data.data() + done, piece);
      done += piece;
    }
    EXPECT_EQ(h.digest(), ours) << n << " bytes";
  }
  ZSTD_freeCCtx(cctx);
}

TEST(PceFile, CircuitIdIsSha256OfTheDescription) {
  // FIPS 180-4 example: SHA-256("abc").
  EXPECT_EQ(to_hex(circuit_id("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(PceFile, EveryFlippedByteIsDetected) {
  io::TempDir dir("cuzk_pce_");
  const CompactR1cs pce = compact(groth16::make_demo_circuit().cs);
  WriteOptions options;
  options.chunk_bytes = 1024;  // several frames, so that every part of the layout occurs
  const fs::path path = dir.file("demo.pce");
  const CacheHeader h = write_cache_file(path, pce, kDemoDescription, options);
  ASSERT_GT(h.num_chunks, 3u);
  ASSERT_EQ(read_error(path, kDemoDescription), std::nullopt);
  const std::vector<std::uint8_t> good = read_bytes(path);
  const fs::path bad = dir.file("bad.pce");
  write_bytes(bad, good);
  for (std::size_t pos = 0; pos < good.size(); ++pos) {
    for (std::uint8_t mask : {std::uint8_t{0x01}, std::uint8_t{0xff}}) {
      patch_byte(bad, pos, good[pos] ^ mask);
      const std::optional<PceErrorKind> kind = read_error(bad, kDemoDescription);
      patch_byte(bad, pos, good[pos]);
      ASSERT_TRUE(kind.has_value()) << "flip 0x" << std::hex << int{mask} << std::dec << " at byte " << pos
                                    << " of " << good.size() << " went unnoticed";
      if (pos >=
          12) {  // past magic and version, every flip is corruption (magic: kNotACache, version: kVersion)
        EXPECT_EQ(*kind, PceErrorKind::kCorrupt) << "byte " << pos;
      }
    }
  }
}

TEST(PceFile, SampledFlipsInALargerFileAreDetected) {
  auto rng = test::seeded_rng("PceFile.SampledFlipsInALargerFileAreDetected");
  io::TempDir dir("cuzk_pce_");
  CompactRecorder recorder;
  PoseidonCircuit{rng, 11}(recorder);
  Sha256Circuit{rng}(recorder);
  const CompactR1cs pce = recorder.finish();
  WriteOptions options;
  options.chunk_bytes = 100000;
  const fs::path path = dir.file("big.pce");
  write_cache_file(path, pce, "larger", options);
  const std::vector<std::uint8_t> good = read_bytes(path);
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < kHeaderSize + 6; ++i) positions.push_back(i);
  for (int i = 0; i < 200; ++i) positions.push_back(static_cast<std::size_t>(rng() % good.size()));
  for (std::size_t i = good.size() - 2 * kIndexEntrySize; i < good.size(); ++i) positions.push_back(i);
  const fs::path bad = dir.file("bad.pce");
  write_bytes(bad, good);
  for (std::size_t pos : positions) {
    patch_byte(bad, pos, good[pos] ^ static_cast<std::uint8_t>(1 + rng() % 255));
    ASSERT_TRUE(read_error(bad, "larger", 2).has_value()) << "flip at byte " << pos << " went unnoticed";
    patch_byte(bad, pos, good[pos]);
  }
  EXPECT_EQ(read_error(bad, "larger", 2), std::nullopt) << "every byte restored";
}

TEST(PceFile, TruncatedAndExtendedFilesAreDetected) {
  io::TempDir dir("cuzk_pce_");
  const CompactR1cs pce = compact(groth16::make_demo_circuit().cs);
  const fs::path path = dir.file("demo.pce");
  WriteOptions options;
  options.chunk_bytes = 2048;
  write_cache_file(path, pce, kDemoDescription, options);
  const std::vector<std::uint8_t> good = read_bytes(path);
  const fs::path bad = dir.file("bad.pce");
  const std::size_t lengths[] = {0,
                                 1,
                                 7,
                                 8,
                                 11,
                                 12,
                                 100,
                                 kHeaderSize - 1,
                                 kHeaderSize,
                                 kHeaderSize + kDemoDescription.size(),
                                 good.size() / 2,
                                 good.size() - kIndexEntrySize,
                                 good.size() - 1};
  for (std::size_t len : lengths) {
    write_bytes(bad, std::span<const std::uint8_t>(good.data(), len));
    EXPECT_EQ(read_error(bad, kDemoDescription), PceErrorKind::kTruncated) << len << " bytes";
  }
  std::vector<std::uint8_t> longer = good;
  longer.push_back(0);
  write_bytes(bad, longer);
  EXPECT_EQ(read_error(bad, kDemoDescription), PceErrorKind::kCorrupt);
}

TEST(PceFile, OtherVersionOtherCircuitAndNotACacheAreNamed) {
  io::TempDir dir("cuzk_pce_");
  const CompactR1cs pce = compact(groth16::make_demo_circuit().cs);
  const fs::path path = dir.file("demo.pce");
  write_cache_file(path, pce, kDemoDescription);

  // Another circuit: the message names both descriptions.
  try {
    read_cache_file(path, std::string("demo circuit v2"));
    FAIL() << "another circuit's cache must be refused";
  } catch (const PceError& e) {
    EXPECT_EQ(e.kind(), PceErrorKind::kOtherCircuit);
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find(kDemoDescription), std::string::npos) << msg;
    EXPECT_NE(msg.find("demo circuit v2"), std::string::npos) << msg;
  }
  // Without an expected description any valid file reads.
  EXPECT_EQ(read_cache_file(path), pce);

  // Another format version (a future writer: version 2 in an otherwise valid layout).
  std::vector<std::uint8_t> bytes = read_bytes(path);
  bytes[8] = 2;
  const fs::path other = dir.file("other.pce");
  write_bytes(other, bytes);
  try {
    read_cache_file(other, kDemoDescription);
    FAIL() << "another format version must be refused";
  } catch (const PceError& e) {
    EXPECT_EQ(e.kind(), PceErrorKind::kVersion);
    EXPECT_NE(std::string(e.what()).find("version 2"), std::string::npos) << e.what();
  }

  const std::string text = "this is not a cache file at all, it is some text";
  write_bytes(other,
              std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  EXPECT_EQ(read_error(other, kDemoDescription), PceErrorKind::kNotACache);
  EXPECT_EQ(read_error(dir.file("absent.pce"), kDemoDescription), PceErrorKind::kMissing);
}

TEST(PceFile, ConcurrentWritersLeaveOneCompleteFile) {
  auto rng = test::seeded_rng("PceFile.ConcurrentWritersLeaveOneCompleteFile");
  io::TempDir dir("cuzk_pce_");
  CompactRecorder recorder;
  Sha256Circuit{rng}(recorder);
  const CompactR1cs pce = recorder.finish();
  const fs::path path = dir.file("shared.pce");
  auto writer = [&] {
    for (int i = 0; i < 4; ++i) {
      WriteOptions options;
      options.threads = 1;
      options.chunk_bytes = 50000;
      write_cache_file(path, pce, "shared", options);
    }
  };
  std::thread t1(writer), t2(writer);
  // Meanwhile a reader only ever sees no file or a complete one.
  for (int i = 0; i < 20; ++i) {
    const auto kind = read_error(path, "shared");
    EXPECT_TRUE(!kind || *kind == PceErrorKind::kMissing) << "reader saw a partial file";
  }
  t1.join();
  t2.join();
  EXPECT_EQ(read_cache_file(path, std::string("shared")), pce);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u) << "temporary files left behind";
}

// --------------------------------------------------------------------------------------------------------
// load_or_build.

TEST(PceCache, BuildsOnceThenLoads) {
  io::TempDir dir("cuzk_pce_");
  const CacheKey key{"demo", kDemoDescription};
  int builds = 0;
  auto build = [&] {
    ++builds;
    return compact(groth16::make_demo_circuit().cs);
  };
  const fs::path cache_dir = dir.path() / "nested" / "pce";  // created on demand
  LoadResult first = load_or_build(cache_dir, key, build);
  EXPECT_TRUE(first.built);
  EXPECT_EQ(first.path, cache_dir / "demo.pce");
  EXPECT_TRUE(fs::exists(first.path));
  LoadResult second = load_or_build(cache_dir, key, build);
  EXPECT_FALSE(second.built);
  EXPECT_TRUE(second.rebuild_reason.empty());
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(second.pce, first.pce);
  // Read-only use of a valid cache is fine.
  EXPECT_FALSE(load_or_build(cache_dir, key, build, /*readonly=*/true).built);
  EXPECT_EQ(builds, 1);
}

TEST(PceCache, InvalidCachesAreRebuiltOrRefusedWhenReadonly) {
  io::TempDir dir("cuzk_pce_");
  int builds = 0;
  auto build = [&] {
    ++builds;
    return compact(groth16::make_demo_circuit().cs);
  };
  const CacheKey key{"demo", kDemoDescription};
  const fs::path path = cache_path(dir.path(), key);
  load_or_build(dir.path(), key, build);
  const std::vector<std::uint8_t> good = read_bytes(path);

  struct Damage {
    const char* what;
    std::function<void()> apply;
  };
  const CompactR1cs other_pce = compact(groth16::make_demo_circuit(std::vector<Fr>{Fr::from_u64(2)}, 3).cs);
  const std::vector<Damage> damages = {
      {"flipped body byte",
       [&] {
         auto b = good;
         b[b.size() / 2] ^= 0x10;
         write_bytes(path, b);
       }},
      {"truncated", [&] { write_bytes(path, std::span<const std::uint8_t>(good.data(), good.size() - 5)); }},
      {"other version",
       [&] {
         auto b = good;
         b[8] = 7;
         write_bytes(path, b);
       }},
      {"other circuit", [&] { write_cache_file(path, other_pce, "demo circuit v0"); }},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.what);
    d.apply();
    try {
      load_or_build(dir.path(), key, build, /*readonly=*/true);
      ADD_FAILURE() << "readonly must refuse a bad cache";
    } catch (const PceError& e) {
      EXPECT_EQ(e.kind(), PceErrorKind::kReadonly);
      EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    }
    const int before = builds;
    LoadResult r = load_or_build(dir.path(), key, build);
    EXPECT_TRUE(r.built);
    EXPECT_EQ(builds, before + 1);
    EXPECT_FALSE(r.rebuild_reason.empty());
    EXPECT_EQ(read_bytes(path), good) << "the rebuilt file is the original again";
  }
  fs::remove(path);
  try {
    load_or_build(dir.path(), key, build, /*readonly=*/true);
    ADD_FAILURE() << "readonly must refuse to build a missing cache";
  } catch (const PceError& e) {
    EXPECT_EQ(e.kind(), PceErrorKind::kReadonly);
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(PceCache, DefaultDirectoryFollowsTheEnvironment) {
  const char* saved_pce = std::getenv("CUZK_PCE_CACHE");
  const char* saved_params = std::getenv("FIL_PROOFS_PARAMETER_CACHE");
  const std::optional<std::string> old_pce = saved_pce ? std::optional<std::string>(saved_pce) : std::nullopt;
  const std::optional<std::string> old_params =
      saved_params ? std::optional<std::string>(saved_params) : std::nullopt;
  ::unsetenv("CUZK_PCE_CACHE");
  ::unsetenv("FIL_PROOFS_PARAMETER_CACHE");
  EXPECT_EQ(default_cache_dir(), fs::path("/var/tmp/filecoin-proof-parameters/pce"));
  ::setenv("FIL_PROOFS_PARAMETER_CACHE", "/srv/params", 1);
  EXPECT_EQ(default_cache_dir(), fs::path("/srv/params/pce"));
  ::setenv("CUZK_PCE_CACHE", "/fast/pce-cache", 1);
  EXPECT_EQ(default_cache_dir(), fs::path("/fast/pce-cache"));
  if (old_pce)
    ::setenv("CUZK_PCE_CACHE", old_pce->c_str(), 1);
  else
    ::unsetenv("CUZK_PCE_CACHE");
  if (old_params)
    ::setenv("FIL_PROOFS_PARAMETER_CACHE", old_params->c_str(), 1);
  else
    ::unsetenv("FIL_PROOFS_PARAMETER_CACHE");
  EXPECT_THROW(cache_path("/tmp", CacheKey{"../escape", "x"}), PceError);
  EXPECT_THROW(cache_path("/tmp", CacheKey{"", "x"}), PceError);
}

// --------------------------------------------------------------------------------------------------------
// The PoRep circuit.

// A partition circuit of `shape` over `witness` (as a functor for expect_pce_matches_direct).
struct PorepCircuit {
  porep::StackedCircuitShape shape;
  porep::PartitionWitness witness;
  template <class CS>
  void operator()(CS& cs) const {
    porep::synthesize_stacked_circuit(cs, shape, witness);
  }
};

// Random canonical field elements everywhere, random path positions and challenge: the circuit then hashes
// real data (its equality checks fail, which does not matter for comparing a, b, c).
porep::PartitionWitness random_witness(const porep::StackedCircuitShape& shape, std::mt19937_64& rng) {
  porep::PartitionWitness w = porep::PartitionWitness::blank(shape);
  auto domain = [&](porep::Domain& d) {
    for (auto& byte : d) byte = static_cast<std::uint8_t>(rng());
    d[31] &= 0x3f;  // < 2^254 < r
  };
  auto path = [&](porep::InclusionPath& p) {
    for (porep::PathElement& e : p.path) {
      for (porep::Domain& h : e.hashes) domain(h);
      e.index = rng() % (e.hashes.size() + 1);
    }
  };
  auto proof = [&](porep::MerkleProof& m) {
    domain(m.root);
    domain(m.leaf);
    path(m.base);
    path(m.sub);
    path(m.top);
  };
  auto column = [&](porep::ColumnProof& c) {
    for (porep::Domain& row : c.column.rows) domain(row);
    proof(c.inclusion_proof);
  };
  w.replica_id = rand_fr(rng);
  w.comm_d = rand_fr(rng);
  w.comm_r = rand_fr(rng);
  w.comm_r_last = rand_fr(rng);
  w.comm_c = rand_fr(rng);
  for (porep::ChallengeProof& c : w.challenges) {
    proof(c.comm_d_proofs);
    proof(c.comm_r_last_proof);
    column(c.replica_column_proofs.c_x);
    for (auto& p : c.replica_column_proofs.drg_parents) column(p);
    for (auto& p : c.replica_column_proofs.exp_parents) column(p);
    c.labeling_proofs[0].node = rng() % shape.nodes;
  }
  return w;
}

// rfp storage-proofs-porep/tests/stacked_circuit.rs: 2 layers, 1 challenge, nodes = 8 x base tree count,
// tree shapes 2-0-0, 8-0-0, 8-4-0 and 8-4-2 (docs/circuit.md §9).
TEST(PcePorep, OneChallengeTestCircuitsMatchDirectEvaluation) {
  auto rng = test::seeded_rng("PcePorep.OneChallengeTestCircuitsMatchDirectEvaluation");
  struct Arities {
    unsigned base, sub, top;
  };
  for (const Arities& a : {Arities{2, 0, 0}, Arities{8, 0, 0}, Arities{8, 4, 0}, Arities{8, 4, 2}}) {
    porep::StackedCircuitShape shape;
    shape.base_arity = a.base;
    shape.sub_arity = a.sub;
    shape.top_arity = a.top;
    shape.nodes = 8ull * (a.sub ? a.sub : 1) * (a.top ? a.top : 1);
    shape.layers = 2;
    shape.challenges = 1;
    expect_pce_matches_direct(PorepCircuit{shape, random_witness(shape, rng)},
                              porep_circuit_description(shape), {2u}, /*satisfied=*/false);
  }
}

porep::GeneratedC1 generated(const char* proof_name, std::uint64_t seed, bool sparse) {
  porep::GenC1Options o;
  o.proof = porep::find_registered_seal_proof(proof_name);
  o.seed = seed;
  o.sparse = sparse;
  return porep::generate_c1(o);
}

TEST(PcePorep, Sector2KiBMatchesDirectEvaluation) {
  const porep::GeneratedC1 g = generated("StackedDrg2KiBV1_1", 5, false);
  const auto shape = porep::StackedCircuitShape::from_sector(*g.c1.registered_proof->shape);
  expect_pce_matches_direct(PorepCircuit{shape, porep::PartitionWitness::from_c1(g.c1, 0)},
                            porep_circuit_description(shape), {2u});
}

TEST(PcePorep, Sector8MiBMatchesDirectEvaluation) {
  const porep::GeneratedC1 g = generated("StackedDrg8MiBV1_1", 6, true);
  const auto shape = porep::StackedCircuitShape::from_sector(*g.c1.registered_proof->shape);
  expect_pce_matches_direct(PorepCircuit{shape, porep::PartitionWitness::from_c1(g.c1, 0)},
                            porep_circuit_description(shape), {2u});
}

// load_or_build_porep, then the proving path: the loaded PCE gives the same ProverInput as a freshly
// built one.
TEST(PcePorep, CacheRoundTrip2KiB) {
  io::TempDir dir("cuzk_pce_");
  const porep::GeneratedC1 g = generated("StackedDrg2KiBV1", 7, false);
  const auto shape = porep::StackedCircuitShape::from_sector(*g.c1.registered_proof->shape);
  const CacheKey key = porep_cache_key(shape);
  EXPECT_EQ(key.name, "stacked-drg-2KiB-c2-8-0-0");
  EXPECT_EQ(key.description, "stacked-drg r1 nodes=64 layers=2 challenges=2 arities=8-0-0");
  const LoadResult built = load_or_build_porep(dir.path(), shape);
  ASSERT_TRUE(built.built);
  EXPECT_EQ(built.pce.num_constraints(), 2'687'921u);  // docs/circuit.md §9
  EXPECT_EQ(built.pce.num_inputs, 40u);
  const LoadResult loaded = load_or_build_porep(dir.path(), shape, /*readonly=*/true);
  ASSERT_FALSE(loaded.built);
  EXPECT_EQ(loaded.pce, built.pce);
  const porep::PartitionWitness w = porep::PartitionWitness::from_c1(g.c1, 0);
  const groth16::ProverInput in = porep_prover_input(loaded.pce, shape, w, 2);
  EXPECT_EQ(groth16::first_unsatisfied(in), std::nullopt);
}

}  // namespace
}  // namespace cuzk::pce
