// The pre-compiled constraint evaluator's in-memory form of an R1cs: CSR matrices whose coefficients are
// 16-bit codes instead of 32-byte field elements.
//
// Almost every coefficient of the PoRep circuit is +-1 or a power of two (bits, UInt32 words, MultiEq and
// multipack packing: 2^k for k up to 253); the rest come from Poseidon (MDS entries, round constants and
// their products: ~3,600 distinct values over arities 2..16, measured with the Recorder). So a
// coefficient is a 16-bit CoeffCode: a signed power of two +-2^k, or an index into CompactR1cs::table, the
// full field values (at most 32,768); the bits are laid out in prover/r1cs/compact_view.hpp.
// Entries: u32 column (unified variable index, r1cs.hpp) + u16 code = 6 bytes, against 36 in r1cs::R1cs;
// row offsets are u32 (at most 2^32 - 1 entries per matrix; the 32 GiB circuit has ~0.3e9).
// Row order and the order of terms within a row are kept exactly (expand(compact(r)) == r).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/r1cs/compact_view.hpp"
#include "prover/r1cs/evaluate.hpp"
#include "prover/r1cs/r1cs.hpp"

namespace cuzk::pce {

using algebra::Fr;

// The codes are defined with the matrix view that the GPU SpMV reads (prover/r1cs/compact_view.hpp).
using r1cs::CoeffCode;
using r1cs::exponent_of;
using r1cs::is_negative;
using r1cs::is_table_code;
using r1cs::is_valid_power_code;
using r1cs::kMaxExponent;
using r1cs::kMaxTableSize;
using r1cs::kMinusOne;
using r1cs::kNegativeFlag;
using r1cs::kPlusOne;
using r1cs::kTableFlag;
using r1cs::power_of_two_code;
using r1cs::table_index;
inline constexpr std::uint64_t kMaxEntriesPerMatrix = std::numeric_limits<std::uint32_t>::max();

// 2^k in Fr for k <= kMaxExponent (a table built once).
const Fr& power_of_two(unsigned k);

// An allocator whose value-initialization is default-initialization, so that resize() leaves the memory
// untouched: the cache reader resizes the matrices and then decompresses into them from several threads,
// so the pages are first touched (and zeroed by the kernel, ~65 ms per 122 MB on the dev VM) in parallel
// instead of by one memset on one thread.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <class T>
using PodVector = std::vector<T, UninitializedAllocator<T>>;

struct CompactMatrix {
  PodVector<std::uint32_t> row_offsets{0};
  PodVector<std::uint32_t> columns;
  PodVector<CoeffCode> codes;

  std::size_t rows() const { return row_offsets.size() - 1; }
  std::size_t nnz() const { return columns.size(); }
  std::size_t memory_bytes() const {
    return row_offsets.size() * sizeof(std::uint32_t) + columns.size() * sizeof(std::uint32_t) +
           codes.size() * sizeof(CoeffCode);
  }
  r1cs::CompactMatrixView view() const { return {row_offsets, columns, codes}; }
  friend bool operator==(const CompactMatrix&, const CompactMatrix&) = default;
};

struct CompactR1cs {
  std::size_t num_inputs = 1;  // including ONE
  std::size_t num_aux = 0;
  CompactMatrix a, b, c;
  std::vector<Fr> table;  // full coefficients, shared by the three matrices
  r1cs::Densities densities;

  std::size_t num_constraints() const { return a.rows(); }
  std::size_t num_variables() const { return num_inputs + num_aux; }
  std::size_t nnz() const { return a.nnz() + b.nnz() + c.nnz(); }
  // The matrices and the table, for the GPU SpMV (gpu/spmv.hpp); valid while this object lives unchanged.
  r1cs::CompactR1csView view() const { return {num_inputs, num_aux, a.view(), b.view(), c.view(), table}; }
  // Bytes held by the matrices, the table and the density bitsets.
  std::size_t memory_bytes() const;
  Fr coefficient(CoeffCode code) const {
    if (is_table_code(code)) return table[table_index(code)];
    const Fr& p = power_of_two(exponent_of(code));
    return is_negative(code) ? -p : p;
  }
  friend bool operator==(const CompactR1cs& x, const CompactR1cs& y) {
    const r1cs::Densities &dx = x.densities, &dy = y.densities;
    return x.num_inputs == y.num_inputs && x.num_aux == y.num_aux && x.a == y.a && x.b == y.b && x.c == y.c &&
           x.table == y.table && dx.a_aux == dy.a_aux && dx.b_input == dy.b_input && dx.b_aux == dy.b_aux;
  }
};

// Maps field values to codes, collecting the table. +-1 are checked first (most entries), then a hash
// table pre-filled with the 510 signed powers of two and grown with every new full value.
class CoefficientEncoder {
 public:
  CoefficientEncoder();
  ~CoefficientEncoder();
  CoefficientEncoder(CoefficientEncoder&&) noexcept;
  CoefficientEncoder& operator=(CoefficientEncoder&&) noexcept;

  // Throws PceError(kLimits) when a 32,769th distinct full value appears.
  CoeffCode encode(const Fr& value);
  const std::vector<Fr>& table() const;
  std::vector<Fr> take_table();

 private:
  struct Impl;
  Impl* impl_;
};

// How many entries of each class (for `cuzk pce info` and the benchmarks).
struct CoefficientStats {
  std::uint64_t plus_minus_one = 0;
  std::uint64_t power_of_two = 0;  // +-2^k, k >= 1
  std::uint64_t table = 0;
};
CoefficientStats coefficient_stats(const CompactR1cs& pce);

// Densities of the compact matrices, as r1cs::compute_densities does for an R1cs (every entry counts).
r1cs::Densities compute_densities(const CompactMatrix& a, const CompactMatrix& b, std::size_t num_inputs,
                                  std::size_t num_aux);

// Re-encodes `cs` (densities included). Throws PceError(kLimits) beyond the limits above.
CompactR1cs compact(const r1cs::R1cs& cs);
// The plain R1cs again: expand(compact(cs)) == cs.
r1cs::R1cs expand(const CompactR1cs& pce);

// Structural checks, so that evaluation can never read out of bounds: row offsets start at 0, never
// decrease and end at nnz; the three matrices have the same rows; columns < num_variables; codes are
// valid powers of two or index the table; densities have the variable counts as lengths. Throws
// PceError(kCorrupt) naming `what` (a file name or "compact R1CS") and the first problem found.
void validate(const CompactR1cs& pce, const std::string& what);

}  // namespace cuzk::pce
