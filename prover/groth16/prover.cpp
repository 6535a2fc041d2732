#include "prover/groth16/prover.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <future>
#include <string>
#include <utility>

#include "prover/groth16/dense_gather.hpp"
#include "prover/groth16/domain.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/msm.hpp"

namespace cuzk::groth16 {

namespace {

using algebra::G1;
using algebra::G1Affine;
using algebra::G2;
using algebra::G2Affine;

[[noreturn]] void malformed(const std::string& what) {
  throw Groth16Error(Groth16ErrorKind::kMalformedInput, what);
}
[[noreturn]] void mismatch(const std::string& what) {
  throw Groth16Error(Groth16ErrorKind::kParameters, what);
}

std::string count_text(std::size_t have, std::size_t want) {
  return std::to_string(have) + " (expected " + std::to_string(want) + ")";
}

// The witness only: a, b and c left to the engine (ProverEngine::hold_constraints).
bool witness_only(const ProverInput& in) {
  return in.a.empty() && in.b.empty() && in.c.empty();
}

void check_input(const ProverInput& in) {
  if (in.inputs.empty() || !in.inputs[0].is_one()) malformed("witness: inputs[0] must be ONE");
  if (in.b.size() != in.a.size() || in.c.size() != in.a.size())
    malformed("witness: a, b, c have " + std::to_string(in.a.size()) + ", " + std::to_string(in.b.size()) +
              ", " + std::to_string(in.c.size()) + " entries");
  if (in.densities.a_aux.bit_len != in.aux.size() || in.densities.b_aux.bit_len != in.aux.size() ||
      in.densities.b_input.bit_len != in.inputs.size())
    malformed("witness: density lengths do not match " + std::to_string(in.inputs.size()) + " inputs and " +
              std::to_string(in.aux.size()) + " aux");
}

// `constraints`: the circuit's (a.size(), or the engine's held count for a witness-only input).
void check_fit(const ParameterHeader& p, const ProverInput& in, std::size_t constraints,
               std::size_t num_a_aux, std::size_t num_b) {
  if (p.vk.ic.size() != in.inputs.size())
    mismatch("parameters: vk.ic has " + count_text(p.vk.ic.size(), in.inputs.size()) +
             " points for the inputs");
  if (p.l != in.aux.size()) mismatch("parameters: l has " + count_text(p.l, in.aux.size()) + " points");
  if (p.a != in.inputs.size() + num_a_aux)
    mismatch("parameters: a has " + count_text(p.a, in.inputs.size() + num_a_aux) + " points");
  if (p.b_g1 != num_b) mismatch("parameters: b_g1 has " + count_text(p.b_g1, num_b) + " points");
  if (p.b_g2 != num_b) mismatch("parameters: b_g2 has " + count_text(p.b_g2, num_b) + " points");
  const std::size_t m = EvaluationDomain(constraints + in.inputs.size()).size();
  if (p.h != m - 1) mismatch("parameters: h has " + count_text(p.h, m - 1) + " points");
  if (p.vk.delta_g1.is_identity() || p.vk.delta_g2.is_identity())
    mismatch(
        "parameters: delta is the point at infinity (a subverted setup)");  // bellperson UnexpectedIdentity
}

class CpuEngine final : public ProverEngine {
 public:
  CpuEngine(const Parameters& params, unsigned threads) : p_(params), threads_(threads) {}
  // Owning: the engine keeps the parameters alive (the job's engines are made from a file).
  CpuEngine(std::shared_ptr<const Parameters> params, unsigned threads,
            std::vector<std::pair<std::string, double>> setup_phases)
      : owned_(std::move(params)), p_(*owned_), threads_(threads), setup_phases_(std::move(setup_phases)) {}
  std::vector<std::pair<std::string, double>> setup_phases() const override { return setup_phases_; }
  std::size_t compute_h(std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c) override {
    h_ = groth16::compute_h(std::move(a), std::move(b), std::move(c));
    return h_.size();
  }
  G1 msm_h() override {
    const G1 sum = groth16::msm_g1(p_.h, h_, threads_);
    h_ = {};  // up to 4 GiB at 32GiB sectors: not kept until the next proof
    return sum;
  }
  // ProverEngine's contract: the sum over the first `count` bases (the GPU engine's too: the engine
  // conformance suite, tests/engine_conformance.hpp, holds both to it).
  template <class Affine>
  static std::span<const Affine> first_bases(const std::vector<Affine>& bases, std::size_t count) {
    if (count > bases.size())
      throw Groth16Error(
          Groth16ErrorKind::kMalformedInput,
          "msm: " + std::to_string(count) + " scalars for " + std::to_string(bases.size()) + " bases");
    return std::span<const Affine>(bases).first(count);
  }
  G1 msm_g1(G1Bases which, std::span<const Fr> scalars) override {
    const std::vector<G1Affine>* bases = which == G1Bases::kL   ? &p_.l
                                         : which == G1Bases::kA ? &p_.a
                                                                : &p_.b_g1;
    return groth16::msm_g1(first_bases(*bases, scalars.size()), scalars, threads_);
  }
  G2 msm_b_g2(std::span<const Fr> scalars) override {
    return groth16::msm_g2(first_bases(p_.b_g2, scalars.size()), scalars, threads_);
  }

 private:
  std::shared_ptr<const Parameters> owned_;  // null when made over a reference
  const Parameters& p_;
  unsigned threads_;
  std::vector<std::pair<std::string, double>> setup_phases_;
  std::vector<Fr> h_;  // the last compute_h's coefficients
};

}  // namespace

std::size_t ProverEngine::compute_h_from_witness(const ProverInput& /*in*/) {
  throw Groth16Error(Groth16ErrorKind::kMalformedInput,
                     "a witness without a, b, c for an engine that does not hold the circuit's constraints");
}

void gather_dense_scalars(const ProverInput& in, std::vector<Fr>& a_scratch, std::vector<Fr>& b_scratch) {
  // An engine that copies a and b (the GPU's) leaves their memory mapped, so the dense scalar vectors are
  // gathered into it instead of into ~4 GB of fresh pages per 32GiB partition (faulted in on one thread:
  // seconds).
  a_scratch.assign(in.inputs.begin(), in.inputs.end());  // every input has A density
  append_dense(in.aux, in.densities.a_aux, a_scratch);
  b_scratch.clear();
  append_dense(in.inputs, in.densities.b_input, b_scratch);
  append_dense(in.aux, in.densities.b_aux, b_scratch);
}

ProverEngine::WitnessMsms ProverEngine::msm_witness(const ProverInput& in, std::vector<Fr>& a_scratch,
                                                    std::vector<Fr>& b_scratch) {
  WitnessMsms out;
  out.l = msm_g1(G1Bases::kL, in.aux);
  out.a = msm_g1(G1Bases::kA, a_scratch);
  out.b_g1 = msm_g1(G1Bases::kBG1, b_scratch);
  PhaseTimer g2_timer;
  out.b_g2 = msm_b_g2(b_scratch);
  out.g2 = g2_timer.elapsed();
  return out;
}

std::vector<ProverEngine::WitnessMsms> ProverEngine::msm_witness_batch(
    std::span<const ProverInput* const> inputs, std::span<std::vector<Fr>* const> a_scratch,
    std::span<std::vector<Fr>* const> b_scratch) {
  std::vector<WitnessMsms> out;
  out.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    out.push_back(msm_witness(*inputs[i], *a_scratch[i], *b_scratch[i]));
  return out;
}

namespace {

// The H step and the h MSM of `in`, whose a, b, c (when it has them) are in `a`, `b`, `c`; the dense scalars
// are then gathered into a and b's memory unless the engine gathers them itself.
ProofInProgress begin_impl(ProverEngine& engine, const ParameterHeader& p, const ProverInput& in,
                           std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c, const Fr& r,
                           const Fr& s) {
  ProofInProgress out{nullptr, r, s, {}, {}};
  ProveTimings& t = out.timings;
  PhaseTimer h_timer;
  std::size_t h_count = 0;
  if (witness_only(in)) {
    h_count = engine.compute_h_from_witness(in);  // the input rows too, on the engine's side
  } else {
    // The input constraints input_i * 0 = 0 (bellperson synthesize_circuits_batch).
    a.insert(a.end(), in.inputs.begin(), in.inputs.end());
    b.resize(a.size(), Fr::zero());
    c.resize(a.size(), Fr::zero());
    h_count = engine.compute_h(a, b, c);
  }
  if (h_count != p.h) mismatch("compute_h gave " + count_text(h_count, p.h) + " coefficients");
  t.h = h_timer.elapsed();

  PhaseTimer msm_timer;
  // a and b are not needed once the engine has them: their memory serves as the scratch of the dense
  // scalars (msm_witness), gathered here unless the engine gathers them itself.
  switch (engine.dense_gather()) {
    case ProverEngine::DenseGather::kHost:
      out.h = engine.msm_h();
      gather_dense_scalars(in, a, b);
      break;
    case ProverEngine::DenseGather::kHostBesideMsmH: {
      std::future<void> gathered = std::async(std::launch::async, [&] { gather_dense_scalars(in, a, b); });
      try {
        out.h = engine.msm_h();
      } catch (...) {
        gathered.wait();  // it writes into a and b: never leave it running past them
        throw;
      }
      gathered.get();
      break;
    }
    case ProverEngine::DenseGather::kEngine:
      out.h = engine.msm_h();
      break;
  }
  t.msm_h = msm_timer.elapsed();
  return out;
}

// The proof from the five MSMs, r, s and the verifying key.
Proof combine(const ParameterHeader& p, const ProofInProgress& begun,
              const ProverEngine::WitnessMsms& witness) {
  const Fr& r = begun.r;
  const Fr& s = begun.s;
  // The blinding terms also go through the MSM (not the double-and-add scalar multiplication):
  // r and s are secret.
  const std::array<G1Affine, 1> delta_g1{p.vk.delta_g1};
  const std::array<Fr, 1> r_only{r}, s_only{s};
  const std::array<G2Affine, 1> delta_g2{p.vk.delta_g2};

  Proof proof;
  proof.a = (G1::from_affine(p.vk.alpha_g1) + witness.a + groth16::msm_g1(delta_g1, r_only, 1)).to_affine();
  proof.b = (G2::from_affine(p.vk.beta_g2) + witness.b_g2 + groth16::msm_g2(delta_g2, s_only, 1)).to_affine();
  const std::array<G1Affine, 5> c_bases{witness.a.to_affine(), witness.b_g1.to_affine(), p.vk.delta_g1,
                                        p.vk.alpha_g1, p.vk.beta_g1};
  const std::array<Fr, 5> c_scalars{s, r, r * s, s, r};
  proof.c = (groth16::msm_g1(c_bases, c_scalars, 1) + begun.h + witness.l).to_affine();
  return proof;
}

Proof prove_impl(ProverEngine& engine, const ParameterHeader& p, const ProverInput& in, std::vector<Fr>& a,
                 std::vector<Fr>& b, std::vector<Fr>& c, const Fr& r, const Fr& s, ProveTimings* timings) {
  ProofInProgress begun = begin_impl(engine, p, in, a, b, c, r, s);
  PhaseTimer witness_timer;
  const ProverEngine::WitnessMsms witness = engine.msm_witness(in, a, b);
  const PhaseTime witness_time = witness_timer.elapsed();
  if (timings) {
    *timings = begun.timings;
    timings->msm_g1 = begun.timings.msm_h + PhaseTime{witness_time.wall_s - witness.g2.wall_s,
                                                      witness_time.cpu_s - witness.g2.cpu_s};
    timings->msm_g2 = witness.g2;
  }
  return combine(p, begun, witness);
}

// `engine`: the one that will prove (null: the CPU prover, which needs a, b, c).
void check_all(const ParameterHeader& params, const ProverInput& input, const ProverEngine* engine) {
  check_input(input);
  std::size_t constraints = input.a.size();
  if (witness_only(input)) {
    constraints = engine ? engine->held_constraints() : 0;
    if (constraints == 0)
      malformed("witness: no a, b, c, and the engine does not hold the circuit's constraints");
  }
  check_fit(params, input, constraints, input.densities.a_aux.popcount(),
            input.densities.b_input.popcount() + input.densities.b_aux.popcount());
}

}  // namespace

std::unique_ptr<ProverEngine> make_cpu_engine(const Parameters& params, unsigned threads) {
  return std::make_unique<CpuEngine>(params, threads);
}

std::unique_ptr<ProverEngine> make_cpu_engine(std::shared_ptr<const Parameters> params, unsigned threads,
                                              std::vector<std::pair<std::string, double>> setup_phases) {
  return std::make_unique<CpuEngine>(std::move(params), threads, std::move(setup_phases));
}

Proof prove_with(ProverEngine& engine, const ParameterHeader& header, ProverInput& input, const Fr& r,
                 const Fr& s, ProveTimings* timings) {
  check_all(header, input, &engine);
  return prove_impl(engine, header, input, input.a, input.b, input.c, r, s, timings);
}

Proof prove_with(ProverEngine& engine, const ParameterHeader& header, ProverInput&& input, const Fr& r,
                 const Fr& s, ProveTimings* timings) {
  return prove_with(engine, header, input, r, s, timings);
}

Proof prove_with(ProverEngine& engine, const Parameters& params, ProverInput&& input, const Fr& r,
                 const Fr& s, ProveTimings* timings) {
  return prove_with(engine, header_of(params), std::move(input), r, s, timings);
}

ProofInProgress begin_proof(ProverEngine& engine, const ParameterHeader& header, ProverInput& input,
                            const Fr& r, const Fr& s) {
  check_all(header, input, &engine);
  ProofInProgress begun = begin_impl(engine, header, input, input.a, input.b, input.c, r, s);
  begun.input = &input;
  return begun;
}

std::vector<Proof> finish_proofs(ProverEngine& engine, const ParameterHeader& header,
                                 std::span<ProofInProgress> proofs) {
  std::vector<const ProverInput*> inputs;
  std::vector<std::vector<Fr>*> a_scratch, b_scratch;
  for (ProofInProgress& p : proofs) {
    if (!p.input) malformed("finish_proofs: a proof that was not begun");
    inputs.push_back(p.input);
    a_scratch.push_back(&p.input->a);
    b_scratch.push_back(&p.input->b);
  }
  PhaseTimer witness_timer;
  const std::vector<ProverEngine::WitnessMsms> witness =
      proofs.size() == 1 ? std::vector<ProverEngine::WitnessMsms>{engine.msm_witness(
                               *inputs[0], *a_scratch[0], *b_scratch[0])}
                         : engine.msm_witness_batch(inputs, a_scratch, b_scratch);
  if (witness.size() != proofs.size())
    mismatch("msm_witness_batch gave " + count_text(witness.size(), proofs.size()) + " results");
  const PhaseTime total = witness_timer.elapsed();
  PhaseTime g2;
  for (const auto& w : witness) g2 += w.g2;
  const double k = double(proofs.size());
  std::vector<Proof> out;
  out.reserve(proofs.size());
  for (std::size_t i = 0; i < proofs.size(); ++i) {
    ProveTimings& t = proofs[i].timings;
    // Each partition's share of the witness MSMs: the G2 part as the engine reported it, the G1 part evenly.
    t.msm_g1 = t.msm_h + PhaseTime{(total.wall_s - g2.wall_s) / k, (total.cpu_s - g2.cpu_s) / k};
    t.msm_g2 = witness[i].g2;
    t.batch = static_cast<unsigned>(proofs.size());
    out.push_back(combine(header, proofs[i], witness[i]));
  }
  return out;
}

Proof prove(const Parameters& params, const ProverInput& input, const Fr& r, const Fr& s, unsigned threads,
            ProveTimings* timings) {
  const ParameterHeader header = header_of(params);
  check_all(header, input, nullptr);
  CpuEngine engine(params, threads);
  std::vector<Fr> a = input.a, b = input.b, c = input.c;
  return prove_impl(engine, header, input, a, b, c, r, s, timings);
}

Proof prove(const Parameters& params, ProverInput&& input, const Fr& r, const Fr& s, unsigned threads,
            ProveTimings* timings) {
  CpuEngine engine(params, threads);
  return prove_with(engine, params, std::move(input), r, s, timings);
}

ProverInput witness_from_r1cs(const r1cs::R1cs& cs, std::vector<Fr> inputs, std::vector<Fr> aux) {
  if (inputs.size() != cs.num_inputs || aux.size() != cs.num_aux)
    malformed("witness has " + std::to_string(inputs.size()) + " inputs and " + std::to_string(aux.size()) +
              " aux; the R1CS has " + std::to_string(cs.num_inputs) + " and " + std::to_string(cs.num_aux));
  ProverInput in;
  validate_r1cs(cs);
  in.densities = r1cs::compute_densities(cs);
  in.inputs = std::move(inputs);
  in.aux = std::move(aux);
  const std::size_t n = cs.num_constraints(), ni = cs.num_inputs;
  in.a.resize(n);
  in.b.resize(n);
  in.c.resize(n);
  auto value = [&](std::uint32_t v) -> const Fr& { return v < ni ? in.inputs[v] : in.aux[v - ni]; };
  auto row = [&](const r1cs::SparseMatrix& m, std::size_t k) {
    Fr acc = Fr::zero();
    for (std::uint64_t t = m.row_offsets[k]; t < m.row_offsets[k + 1]; ++t)
      acc += m.values[t] * value(m.columns[t]);
    return acc;
  };
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(n); ++k) {
    in.a[k] = row(cs.a, k);
    in.b[k] = row(cs.b, k);
    in.c[k] = row(cs.c, k);
  }
  return in;
}

std::optional<std::size_t> first_unsatisfied(const ProverInput& input) {
  const auto n = static_cast<std::int64_t>(std::min({input.a.size(), input.b.size(), input.c.size()}));
  // One multiplication per constraint (130 M at 32GiB sectors): in parallel, keeping the lowest failure.
  std::int64_t first = n;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (std::int64_t k = 0; k < n; ++k)
    if (k < first && input.a[k] * input.b[k] != input.c[k]) first = k;
  if (first == n) return std::nullopt;
  return static_cast<std::size_t>(first);
}

}  // namespace cuzk::groth16
