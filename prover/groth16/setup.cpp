#include "prover/groth16/setup.hpp"

#include <omp.h>
#include <openssl/sha.h>

#include <string>
#include <vector>

#include "prover/groth16/domain.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/fixed_base.hpp"
#include "prover/groth16/randomness.hpp"

namespace cuzk::groth16 {

namespace {

using algebra::G1Config;
using algebra::G2Config;

int thread_count(unsigned threads) {
  return threads == 0 ? omp_get_max_threads() : static_cast<int>(threads);
}

// out[v] += sum over rows k of coefficient(k, v) * lag[k].
void evaluate_columns(const r1cs::SparseMatrix& m, const std::vector<Fr>& lag, std::vector<Fr>& out) {
  for (std::size_t k = 0; k < m.rows(); ++k)
    for (std::uint64_t t = m.row_offsets[k]; t < m.row_offsets[k + 1]; ++t)
      out[m.columns[t]] += m.values[t] * lag[k];
}

[[noreturn]] void degenerate(const std::string& what) {
  throw_degenerate_waste(what);
}

}  // namespace

void fill_powers(const Fr& x, const Fr& scale, std::uint64_t first_exponent, std::span<Fr> out,
                 unsigned threads) {
  constexpr std::size_t kChunk = 4096;  // each chunk starts from its own power
  const auto chunks = static_cast<std::int64_t>((out.size() + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static) num_threads(thread_count(threads))
  for (std::int64_t c = 0; c < chunks; ++c) {
    std::size_t start = static_cast<std::size_t>(c) * kChunk;
    std::size_t end = std::min(out.size(), start + kChunk);
    Fr p = x.pow(static_cast<algebra::u64>(first_exponent + start)) * scale;
    for (std::size_t i = start; i < end; ++i) {
      out[i] = p;
      p *= x;
    }
  }
}

// ifft(1, tau, ..., tau^(m-1))_k = (1/m) sum_j tau^j omega^(-jk) = (Z(tau)/m) omega^k / (tau - omega^k).
std::vector<Fr> lagrange_at(const EvaluationDomain& domain, const Fr& tau, const Fr& z_tau,
                            unsigned threads) {
  const int nt = thread_count(threads);
  const std::size_t m = domain.size();
  std::vector<Fr> omega_pows(m);
  fill_powers(domain.omega(), Fr::one(), 0, omega_pows, threads);
  std::vector<Fr> inv(m);
  constexpr std::size_t kChunk = 4096;  // one field inversion per chunk (Montgomery's trick)
  const auto chunks = static_cast<std::int64_t>((m + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (std::int64_t c = 0; c < chunks; ++c) {
    std::size_t start = static_cast<std::size_t>(c) * kChunk;
    std::size_t end = std::min(m, start + kChunk);
    std::vector<Fr> scratch(end - start);
    for (std::size_t k = start; k < end; ++k) inv[k] = tau - omega_pows[k];  // non-zero: Z(tau) != 0
    algebra::batch_inverse(inv.data() + start, end - start, scratch.data());
  }
  const Fr scale = z_tau * Fr::from_u64(m).inverse();
  std::vector<Fr> lag(m);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(m); ++k) lag[k] = scale * omega_pows[k] * inv[k];
  return lag;
}

void throw_degenerate_waste(const std::string& what) {
  throw Groth16Error(Groth16ErrorKind::kParameters,
                     "degenerate toxic waste: " + what + " (draw new toxic waste and run setup again)");
}

void throw_unconstrained_variable(std::size_t aux_index, std::size_t variable) {
  throw Groth16Error(Groth16ErrorKind::kUnconstrainedVariable,
                     "aux variable " + std::to_string(aux_index) + " (variable " + std::to_string(variable) +
                         ") appears in no constraint; bellperson rejects such circuits (L would hold a "
                         "point at infinity)");
}

ToxicWaste ToxicWaste::from_seed(std::uint64_t seed) {
  static constexpr char kDomain[] = "cuzk ToxicWaste::from_seed";
  auto element = [&](std::uint8_t index) {
    for (std::uint32_t counter = 0;; ++counter) {
      std::uint8_t message[sizeof(kDomain) - 1 + 8 + 1 + 4];
      std::size_t at = 0;
      for (std::size_t i = 0; i + 1 < sizeof(kDomain); ++i)
        message[at++] = static_cast<std::uint8_t>(kDomain[i]);
      for (int i = 0; i < 8; ++i) message[at++] = static_cast<std::uint8_t>(seed >> (8 * i));
      message[at++] = index;
      for (int i = 0; i < 4; ++i) message[at++] = static_cast<std::uint8_t>(counter >> (8 * i));
      std::uint8_t digest[SHA256_DIGEST_LENGTH];
      SHA256(message, sizeof(message), digest);
      digest[31] &= 0x7f;  // 255 bits: below r with probability > 0.9
      Fr value;
      if (Fr::from_bytes_le(digest, value) && !value.is_zero()) return value;
    }
  };
  return {element(0), element(1), element(2), element(3), element(4)};
}

ToxicWaste ToxicWaste::random() {
  return {random_nonzero_fr(), random_nonzero_fr(), random_nonzero_fr(), random_nonzero_fr(),
          random_nonzero_fr()};
}

Parameters generate_parameters(const r1cs::R1cs& cs, const ToxicWaste& waste, unsigned threads) {
  const int nt = thread_count(threads);
  validate_r1cs(cs);
  const Densities dens = r1cs::compute_densities(cs);
  const std::size_t ni = cs.num_inputs, nv = cs.num_variables();
  const std::size_t nc = cs.num_constraints();
  const EvaluationDomain domain(num_constraints_with_inputs(cs));
  const std::size_t m = domain.size();

  if (waste.gamma.is_zero()) degenerate("gamma is zero");  // bellperson: UnexpectedIdentity
  if (waste.delta.is_zero()) degenerate("delta is zero");
  const Fr z_tau = waste.tau.pow(static_cast<algebra::u64>(m)) - Fr::one();
  if (z_tau.is_zero()) degenerate("tau is in the evaluation domain");
  const Fr gamma_inv = waste.gamma.inverse(), delta_inv = waste.delta.inverse();

  // u_i(tau), v_i(tau), w_i(tau) per variable, the input constraints included.
  const std::vector<Fr> lag = lagrange_at(domain, waste.tau, z_tau, threads);
  std::vector<Fr> u(nv), v(nv), w(nv);
  evaluate_columns(cs.a, lag, u);
  evaluate_columns(cs.b, lag, v);
  evaluate_columns(cs.c, lag, w);
  for (std::size_t i = 0; i < ni; ++i) u[i] += lag[nc + i];

  // All G1 scalars in one list (h, ic, l, a, b_g1, then alpha, beta, delta), cut apart afterwards.
  std::vector<Fr> g1_scalars(m - 1);
  fill_powers(waste.tau, z_tau * delta_inv, 0, g1_scalars, threads);  // h_j = tau^j Z(tau) / delta
  const std::size_t ic_start = g1_scalars.size();
  for (std::size_t i = 0; i < nv; ++i) {
    Fr e = (waste.beta * u[i] + waste.alpha * v[i] + w[i]) * (i < ni ? gamma_inv : delta_inv);
    if (i < ni && e.is_zero()) degenerate("the IC element of input " + std::to_string(i) + " is zero");
    if (i >= ni && e.is_zero()) {
      std::size_t k = i - ni;
      bool used = dens.a_aux.test(k) || dens.b_aux.test(k) || !w[i].is_zero();
      if (!used) {
        throw_unconstrained_variable(k, i);
      }
      degenerate("the L element of aux variable " + std::to_string(k) + " is zero");
    }
    g1_scalars.push_back(e);
  }
  const std::size_t a_start = g1_scalars.size();
  std::vector<Fr> b_scalars;
  for (std::size_t i = 0; i < nv; ++i) {
    bool has_a = i < ni || dens.a_aux.test(i - ni);
    bool has_b = i < ni ? dens.b_input.test(i) : dens.b_aux.test(i - ni);
    if (has_a) {
      if (u[i].is_zero()) degenerate("u_" + std::to_string(i) + "(tau) is zero");
      g1_scalars.push_back(u[i]);
    }
    if (has_b) {
      if (v[i].is_zero()) degenerate("v_" + std::to_string(i) + "(tau) is zero");
      b_scalars.push_back(v[i]);
    }
  }
  const std::size_t b_start = g1_scalars.size();
  g1_scalars.insert(g1_scalars.end(), b_scalars.begin(), b_scalars.end());
  const std::size_t vk_start = g1_scalars.size();
  g1_scalars.insert(g1_scalars.end(), {waste.alpha, waste.beta, waste.delta});
  b_scalars.insert(b_scalars.end(), {waste.beta, waste.gamma, waste.delta});

  FixedBaseTable<G1Config> g1_table(algebra::G1Affine::generator(),
                                    FixedBaseTable<G1Config>::best_window(g1_scalars.size()), nt);
  FixedBaseTable<G2Config> g2_table(algebra::G2Affine::generator(),
                                    FixedBaseTable<G2Config>::best_window(b_scalars.size()), nt);
  const auto g1 = g1_table.mul_many(g1_scalars, nt);
  const auto g2 = g2_table.mul_many(b_scalars, nt);

  auto range = [&](std::size_t from, std::size_t to) {
    return std::vector<algebra::G1Affine>(g1.begin() + static_cast<std::ptrdiff_t>(from),
                                          g1.begin() + static_cast<std::ptrdiff_t>(to));
  };
  Parameters p;
  p.h = range(0, ic_start);
  p.vk.ic = range(ic_start, ic_start + ni);
  p.l = range(ic_start + ni, a_start);
  p.a = range(a_start, b_start);
  p.b_g1 = range(b_start, vk_start);
  p.b_g2.assign(g2.begin(), g2.end() - 3);
  p.vk.alpha_g1 = g1[vk_start];
  p.vk.beta_g1 = g1[vk_start + 1];
  p.vk.delta_g1 = g1[vk_start + 2];
  p.vk.beta_g2 = g2[g2.size() - 3];
  p.vk.gamma_g2 = g2[g2.size() - 2];
  p.vk.delta_g2 = g2[g2.size() - 1];
  return p;
}

}  // namespace cuzk::groth16
