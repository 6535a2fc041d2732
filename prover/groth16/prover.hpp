// The Groth16 prover on the CPU, with bellperson's math (src/groth16/prover/native.rs, docs/circuit.md §10):
//
//   A = alpha_g1 + sum a_i A_i + r delta_g1                 (A_i: params.a, aux filtered by A density)
//   B = beta_g2 + sum b_i B2_i + s delta_g2                 (B2_i: params.b_g2, filtered by B density)
//   C = s (sum a_i A_i) + r (sum b_i B1_i) + r s delta_g1 + s alpha_g1 + r beta_g1 + H + L
//   H = sum h_j params.h_j  (h = compute_h over the constraints plus `input_i * 0 = 0` rows)
//   L = sum aux_i params.l_i
//
// The witness z = (inputs..., aux...) with inputs[0] = ONE.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/groth16/densities.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/proof.hpp"
#include "prover/groth16/randomness.hpp"
#include "prover/r1cs/compact_view.hpp"
#include "prover/r1cs/r1cs.hpp"
#include "prover/timing.hpp"

namespace cuzk::groth16 {

using algebra::Fr;

struct ProverInput {
  std::vector<Fr> inputs;  // ONE first, then the public inputs in alloc_input order
  std::vector<Fr> aux;     // in alloc order
  // <A_k, z>, <B_k, z>, <C_k, z> for the circuit's own constraints k (the prover appends the
  // input rows a = input_i, b = c = 0 itself). All three empty when the engine evaluates the constraints
  // itself (ProverEngine::hold_constraints): the input is then the witness only.
  std::vector<Fr> a, b, c;
  Densities densities;
};

// Where the prover's time goes (filled when a pointer is passed to prove).
struct ProveTimings {
  PhaseTime h;         // the H polynomial: 7 NTTs and the pointwise work
  PhaseTime msm_g1;    // h, l, a, b_g1 multi-scalar multiplications (of a batch's witness MSMs, a share)
  PhaseTime msm_g2;    // b_g2 (of a batch's, a share)
  PhaseTime msm_h;     // the h MSM alone (part of msm_g1)
  unsigned batch = 1;  // partitions whose witness MSMs ran together (finish_proofs)
};

// The heavy parts of the prover: the H polynomial from a, b, c, and the five multi-scalar
// multiplications over the parameters' bases (which the engine holds). The CPU engine below and the GPU
// engine (gpu/groth16_engine.hpp) plug into the same code, which also does the checks and combines the
// results with r, s and the verifying key: both give the same proof for the same r, s.
class ProverEngine {
 public:
  enum class G1Bases { kL, kA, kBG1 };
  virtual ~ProverEngine() = default;
  // The coefficients of h from a, b, c, with groth16::compute_h's contract (domain.hpp). The engine keeps
  // them for msm_h() (the GPU engine on the device: they never travel to the host and back) and returns
  // how many there are. It may consume a, b and c (the CPU engine transforms them in place) or leave them
  // as they are (the GPU engine copies them), so that the caller can reuse their memory.
  virtual std::size_t compute_h(std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c) = 0;
  // sum h_j * params.h_j over the coefficients of the last compute_h (once: the engine may release them).
  virtual algebra::G1 msm_h() = 0;
  // sum scalars[i] * bases[i] over the first scalars.size() bases of the chosen vector.
  virtual algebra::G1 msm_g1(G1Bases bases, std::span<const Fr> scalars) = 0;
  virtual algebra::G2 msm_b_g2(std::span<const Fr> scalars) = 0;
  // Where the dense scalars of msm_witness come from. kHost: prove_with gathers them on the host into a and
  // b's memory (groth16::gather_dense_scalars) before msm_witness; kHostBesideMsmH: the same on a thread of
  // its own while msm_h runs (for an engine whose msm_h leaves the host's cores free: the GPU's, where the
  // gather, ~0.8 s at 32GiB, then costs nothing); kEngine: msm_witness gathers them itself (the GPU engine
  // from one upload of the witness).
  enum class DenseGather { kHost, kHostBesideMsmH, kEngine };
  virtual DenseGather dense_gather() const { return DenseGather::kHost; }
  // The four MSMs over the witness: l over the aux values, a over the A-dense scalars (every input, then the
  // aux values of the A density), b_g1 and b_g2 over the B-dense scalars (inputs and aux of the B densities).
  // This default runs msm_g1 and msm_b_g2 over the scalars gathered in a_scratch and b_scratch (unless
  // dense_gather() is kEngine, prove_with put them there).
  struct WitnessMsms {
    algebra::G1 l, a, b_g1;
    algebra::G2 b_g2;
    PhaseTime g2;  // the b_g2 MSM's part of the time
  };
  virtual WitnessMsms msm_witness(const ProverInput& in, std::vector<Fr>& a_scratch,
                                  std::vector<Fr>& b_scratch);
  // How many partitions' witness MSMs this engine runs best together (msm_witness_batch): an engine whose
  // bases stream over PCIe then sends each window once for all of them. 1: nothing to share.
  virtual unsigned witness_batch() const { return 1; }
  // msm_witness of several partitions at once, results in their order; the scratch pairs as msm_witness's,
  // one per partition. Each result's g2 is its share of the G2 time. The default runs msm_witness for each.
  virtual std::vector<WitnessMsms> msm_witness_batch(std::span<const ProverInput* const> inputs,
                                                     std::span<std::vector<Fr>* const> a_scratch,
                                                     std::span<std::vector<Fr>* const> b_scratch);
  // The constraints on the engine's side. An engine given the circuit's matrices keeps them for every later
  // proof and computes a, b, c from the witness itself, so that a prover input carries only the inputs and
  // aux values (the GPU engine: a, b, c never cross PCIe). Returns false when it cannot: the CPU engine (its
  // caller evaluates them on the host, pce/evaluate.hpp) and a GPU engine without the device memory or not
  // asked to. Once true, held_constraints() is the circuit's constraint count.
  virtual bool hold_constraints(const r1cs::CompactR1csView& /*circuit*/) { return false; }
  virtual std::size_t held_constraints() const { return 0; }
  // With held constraints: a, b, c from in.inputs and in.aux, the check a_k * b_k = c_k for every
  // constraint k (Groth16Error(k, ...) for the first that fails, before any other work), then what
  // compute_h does with them. The witness may stay with the engine for this proof's msm_witness.
  virtual std::size_t compute_h_from_witness(const ProverInput& in);
  // One-off costs of making this engine (named phases and their wall seconds: reading the parameters,
  // uploads), for the run report.
  virtual std::vector<std::pair<std::string, double>> setup_phases() const { return {}; }
};

// The dense scalars of msm_witness gathered on the host: a_scratch = every input, then the aux values of the
// A density; b_scratch = the inputs and aux values of the B densities.
void gather_dense_scalars(const ProverInput& in, std::vector<Fr>& a_scratch, std::vector<Fr>& b_scratch);

// A partition between its H step (and h MSM) and its witness MSMs: what begin_proof leaves for finish_proofs.
// The input must stay alive, and its vectors untouched, until then.
struct ProofInProgress {
  ProverInput* input = nullptr;
  Fr r, s;
  algebra::G1 h;         // sum h_j * params.h_j
  ProveTimings timings;  // h and msm_h so far
};

// prove_with in two halves, so that several partitions' witness MSMs can run together
// (ProverEngine::msm_witness_batch): begin_proof checks the input and runs its H step and h MSM (and the host
// gather of its dense scalars); finish_proofs runs the witness MSMs of every partition given, at once when
// there are several, and combines each with its r, s. Other partitions may be begun on the same engine in
// between. The same proofs as prove_with of each.
ProofInProgress begin_proof(ProverEngine& engine, const ParameterHeader& header, ProverInput& input,
                            const Fr& r, const Fr& s);
std::vector<Proof> finish_proofs(ProverEngine& engine, const ParameterHeader& header,
                                 std::span<ProofInProgress> proofs);

// The CPU engine over `params` (kept by reference), `threads` = 0: every hardware thread.
std::unique_ptr<ProverEngine> make_cpu_engine(const Parameters& params, unsigned threads = 0);
// The same, owning the parameters; `setup_phases` are what making them cost (reading a file, say), reported
// by setup_phases().
std::unique_ptr<ProverEngine> make_cpu_engine(std::shared_ptr<const Parameters> params, unsigned threads = 0,
                                              std::vector<std::pair<std::string, double>> setup_phases = {});

// prove() with the given engine, which must have been made for the parameters `header` describes. An input
// without a, b, c (the witness only) needs an engine that holds the circuit's constraints; a constraint
// that the witness does not satisfy then throws Groth16Error kUnsatisfied. The input's a, b and c are used up
// (the engine may consume them, and msm_witness may gather the dense scalars into a and b's memory); its
// other vectors are left as they were. A caller that proves many partitions hands the vectors to the next
// synthesis (pce::make_prover_input's `recycled`), whose pages are then already mapped.
Proof prove_with(ProverEngine& engine, const ParameterHeader& header, ProverInput& input, const Fr& r,
                 const Fr& s, ProveTimings* timings = nullptr);
Proof prove_with(ProverEngine& engine, const ParameterHeader& header, ProverInput&& input, const Fr& r,
                 const Fr& s, ProveTimings* timings = nullptr);
Proof prove_with(ProverEngine& engine, const Parameters& params, ProverInput&& input, const Fr& r,
                 const Fr& s, ProveTimings* timings = nullptr);

// Throws Groth16Error: kMalformedInput when `input` is inconsistent in itself (a/b/c lengths,
// density lengths, inputs[0] != ONE), kParameters when `params` does not fit it (vector lengths,
// domain size) or delta is the point at infinity. `threads` = 0 uses every hardware thread.
Proof prove(const Parameters& params, const ProverInput& input, const Fr& r, const Fr& s,
            unsigned threads = 0, ProveTimings* timings = nullptr);
// The same, consuming the a/b/c vectors of `input` (no copy of the largest buffers).
Proof prove(const Parameters& params, ProverInput&& input, const Fr& r, const Fr& s, unsigned threads = 0,
            ProveTimings* timings = nullptr);

// a, b, c by sparse matrix-vector products, and the densities of `cs`. Throws Groth16Error
// (kMalformedInput) when the assignment lengths do not match the R1CS.
ProverInput witness_from_r1cs(const r1cs::R1cs& cs, std::vector<Fr> inputs, std::vector<Fr> aux);

// The first constraint k with a_k * b_k != c_k, or nullopt when the witness satisfies them all.
std::optional<std::size_t> first_unsatisfied(const ProverInput& input);

}  // namespace cuzk::groth16
