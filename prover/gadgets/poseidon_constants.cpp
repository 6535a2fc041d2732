#include "prover/gadgets/poseidon_constants.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace cuzk::gadgets::poseidon {

namespace {

// neptune round_numbers.rs: PRIME_BITLEN (n, rounded up to 256 bits on purpose) and the security level M.
constexpr float kPrimeBitLen = 256.0f;
constexpr float kSecurityBits = 128.0f;

// Rust's `f32 as usize` saturates: negative values and NaN become 0.
std::size_t ceil_to_usize(float x) {
  float c = std::ceil(x);
  return (c > 0.0f) ? static_cast<std::size_t>(c) : 0;
}

// neptune round_numbers.rs `round_numbers_are_secure`, evaluated in f32 as neptune does. The volatile
// intermediates keep each product rounded to f32 on its own (no fused multiply-add), like Rust.
bool round_numbers_are_secure(std::size_t t, std::size_t rf, std::size_t rp) {
  const float rpf = static_cast<float>(rp);
  const float tf = static_cast<float>(t);
  const float n = kPrimeBitLen;
  const float m = kSecurityBits;
  const float rf_stat = (m <= (n - 3.0f) * (tf + 1.0f)) ? 6.0f : 10.0f;
  volatile float interp_product = 0.43f * m;
  volatile float interp_sum = interp_product + std::log2(tf);
  const float rf_interp = interp_sum - rpf;
  volatile float grob1_product = 0.21f * n;
  const float rf_grob_1 = grob1_product - rpf;
  volatile float grob2_product = 0.14f * n;
  volatile float grob2_numerator = (grob2_product - 1.0f) - rpf;
  const float rf_grob_2 = grob2_numerator / (tf - 1.0f);
  std::size_t rf_max = 0;
  for (float candidate : {rf_stat, rf_interp, rf_grob_1, rf_grob_2}) {
    rf_max = std::max(rf_max, ceil_to_usize(candidate));
  }
  return rf >= rf_max;
}

// Grain LFSR in self-shrinking mode (neptune round_constants.rs `Grain`). Bit i of `state_` is b_i.
class Grain {
 public:
  explicit Grain(const std::array<bool, 80>& init) {
    for (std::size_t i = 0; i < 80; ++i) {
      if (init[i]) state_ |= algebra::u128{1} << i;
    }
    for (int i = 0; i < 160; ++i) step();  // "Discard the first 160 bits."
  }

  // One self-shrunk output bit: evaluate pairs; if the first bit is 1 output the second, else drop both.
  bool next() {
    bool first = step();
    while (!first) {
      step();
      first = step();
    }
    return step();
  }

 private:
  bool bit(unsigned i) const { return (state_ >> i) & 1; }
  // b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i
  bool step() {
    bool new_bit = bit(62) ^ bit(51) ^ bit(38) ^ bit(23) ^ bit(13) ^ bit(0);
    state_ >>= 1;
    state_ |= static_cast<algebra::u128>(new_bit) << 79;
    return new_bit;
  }

  algebra::u128 state_ = 0;
};

// neptune `append_bits`: the low `count` bits of `value`, most significant first.
void append_bits(std::array<bool, 80>& bits, std::size_t& pos, std::size_t count, std::uint64_t value) {
  for (std::size_t i = count; i-- > 0;) bits[pos++] = (value >> i) & 1;
}

std::vector<Fr> add_vectors(std::span<const Fr> a, std::span<const Fr> b) {
  std::vector<Fr> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
  return out;
}

// neptune preprocessing.rs `compress_round_constants` with partial_preprocessed = partial_rounds (the
// only way neptune calls it): round constants are pushed back through the linear layers so that each
// S-box is followed by one addition, and each partial round needs a single constant.
std::vector<Fr> compress_round_constants(const Constants& c) {
  const std::size_t w = c.width;
  const std::size_t half = c.half_full_rounds;
  auto round_keys = [&](std::size_t round) {
    return std::span<const Fr>(c.round_constants).subspan(round * w, w);
  };
  std::vector<Fr> out;
  out.reserve(c.full_rounds * w + c.partial_rounds);
  auto append = [&out](std::span<const Fr> v) { out.insert(out.end(), v.begin(), v.end()); };

  append(round_keys(0));  // added before the first S-boxes, unchanged
  // Post-S-box constants of the initial full rounds but the last: the next round's keys through M^-1.
  for (std::size_t i = 0; i + 1 < half; ++i) append(apply_matrix(c.mds_inverse, round_keys(i + 1)));

  // Partial rounds, from the last one back: invert, keep element 0 as that round's constant, fold the
  // rest into the previous round's keys.
  const std::size_t final_round = half + c.partial_rounds;
  std::vector<Fr> accumulated(round_keys(final_round).begin(), round_keys(final_round).end());
  std::vector<Fr> partial_keys;
  for (std::size_t i = 0; i < c.partial_rounds; ++i) {
    std::vector<Fr> inverted = apply_matrix(c.mds_inverse, accumulated);
    partial_keys.push_back(inverted[0]);
    inverted[0] = Fr::zero();
    accumulated = add_vectors(round_keys(final_round - i - 1), inverted);
  }
  append(apply_matrix(c.mds_inverse, accumulated));  // post-add of the last initial full round
  out.insert(out.end(), partial_keys.rbegin(), partial_keys.rend());

  // Final full rounds but the last (which adds nothing after its S-boxes).
  for (std::size_t i = 1; i < half; ++i) append(apply_matrix(c.mds_inverse, round_keys(i + final_round)));
  return out;
}

// neptune mds.rs `factor_to_sparse_matrices(M, partial_rounds)`: starting from M, repeatedly factor the
// current matrix as M' * M'' with M'' sparse, and continue with M * M'. The matrices come out last
// round first, so they are reversed; the final accumulated matrix is the pre-sparse matrix.
void factor_to_sparse(Constants& c) {
  const std::size_t w = c.width;
  Matrix current = c.mds;
  std::vector<SparseMatrix> sparse;
  for (std::size_t round = 0; round < c.partial_rounds; ++round) {
    std::optional<Matrix> m_hat_inverse = invert(minor(current, 0, 0));
    if (!m_hat_inverse) throw std::logic_error("poseidon: singular MDS minor");
    // M'' (make_double_prime): row 0 = current's row 0; rows i >= 1: [w_hat[i-1], e_i], where
    // w_hat = apply_matrix(m_hat^-1, current's column 0 below row 0).
    std::vector<Fr> column(w - 1);
    for (std::size_t i = 1; i < w; ++i) column[i - 1] = current(i, 0);
    std::vector<Fr> w_hat = apply_matrix(*m_hat_inverse, column);
    SparseMatrix s;
    s.w_hat.push_back(current(0, 0));
    s.w_hat.insert(s.w_hat.end(), w_hat.begin(), w_hat.end());
    for (std::size_t j = 1; j < w; ++j) s.v_rest.push_back(current(0, j));
    sparse.push_back(std::move(s));
    // M' (make_prime): e_0 in row 0, current's rows 1.. with column 0 cleared.
    Matrix prime(w);
    prime(0, 0) = Fr::one();
    for (std::size_t i = 1; i < w; ++i) {
      for (std::size_t j = 1; j < w; ++j) prime(i, j) = current(i, j);
    }
    current = mat_mul(c.mds, prime);
  }
  c.pre_sparse_matrix = std::move(current);
  c.sparse_matrices.assign(sparse.rbegin(), sparse.rend());
}

}  // namespace

RoundNumbers calc_round_numbers(std::size_t width, bool security_margin) {
  std::size_t best_rf = 0, best_rp = 0;
  std::size_t min_sboxes = std::numeric_limits<std::size_t>::max();
  for (std::size_t rf_start = 2; rf_start <= 1000; rf_start += 2) {
    // As in neptune, the margin added to rf persists for the rest of the inner loop (`for mut rf_test`).
    std::size_t rf_test = rf_start;
    for (std::size_t rp_start = 4; rp_start < 200; ++rp_start) {
      std::size_t rp_test = rp_start;
      if (!round_numbers_are_secure(width, rf_test, rp_test)) continue;
      if (security_margin) {
        rf_test += 2;
        volatile float scaled = 1.075f * static_cast<float>(rp_test);
        rp_test = ceil_to_usize(scaled);
      }
      std::size_t sboxes = width * rf_test + rp_test;
      if (sboxes < min_sboxes || (sboxes == min_sboxes && rf_test < best_rf)) {
        best_rf = rf_test;
        best_rp = rp_test;
        min_sboxes = sboxes;
      }
    }
  }
  return {best_rf, best_rp};
}

RoundNumbers round_numbers(std::size_t arity, Strength strength) {
  RoundNumbers base = calc_round_numbers(arity + 1, true);
  if (strength == Strength::kStandard) return base;
  // neptune round_numbers_strengthened: f64::ceil(rp * 1.25).
  return {base.full_rounds,
          static_cast<std::size_t>(std::ceil(static_cast<double>(base.partial_rounds) * 1.25))};
}

std::vector<Fr> grain_round_constants(std::uint8_t field, std::uint8_t sbox, std::uint16_t field_size,
                                      std::uint16_t width, std::uint16_t full_rounds,
                                      std::uint16_t partial_rounds) {
  if (field != 1) throw std::invalid_argument("poseidon: only prime fields are supported");
  if ((field_size + 7) / 8 != 32) throw std::invalid_argument("poseidon: 32-byte fields only");
  std::array<bool, 80> init{};
  std::size_t pos = 0;
  append_bits(init, pos, 2, field);
  append_bits(init, pos, 4, sbox);
  append_bits(init, pos, 12, field_size);
  append_bits(init, pos, 12, width);
  append_bits(init, pos, 10, full_rounds);
  append_bits(init, pos, 10, partial_rounds);
  append_bits(init, pos, 30, (1u << 30) - 1);
  Grain grain(init);

  // Each candidate: the first byte takes field_size mod 8 bits (8 if none), the other 31 bytes 8 each,
  // read as one big-endian integer (neptune `get_next_bytes`, then `repr.reverse()`).
  const std::size_t first_byte_bits = field_size % 8 ? field_size % 8 : 8;
  const std::size_t total_bits = first_byte_bits + 31 * 8;
  const std::size_t count = static_cast<std::size_t>(full_rounds + partial_rounds) * width;
  std::vector<Fr> out;
  out.reserve(count);
  while (out.size() < count) {
    Fr::Repr value{};
    for (std::size_t i = total_bits; i-- > 0;) {
      if (grain.next()) value[i / 64] |= algebra::u64{1} << (i % 64);
    }
    if (Fr::is_canonical(value)) out.push_back(Fr::from_canonical(value));  // else: rejection sampling
  }
  return out;
}

Matrix Matrix::identity(std::size_t size) {
  Matrix m(size);
  for (std::size_t i = 0; i < size; ++i) m(i, i) = Fr::one();
  return m;
}

Matrix mat_mul(const Matrix& a, const Matrix& b) {
  const std::size_t n = a.size();
  Matrix out(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < n; ++k) {
      const Fr aik = a(i, k);
      for (std::size_t j = 0; j < n; ++j) out(i, j) += aik * b(k, j);
    }
  }
  return out;
}

Matrix transpose(const Matrix& m) {
  Matrix out(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < m.size(); ++j) out(j, i) = m(i, j);
  }
  return out;
}

Matrix minor(const Matrix& m, std::size_t row, std::size_t col) {
  Matrix out(m.size() - 1);
  for (std::size_t i = 0, oi = 0; i < m.size(); ++i) {
    if (i == row) continue;
    for (std::size_t j = 0, oj = 0; j < m.size(); ++j) {
      if (j == col) continue;
      out(oi, oj++) = m(i, j);
    }
    ++oi;
  }
  return out;
}

// The inverse is unique, so any exact elimination gives neptune's result.
std::optional<Matrix> invert(const Matrix& m) {
  const std::size_t n = m.size();
  Matrix a = m;
  Matrix inv = Matrix::identity(n);
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    while (pivot < n && a(pivot, col).is_zero()) ++pivot;
    if (pivot == n) return std::nullopt;
    if (pivot != col) {
      for (std::size_t j = 0; j < n; ++j) {
        std::swap(a(pivot, j), a(col, j));
        std::swap(inv(pivot, j), inv(col, j));
      }
    }
    const Fr scale = a(col, col).inverse();
    for (std::size_t j = 0; j < n; ++j) {
      a(col, j) *= scale;
      inv(col, j) *= scale;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (i == col || a(i, col).is_zero()) continue;
      const Fr factor = a(i, col);
      for (std::size_t j = 0; j < n; ++j) {
        a(i, j) -= factor * a(col, j);
        inv(i, j) -= factor * inv(col, j);
      }
    }
  }
  return inv;
}

std::vector<Fr> apply_matrix(const Matrix& m, std::span<const Fr> v) {
  const std::size_t n = m.size();
  if (v.size() != n) throw std::invalid_argument("poseidon: matrix and vector sizes differ");
  std::vector<Fr> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) out[j] += m(i, j) * v[i];
  }
  return out;
}

Matrix cauchy_mds(std::size_t width) {
  Matrix m(width);
  for (std::size_t i = 0; i < width; ++i) {
    for (std::size_t j = 0; j < width; ++j) m(i, j) = Fr::from_u64(i + width + j).inverse();
  }
  return m;
}

Constants make_constants(std::size_t arity, Strength strength) {
  if (arity < 1 || arity > 36) throw std::invalid_argument("poseidon: arity must be in 1..36");
  Constants c;
  c.arity = arity;
  c.width = arity + 1;
  c.strength = strength;
  RoundNumbers rounds = round_numbers(arity, strength);
  c.full_rounds = rounds.full_rounds;
  c.half_full_rounds = rounds.full_rounds / 2;
  c.partial_rounds = rounds.partial_rounds;
  c.domain_tag = Fr::from_u64((std::uint64_t{1} << arity) - 1);
  // neptune lib.rs: FIELD = 1 (GF(p)), SBOX = 1 (x^5), field_size = Fr::NUM_BITS.
  c.round_constants = grain_round_constants(
      1, 1, static_cast<std::uint16_t>(Fr::kBits), static_cast<std::uint16_t>(c.width),
      static_cast<std::uint16_t>(c.full_rounds), static_cast<std::uint16_t>(c.partial_rounds));
  c.mds = cauchy_mds(c.width);
  std::optional<Matrix> inverse = invert(c.mds);
  if (!inverse) throw std::logic_error("poseidon: singular MDS matrix");
  c.mds_inverse = std::move(*inverse);
  c.compressed_round_constants = compress_round_constants(c);
  factor_to_sparse(c);
  return c;
}

const Constants& constants(std::size_t arity, Strength strength) {
  constexpr std::size_t kMaxArity = 36;
  if (arity < 1 || arity > kMaxArity) throw std::invalid_argument("poseidon: arity must be in 1..36");
  static std::array<std::once_flag, 2 * (kMaxArity + 1)> once;
  static std::array<std::unique_ptr<Constants>, 2 * (kMaxArity + 1)> cache;
  const std::size_t slot = arity * 2 + (strength == Strength::kStandard ? 0 : 1);
  std::call_once(once[slot],
                 [&] { cache[slot] = std::make_unique<Constants>(make_constants(arity, strength)); });
  return *cache[slot];
}

}  // namespace cuzk::gadgets::poseidon
