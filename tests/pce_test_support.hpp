// Shared by the PCE tests (tests/test_pce_*.cpp, one per part of pce/): test circuits, the check of
// the PCE path against direct evaluation, and byte-level helpers for cache files.
#pragma once

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

namespace fs = std::filesystem;
using gadgets::AllocatedBit;
using gadgets::AllocatedNum;
using gadgets::Boolean;
using r1cs::Variable;

inline Fr rand_fr(std::mt19937_64& rng) {
  return test::random_field<Fr>(rng);
}

// --------------------------------------------------------------------------------------------------------
// Random R1CS for the SpMV tests (the CPU one against direct evaluation, the GPU one against the CPU one).

struct RandomR1csShape {
  std::size_t num_inputs = 5;  // ONE included
  std::size_t num_aux = 300;
  std::size_t rows = 2000;
  std::size_t table_values = 20;    // distinct random coefficients that repeat (the compact form's table)
  std::size_t short_row_limit = 9;  // most rows have 0 .. short_row_limit - 1 entries per matrix
  // With probability 1 / long_row_odds (0: never) a row has one of these lengths instead.
  unsigned long_row_odds = 0;
  std::vector<std::size_t> long_lengths;
};

// Coefficients of every class the compact form distinguishes: +-1, +-2^k for k in 0 .. kMaxExponent,
// the table's values, and random values.
inline r1cs::R1cs random_r1cs(std::mt19937_64& rng, const RandomR1csShape& shape) {
  r1cs::R1cs cs;
  cs.num_inputs = shape.num_inputs;
  cs.num_aux = shape.num_aux;
  std::vector<Fr> table;
  for (std::size_t i = 0; i < shape.table_values; ++i) table.push_back(rand_fr(rng));
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
        return table[rng() % table.size()];
      default:
        return rand_fr(rng);
    }
  };
  for (std::size_t row = 0; row < shape.rows; ++row) {
    for (r1cs::SparseMatrix* m : {&cs.a, &cs.b, &cs.c}) {
      const bool long_row = shape.long_row_odds > 0 && rng() % shape.long_row_odds == 0;
      const std::size_t len =
          long_row ? shape.long_lengths[rng() % shape.long_lengths.size()] : rng() % shape.short_row_limit;
      for (std::size_t t = 0; t < len; ++t) {
        m->columns.push_back(static_cast<std::uint32_t>(rng() % cs.num_variables()));
        m->values.push_back(random_coeff());
      }
      m->row_offsets.push_back(m->columns.size());
    }
  }
  return cs;
}

// A witness for `cs` (inputs[0] = ONE) mixing 0, 1, small and random values: every fast path of the SpMVs.
inline void random_witness(std::mt19937_64& rng, const r1cs::R1cs& cs, std::vector<Fr>& inputs,
                           std::vector<Fr>& aux) {
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
  inputs.assign(1, Fr::one());
  aux.clear();
  for (std::size_t i = 1; i < cs.num_inputs; ++i) inputs.push_back(random_value());
  for (std::size_t i = 0; i < cs.num_aux; ++i) aux.push_back(random_value());
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

inline std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
inline void write_bytes(const fs::path& p, std::span<const std::uint8_t> bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Overwrites one byte in place (no truncation: ext4 flushes a file rewritten after truncation on close,
// which would make the flip tests wait on the disk thousands of times).
inline void patch_byte(const fs::path& p, std::size_t pos, std::uint8_t value) {
  std::fstream f(p, std::ios::binary | std::ios::in | std::ios::out);
  f.seekp(static_cast<std::streamoff>(pos));
  f.put(static_cast<char>(value));
}

// The kind of PceError reading `path` throws, or nullopt when it reads fine.
inline std::optional<PceErrorKind> read_error(const fs::path& path, const std::string& description,
                                              unsigned threads = 1) {
  try {
    read_cache_file(path, description, threads);
    return std::nullopt;
  } catch (const PceError& e) {
    return e.kind();
  }
}

inline const std::string kDemoDescription = "demo circuit v1 secrets=3,5,7 rounds=50";

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
inline porep::PartitionWitness random_witness(const porep::StackedCircuitShape& shape, std::mt19937_64& rng) {
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

inline porep::GeneratedC1 generated(const char* proof_name, std::uint64_t seed, bool sparse) {
  porep::GenC1Options o;
  o.proof = porep::find_registered_seal_proof(proof_name);
  o.seed = seed;
  o.sparse = sparse;
  return porep::generate_c1(o);
}

}  // namespace cuzk::pce
