#include "pce/compact_r1cs.hpp"

#include <array>
#include <string>
#include <unordered_map>
#include <utility>

#include "pce/errors.hpp"

namespace cuzk::pce {

namespace {

std::array<Fr, kMaxExponent + 1> make_powers_of_two() {
  std::array<Fr, kMaxExponent + 1> powers;
  powers[0] = Fr::one();
  for (std::size_t k = 1; k < powers.size(); ++k) powers[k] = powers[k - 1].dbl();
  return powers;
}

struct LimbsHash {
  // Montgomery limbs of distinct field values look random; mixing two limbs is plenty.
  std::size_t operator()(const Fr::Repr& r) const {
    return static_cast<std::size_t>(r[0] ^ (r[1] * 0x9e3779b97f4a7c15ULL) ^ (r[3] >> 7));
  }
};

}  // namespace

const Fr& power_of_two(unsigned k) {
  static const std::array<Fr, kMaxExponent + 1> powers = make_powers_of_two();
  return powers[k];
}

std::size_t CompactR1cs::memory_bytes() const {
  auto bits = [](const r1cs::DensityBits& d) { return d.words.size() * sizeof(std::uint64_t); };
  return a.memory_bytes() + b.memory_bytes() + c.memory_bytes() + table.size() * sizeof(Fr) +
         bits(densities.a_aux) + bits(densities.b_input) + bits(densities.b_aux);
}

// ---------------------------------------------------------------------------------------------------------

struct CoefficientEncoder::Impl {
  std::unordered_map<Fr::Repr, CoeffCode, LimbsHash> codes;
  std::vector<Fr> table;
  Fr::Repr one = Fr::one().montgomery();
  Fr::Repr minus_one = (-Fr::one()).montgomery();
};

CoefficientEncoder::CoefficientEncoder() : impl_(new Impl) {
  impl_->codes.reserve(4096);
  for (unsigned k = 0; k <= kMaxExponent; ++k) {
    impl_->codes.emplace(power_of_two(k).montgomery(), power_of_two_code(k, false));
    impl_->codes.emplace((-power_of_two(k)).montgomery(), power_of_two_code(k, true));
  }
}
CoefficientEncoder::~CoefficientEncoder() {
  delete impl_;
}
CoefficientEncoder::CoefficientEncoder(CoefficientEncoder&& other) noexcept
    : impl_(std::exchange(other.impl_, nullptr)) {}
CoefficientEncoder& CoefficientEncoder::operator=(CoefficientEncoder&& other) noexcept {
  if (this != &other) {
    delete impl_;
    impl_ = std::exchange(other.impl_, nullptr);
  }
  return *this;
}

CoeffCode CoefficientEncoder::encode(const Fr& value) {
  const Fr::Repr& m = value.montgomery();
  if (m == impl_->one) return kPlusOne;
  if (m == impl_->minus_one) return kMinusOne;
  auto it = impl_->codes.find(m);
  if (it != impl_->codes.end()) return it->second;
  if (impl_->table.size() >= kMaxTableSize) {
    throw PceError(PceErrorKind::kLimits, "the circuit has more than " + std::to_string(kMaxTableSize) +
                                              " distinct coefficients that are not +-2^k; the compact "
                                              "form indexes at most that many");
  }
  auto code = static_cast<CoeffCode>(kTableFlag | impl_->table.size());
  impl_->table.push_back(value);
  impl_->codes.emplace(m, code);
  return code;
}

const std::vector<Fr>& CoefficientEncoder::table() const {
  return impl_->table;
}

std::vector<Fr> CoefficientEncoder::take_table() {
  std::vector<Fr> out = std::move(impl_->table);
  impl_->table.clear();
  return out;
}

// ---------------------------------------------------------------------------------------------------------

CoefficientStats coefficient_stats(const CompactR1cs& pce) {
  CoefficientStats s;
  for (const CompactMatrix* m : {&pce.a, &pce.b, &pce.c}) {
    for (CoeffCode code : m->codes) {
      if (is_table_code(code)) {
        ++s.table;
      } else if (exponent_of(code) == 0) {
        ++s.plus_minus_one;
      } else {
        ++s.power_of_two;
      }
    }
  }
  return s;
}

r1cs::Densities compute_densities(const CompactMatrix& a, const CompactMatrix& b, std::size_t num_inputs,
                                  std::size_t num_aux) {
  r1cs::Densities d;
  d.a_aux.resize(num_aux);
  d.b_input.resize(num_inputs);
  d.b_aux.resize(num_aux);
  for (std::uint32_t col : a.columns) {
    if (col >= num_inputs) d.a_aux.set(col - num_inputs);
  }
  for (std::uint32_t col : b.columns) {
    if (col >= num_inputs) {
      d.b_aux.set(col - num_inputs);
    } else {
      d.b_input.set(col);
    }
  }
  return d;
}

namespace {

CompactMatrix compact_matrix(const r1cs::SparseMatrix& m, CoefficientEncoder& encoder, const char* name) {
  if (m.nnz() > kMaxEntriesPerMatrix) {
    throw PceError(PceErrorKind::kLimits, std::string("matrix ") + name + " has " + std::to_string(m.nnz()) +
                                              " entries; the compact form holds at most 2^32 - 1");
  }
  CompactMatrix out;
  out.row_offsets.resize(m.row_offsets.size());
  for (std::size_t i = 0; i < m.row_offsets.size(); ++i) {
    out.row_offsets[i] = static_cast<std::uint32_t>(m.row_offsets[i]);
  }
  out.columns.assign(m.columns.begin(), m.columns.end());
  out.codes.resize(m.values.size());
  for (std::size_t i = 0; i < m.values.size(); ++i) out.codes[i] = encoder.encode(m.values[i]);
  return out;
}

r1cs::SparseMatrix expand_matrix(const CompactMatrix& m, const CompactR1cs& pce) {
  r1cs::SparseMatrix out;
  out.row_offsets.assign(m.row_offsets.begin(), m.row_offsets.end());
  out.columns.assign(m.columns.begin(), m.columns.end());
  out.values.resize(m.codes.size());
  for (std::size_t i = 0; i < m.codes.size(); ++i) out.values[i] = pce.coefficient(m.codes[i]);
  return out;
}

[[noreturn]] void corrupt(const std::string& what, const std::string& problem) {
  throw PceError(PceErrorKind::kCorrupt, what + ": " + problem);
}

void validate_matrix(const CompactMatrix& m, const CompactR1cs& pce, const char* name,
                     const std::string& what) {
  const std::string label = std::string("matrix ") + name;
  if (m.row_offsets.empty() || m.row_offsets.front() != 0)
    corrupt(what, label + ": row offsets do not start at 0");
  if (m.row_offsets.back() != m.columns.size() || m.columns.size() != m.codes.size()) {
    corrupt(what, label + ": the last row offset, the column count and the coefficient count differ");
  }
  const std::size_t rows = m.rows();
  // Threads only pay for large matrices (an idle OpenMP team spins, which hurts on busy machines).
  const bool parallel = m.columns.size() > (1u << 20);
  bool offsets_ok = true;
#pragma omp parallel for schedule(static) reduction(&& : offsets_ok) if (parallel)
  for (std::int64_t r = 0; r < static_cast<std::int64_t>(rows); ++r) {
    offsets_ok = offsets_ok && m.row_offsets[r] <= m.row_offsets[r + 1];
  }
  if (!offsets_ok) corrupt(what, label + ": row offsets decrease");
  const std::uint64_t vars = pce.num_variables();
  const std::size_t table_size = pce.table.size();
  bool entries_ok = true;
#pragma omp parallel for schedule(static) reduction(&& : entries_ok) if (parallel)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(m.columns.size()); ++i) {
    const CoeffCode code = m.codes[i];
    const bool code_ok = is_table_code(code) ? table_index(code) < table_size : is_valid_power_code(code);
    entries_ok = entries_ok && m.columns[i] < vars && code_ok;
  }
  if (!entries_ok) corrupt(what, label + ": a column beyond the variables or an invalid coefficient code");
}

}  // namespace

CompactR1cs compact(const r1cs::R1cs& cs) {
  if (cs.a.rows() != cs.b.rows() || cs.a.rows() != cs.c.rows()) {
    throw PceError(PceErrorKind::kCorrupt, "compact: the A, B and C matrices have different row counts");
  }
  CompactR1cs out;
  out.num_inputs = cs.num_inputs;
  out.num_aux = cs.num_aux;
  CoefficientEncoder encoder;
  out.a = compact_matrix(cs.a, encoder, "A");
  out.b = compact_matrix(cs.b, encoder, "B");
  out.c = compact_matrix(cs.c, encoder, "C");
  out.table = encoder.take_table();
  out.densities = compute_densities(out.a, out.b, out.num_inputs, out.num_aux);
  return out;
}

r1cs::R1cs expand(const CompactR1cs& pce) {
  r1cs::R1cs out;
  out.num_inputs = pce.num_inputs;
  out.num_aux = pce.num_aux;
  out.a = expand_matrix(pce.a, pce);
  out.b = expand_matrix(pce.b, pce);
  out.c = expand_matrix(pce.c, pce);
  return out;
}

void validate(const CompactR1cs& pce, const std::string& what) {
  if (pce.num_inputs < 1) corrupt(what, "no inputs (ONE is input 0)");
  if (pce.num_variables() > std::uint64_t{1} << 32)
    corrupt(what, "more variables than u32 columns can index");
  if (pce.a.rows() != pce.b.rows() || pce.a.rows() != pce.c.rows()) {
    corrupt(what, "the A, B and C matrices have different row counts");
  }
  if (pce.table.size() > kMaxTableSize) corrupt(what, "coefficient table larger than 32,768 values");
  validate_matrix(pce.a, pce, "A", what);
  validate_matrix(pce.b, pce, "B", what);
  validate_matrix(pce.c, pce, "C", what);
  const auto& d = pce.densities;
  auto words_ok = [](const r1cs::DensityBits& bits, std::size_t n) {
    return bits.bit_len == n && bits.words.size() == (n + 63) / 64 &&
           (n % 64 == 0 || bits.words.empty() || (bits.words.back() >> (n % 64)) == 0);
  };
  if (!words_ok(d.a_aux, pce.num_aux) || !words_ok(d.b_input, pce.num_inputs) ||
      !words_ok(d.b_aux, pce.num_aux)) {
    corrupt(what, "density bitsets do not match the variable counts");
  }
}

}  // namespace cuzk::pce
