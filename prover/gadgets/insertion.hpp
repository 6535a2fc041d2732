// rust-fil-proofs `storage-proofs-core/src/gadgets/insertion.rs`: insert an AllocatedNum into a list at
// the position given by little-endian index bits, with the hand-optimised cases for 2, 4 and 8 slots
// (2 / 8 / 22 constraints, one aux variable each) and the general select-based algorithm otherwise
// (size * (size - 1) constraints).
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "prover/gadgets/num.hpp"

namespace cuzk::gadgets {

// rfp `pick`: a if condition else b. alloc "pick result" c; (b - a) * condition = b - c.
template <class CS>
AllocatedNum pick(CS& cs, const Boolean& condition, const AllocatedNum& a, const AllocatedNum& b) {
  using LC = typename CS::LC;
  const bool take_a = condition.value();
  Variable c = cs.alloc("pick result", [&] { return take_a ? a.value() : b.value(); });
  cs.enforce("pick", LC(b.variable()).sub(a.variable()), condition.lc<LC>(), LC(b.variable()).sub(c));
  return AllocatedNum(c, CS::kHasValues ? (take_a ? a.value() : b.value()) : Fr::zero());
}

// rfp `select`: element `n` of `from` (from.size() == 2^bits.size()), bits least significant first; a
// binary tree of picks consuming the most significant bit first (namespaces "pick i, j").
template <class CS>
AllocatedNum select(CS& cs, std::span<const AllocatedNum> from, std::span<const Boolean> bits) {
  if (from.size() != (std::size_t{1} << bits.size())) throw std::invalid_argument("select: size != 2^bits");
  std::vector<AllocatedNum> state(from.begin(), from.end());
  std::size_t half = from.size() / 2;
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const Boolean& bit = bits[bits.size() - 1 - i];
    std::vector<AllocatedNum> next;
    next.reserve(half);
    for (std::size_t j = 0; j < half; ++j) {
      auto ns = cs.push_namespace([&] { return "pick " + std::to_string(i) + ", " + std::to_string(j); });
      next.push_back(pick(cs, bit, state[half + j], state[j]));
    }
    state = std::move(next);
    half /= 2;
  }
  return state[0];
}

namespace insertion_detail {

template <class CS>
AllocatedNum named_pick(CS& cs, const char* name, const Boolean& condition, const AllocatedNum& a,
                        const AllocatedNum& b) {
  auto ns = cs.push_namespace(name);
  return pick(cs, condition, a, b);
}

// The underlying allocated bit of an unnegated allocated Boolean (rfp panics otherwise).
inline const Boolean& require_allocated(const Boolean& b) {
  if (b.kind() != Boolean::Kind::kIs)
    throw std::invalid_argument("insert_8: bits must be allocated and unnegated");
  return b;
}

}  // namespace insertion_detail

// rfp insert_2: [pick(b0, elements[0], element), pick(b0, element, elements[0])].
template <class CS>
std::vector<AllocatedNum> insert_2(CS& cs, const AllocatedNum& element, std::span<const Boolean> bits,
                                   std::span<const AllocatedNum> elements) {
  using insertion_detail::named_pick;
  return {named_pick(cs, "binary insert 0", bits[0], elements[0], element),
          named_pick(cs, "binary insert 1", bits[0], element, elements[0])};
}

// rfp insert_4. Inserting a into [b, c, d]; p<pos>_<known bits> are the partial selections.
template <class CS>
std::vector<AllocatedNum> insert_4(CS& cs, const AllocatedNum& element, std::span<const Boolean> bits,
                                   std::span<const AllocatedNum> elements) {
  using insertion_detail::named_pick;
  const Boolean &b0 = bits[0], &b1 = bits[1];
  const AllocatedNum &a = element, &b = elements[0], &c = elements[1], &d = elements[2];
  AllocatedNum p0_x0 = named_pick(cs, "p0_x0", b0, b, a);
  AllocatedNum p0 = named_pick(cs, "p0", b1, b, p0_x0);
  AllocatedNum p1_x0 = named_pick(cs, "p1_x0", b0, a, b);
  AllocatedNum p1 = named_pick(cs, "p1", b1, c, p1_x0);
  AllocatedNum p2_x1 = named_pick(cs, "p2_x1", b0, d, a);
  AllocatedNum p2 = named_pick(cs, "p2", b1, p2_x1, c);
  AllocatedNum p3_x1 = named_pick(cs, "p3_x1", b0, a, d);
  AllocatedNum p3 = named_pick(cs, "p3", b1, p3_x1, d);
  return {p0, p1, p2, p3};
}

// rfp insert_8: first b0 NOR b1 and b0 AND b1 (one allocated bit each), then 20 picks.
template <class CS>
std::vector<AllocatedNum> insert_8(CS& cs, const AllocatedNum& element, std::span<const Boolean> bits,
                                   std::span<const AllocatedNum> elements) {
  using insertion_detail::named_pick;
  using insertion_detail::require_allocated;
  const Boolean &b0 = require_allocated(bits[0]), &b1 = require_allocated(bits[1]), &b2 = bits[2];
  const AllocatedNum &a = element, &b = elements[0], &c = elements[1], &d = elements[2], &e = elements[3],
                     &f = elements[4], &g = elements[5], &h = elements[6];
  Boolean b0_nor_b1, b0_and_b1;
  {
    auto ns = cs.push_namespace("b0 nor b1");
    b0_nor_b1 = AllocatedBit::nor(cs, b0.bit(), b1.bit());
  }
  {
    auto ns = cs.push_namespace("b0 and b1");
    b0_and_b1 = AllocatedBit::and_(cs, b0.bit(), b1.bit());
  }
  AllocatedNum p0_xx0 = named_pick(cs, "p0_xx0", b0_nor_b1, a, b);
  AllocatedNum p0 = named_pick(cs, "p0", b2, b, p0_xx0);

  AllocatedNum p1_x00 = named_pick(cs, "p1_x00", b0, a, b);
  AllocatedNum p1_xx0 = named_pick(cs, "p1_xx0", b1, c, p1_x00);
  AllocatedNum p1 = named_pick(cs, "p1", b2, c, p1_xx0);

  AllocatedNum p2_x10 = named_pick(cs, "p2_x10", b0, d, a);
  AllocatedNum p2_xx0 = named_pick(cs, "p2_xx0", b1, p2_x10, c);
  AllocatedNum p2 = named_pick(cs, "p2", b2, d, p2_xx0);

  AllocatedNum p3_xx0 = named_pick(cs, "p3_xx0", b0_and_b1, a, d);
  AllocatedNum p3 = named_pick(cs, "p3", b2, e, p3_xx0);

  AllocatedNum p4_xx1 = named_pick(cs, "p4_xx1", b0_nor_b1, a, f);
  AllocatedNum p4 = named_pick(cs, "p4", b2, p4_xx1, e);

  AllocatedNum p5_x01 = named_pick(cs, "p5_x01", b0, a, f);
  AllocatedNum p5_xx1 = named_pick(cs, "p5_xx1", b1, g, p5_x01);
  AllocatedNum p5 = named_pick(cs, "p5", b2, p5_xx1, f);

  AllocatedNum p6_x11 = named_pick(cs, "p6_x11", b0, h, a);
  AllocatedNum p6_xx1 = named_pick(cs, "p6_xx1", b1, p6_x11, g);
  AllocatedNum p6 = named_pick(cs, "p6", b2, p6_xx1, g);

  AllocatedNum p7_xx1 = named_pick(cs, "p7_xx1", b0_and_b1, a, h);
  AllocatedNum p7 = named_pick(cs, "p7", b2, p7_xx1, h);
  return {p0, p1, p2, p3, p4, p5, p6, p7};
}

// rfp `insert`: `element` placed after the n-th element of `elements` (n given by `bits`, LSB first);
// elements.size() + 1 == 2^bits.size().
template <class CS>
std::vector<AllocatedNum> insert(CS& cs, const AllocatedNum& element, std::span<const Boolean> bits,
                                 std::span<const AllocatedNum> elements) {
  const std::size_t size = elements.size() + 1;
  if (bits.size() >= 64 || (std::size_t{1} << bits.size()) != size) {
    throw std::invalid_argument("insert: elements + 1 must equal 2^bits");
  }
  if (size == 2) return insert_2(cs, element, bits, elements);
  if (size == 4) return insert_4(cs, element, bits, elements);
  if (size == 8) return insert_8(cs, element, bits, elements);
  // General case: for each position, select among its candidate values over all indices.
  std::vector<AllocatedNum> result;
  std::vector<AllocatedNum> choices(size);
  for (std::size_t pos = 0; pos < size; ++pos) {
    for (std::size_t index = 0; index < size; ++index) {
      choices[index] = pos < index ? elements[pos] : (pos == index ? element : elements[pos - 1]);
    }
    auto ns = cs.push_namespace([&] { return "choice at " + std::to_string(pos); });
    result.push_back(select(cs, std::span<const AllocatedNum>(choices), bits));
  }
  return result;
}

}  // namespace cuzk::gadgets
