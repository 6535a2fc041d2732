// Word-level SHA-256 compression for the constraint systems that record no constraints (WitnessGen,
// Counter). It allocates the same aux variables, with the same values, in the same order as the
// Boolean-by-Boolean gadget of sha256.hpp, and counts the same constraints (tests compare the two), but
// treats a 32-bit word of Booleans as three masks, so the constant folding of docs/circuit.md §8.1 costs a few
// bitwise operations per word instead of a branchy case analysis per bit.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "prover/gadgets/multieq.hpp"
#include "prover/gadgets/uint32.hpp"

namespace cuzk::gadgets::detail {

// Bit i of a word is a Boolean: Constant (constant bit set, value = under), Is (under = the allocated bit's
// value) or Not (negated bit set, value = !under). negated is always a subset of ~constant.
struct PackedWord {
  std::uint32_t under = 0;
  std::uint32_t constant = 0xffffffffu;
  std::uint32_t negated = 0;

  std::uint32_t value() const { return under ^ negated; }
  static PackedWord constant_word(std::uint32_t v) { return {v, 0xffffffffu, 0}; }
};

// One result plus the bits whose computation allocated a variable (holding `under` of that bit).
struct WordResult {
  PackedWord word;
  std::uint32_t allocated = 0;
};

inline std::uint32_t rotr32(std::uint32_t x, int k) {
  return k == 0 ? x : (x >> k) | (x << (32 - k));
}

inline PackedWord rotr(const PackedWord& w, int k) {
  return {rotr32(w.under, k), rotr32(w.constant, k), rotr32(w.negated, k)};
}
inline PackedWord shr(const PackedWord& w, int k) {  // 0 < k < 32: Constant(false) shifted in
  return {w.under >> k, (w.constant >> k) | (0xffffffffu << (32 - k)), w.negated >> k};
}
inline PackedWord not_word(const PackedWord& w) {
  return {w.under ^ w.constant, w.constant, w.negated ^ ~w.constant};
}

inline PackedWord select(std::uint32_t mask, const PackedWord& x, const PackedWord& acc) {
  return {(x.under & mask) | (acc.under & ~mask), (x.constant & mask) | (acc.constant & ~mask),
          (x.negated & mask) | (acc.negated & ~mask)};
}

// Boolean::xor per bit: a constant operand folds (false -> the other, true -> its negation); two
// allocated operands allocate one bit whose kind is Is when their kinds agree, Not otherwise.
inline WordResult xor_words(const PackedWord& a, const PackedWord& b) {
  std::uint32_t constant = a.constant & b.constant;
  std::uint32_t negated =
      ~constant & (a.negated ^ b.negated ^ (a.constant & a.under) ^ (b.constant & b.under));
  std::uint32_t value = a.value() ^ b.value();
  return {{value ^ negated, constant, negated}, ~a.constant & ~b.constant};
}

// Boolean::and per bit: false folds to false, true to the other operand; two allocated operands allocate
// one bit (and, and_not or nor), of kind Is.
inline WordResult and_words(const PackedWord& a, const PackedWord& b) {
  std::uint32_t is_false = (a.constant & ~a.under) | (b.constant & ~b.under);
  std::uint32_t constant = is_false | (a.constant & b.constant);
  std::uint32_t negated = ~constant & ((a.constant & b.negated) | (b.constant & a.negated));
  std::uint32_t value = a.value() & b.value();
  return {{value ^ negated, constant, negated}, ~a.constant & ~b.constant};
}

inline WordResult not_result(const WordResult& r) {
  return {not_word(r.word), r.allocated};
}

// Boolean::sha256_ch per bit, cases in bellpepper's order (docs/circuit.md §8.1). At most one allocation per bit.
inline WordResult ch_words(const PackedWord& a, const PackedWord& b, const PackedWord& c) {
  std::uint32_t va = a.value(), vb = b.value(), vc = c.value();
  std::uint32_t ch = (va & vb) ^ (~va & vc);
  std::uint32_t all = a.constant & b.constant & c.constant;
  std::uint32_t rest = ~all;
  std::uint32_t m2 = rest & a.constant & ~a.under;  // a false -> c
  rest &= ~m2;
  std::uint32_t m3 = rest & b.constant & ~b.under;  // b false -> and(not a, c)
  rest &= ~m3;
  std::uint32_t m4 = rest & c.constant & ~c.under;  // c false -> and(a, b)
  rest &= ~m4;
  std::uint32_t m5 = rest & c.constant & c.under;  // c true -> not(and(a, not b))
  rest &= ~m5;
  std::uint32_t m6 = rest & b.constant & b.under;  // b true -> not(and(not a, not c))
  std::uint32_t m7 = rest & ~m6;                   // generic: alloc ch (Is)

  WordResult r{PackedWord::constant_word(ch), m7};
  r.word = select(m7, PackedWord{ch, 0, 0}, r.word);
  r.word = select(m2, c, r.word);
  auto merge = [&](std::uint32_t mask, const WordResult& x) {
    r.word = select(mask, x.word, r.word);
    r.allocated |= mask & x.allocated;
  };
  if (m3) merge(m3, and_words(not_word(a), c));
  if (m4) merge(m4, and_words(a, b));
  if (m5) merge(m5, not_result(and_words(a, not_word(b))));
  if (m6) merge(m6, not_result(and_words(not_word(a), not_word(c))));
  return r;
}

// Boolean::sha256_maj per bit. `generic` marks the bits that allocate two variables (maj, then b AND c,
// whose values are in `bc`); the other allocating bits allocate one.
struct MajResult {
  WordResult result;
  std::uint32_t generic = 0;
  std::uint32_t bc = 0;
};
inline MajResult maj_words(const PackedWord& a, const PackedWord& b, const PackedWord& c) {
  std::uint32_t va = a.value(), vb = b.value(), vc = c.value();
  std::uint32_t maj = (va & vb) ^ (va & vc) ^ (vb & vc);
  std::uint32_t all = a.constant & b.constant & c.constant;
  std::uint32_t rest = ~all;
  std::uint32_t m2 = rest & a.constant & ~a.under;  // a false -> and(b, c)
  rest &= ~m2;
  std::uint32_t m3 = rest & b.constant & ~b.under;  // b false -> and(a, c)
  rest &= ~m3;
  std::uint32_t m4 = rest & c.constant & ~c.under;  // c false -> and(a, b)
  rest &= ~m4;
  std::uint32_t m5 = rest & c.constant & c.under;  // c true -> not(and(not a, not b))
  rest &= ~m5;
  std::uint32_t m6 = rest & b.constant & b.under;  // b true -> not(and(not a, not c))
  rest &= ~m6;
  std::uint32_t m7 = rest & a.constant & a.under;  // a true -> not(and(not b, not c))
  std::uint32_t m8 = rest & ~m7;                   // generic: alloc maj (Is), then b AND c

  MajResult out;
  WordResult& r = out.result;
  r = {PackedWord::constant_word(maj), m8};
  r.word = select(m8, PackedWord{maj, 0, 0}, r.word);
  auto merge = [&](std::uint32_t mask, const WordResult& x) {
    r.word = select(mask, x.word, r.word);
    r.allocated |= mask & x.allocated;
  };
  if (m2) merge(m2, and_words(b, c));
  if (m3) merge(m3, and_words(a, c));
  if (m4) merge(m4, and_words(a, b));
  if (m5) merge(m5, not_result(and_words(not_word(a), not_word(b))));
  if (m6) merge(m6, not_result(and_words(not_word(a), not_word(c))));
  if (m7) merge(m7, not_result(and_words(not_word(b), not_word(c))));
  out.generic = m8;
  out.bc = vb & vc;
  return out;
}

// Allocates the variables of a one-allocation-per-bit word operation (one constraint each).
template <class CS>
void emit(CS& cs, const WordResult& r) {
  cs.alloc_bits(r.allocated, r.word.under);
  cs.add_constraints(static_cast<std::size_t>(__builtin_popcount(r.allocated)));
}

template <class CS>
PackedWord xor_emit(CS& cs, const PackedWord& a, const PackedWord& b) {
  WordResult r = xor_words(a, b);
  emit(cs, r);
  return r.word;
}

template <class CS>
PackedWord maj_emit(CS& cs, const PackedWord& a, const PackedWord& b, const PackedWord& c) {
  MajResult m = maj_words(a, b, c);
  if (m.generic == 0) {
    emit(cs, m.result);
  } else {
    // Bit order: a generic bit allocates maj then bc; other allocating bits one variable.
    std::uint32_t mask = m.result.allocated;
    while (mask != 0) {
      std::uint32_t bit = mask & (~mask + 1);
      cs.alloc_bits(bit, m.result.word.under);
      if (m.generic & bit) cs.alloc_bits(bit, m.bc);
      mask &= mask - 1;
    }
    cs.add_constraints(
        static_cast<std::size_t>(__builtin_popcount(m.result.allocated) + __builtin_popcount(m.generic)));
  }
  return m.result.word;
}

// UInt32::addmany: all-constant operands fold; otherwise L result bits (booleanity constraints), then the
// MultiEq equality.
template <class CS>
PackedWord addmany_emit(MultiEq<CS>& multi_eq, std::span<const PackedWord* const> operands) {
  std::uint64_t sum = 0;
  std::uint32_t constant = 0xffffffffu;
  for (const PackedWord* op : operands) {
    sum += op->value();
    constant &= op->constant;
  }
  if (constant == 0xffffffffu) return PackedWord::constant_word(static_cast<std::uint32_t>(sum));
  std::uint64_t max_value = operands.size() * std::uint64_t{0xffffffff};
  int num_bits = 64 - __builtin_clzll(max_value);
  CS& cs = multi_eq.cs();
  cs.alloc_bits(0xffffffffu, static_cast<std::uint32_t>(sum));
  cs.alloc_bits((1u << (num_bits - 32)) - 1, static_cast<std::uint32_t>(sum >> 32));
  cs.add_constraints(static_cast<std::size_t>(num_bits));
  multi_eq.enforce_equal(static_cast<std::size_t>(num_bits), typename CS::LC(), typename CS::LC());
  return {static_cast<std::uint32_t>(sum), 0, 0};
}

inline PackedWord pack(const UInt32& x) {
  PackedWord w{0, 0, 0};
  for (int i = 0; i < 32; ++i) {
    const Boolean& b = x.bits[i];
    std::uint32_t bit = 1u << i;
    if (b.is_constant()) w.constant |= bit;
    if (b.kind() == Boolean::Kind::kNot) w.negated |= bit;
    if (b.value() != (b.kind() == Boolean::Kind::kNot)) w.under |= bit;
  }
  return w;
}

// Back to Booleans. The systems this serves do not use variables, so allocated bits get a placeholder.
inline UInt32 unpack(const PackedWord& w) {
  constexpr Variable kPlaceholder = Variable::aux(0x7fffffff);
  UInt32 r;
  for (int i = 0; i < 32; ++i) {
    bool under = (w.under >> i) & 1;
    if ((w.constant >> i) & 1) {
      r.bits[i] = Boolean::constant(under);
    } else {
      Boolean b = AllocatedBit(kPlaceholder, under);
      r.bits[i] = ((w.negated >> i) & 1) ? b.not_() : b;
    }
  }
  r.value = w.value();
  return r;
}

// The 16 message words of a 512-bit block into w[0..15] (UInt32::from_bits_be of each 32 bits).
inline void pack_message_words(std::span<const Boolean> input, PackedWord (&w)[64]) {
  for (int i = 0; i < 16; ++i) {
    w[i] = PackedWord{0, 0, 0};
    for (int j = 0; j < 32; ++j) {  // from_bits_be: the first bit is the most significant
      const Boolean& b = input[32 * i + j];
      std::uint32_t bit = 1u << (31 - j);
      if (b.is_constant()) w[i].constant |= bit;
      if (b.kind() == Boolean::Kind::kNot) w[i].negated |= bit;
      if (b.value() != (b.kind() == Boolean::Kind::kNot)) w[i].under |= bit;
    }
  }
}

// The message schedule's extension w[16..63], allocating as the generic gadget's "w extension i" does.
template <class CS>
void extend_message_words(CS& cs, MultiEq<CS>& multi_eq, PackedWord (&w)[64]) {
  for (int i = 16; i < 64; ++i) {
    PackedWord s0 = xor_emit(cs, rotr(w[i - 15], 7), rotr(w[i - 15], 18));
    s0 = xor_emit(cs, s0, shr(w[i - 15], 3));
    PackedWord s1 = xor_emit(cs, rotr(w[i - 2], 17), rotr(w[i - 2], 19));
    s1 = xor_emit(cs, s1, shr(w[i - 2], 10));
    const PackedWord* ops[4] = {&w[i - 16], &s0, &w[i - 7], &s1};
    w[i] = addmany_emit(multi_eq, std::span<const PackedWord* const>(ops, 4));
  }
}

// sha256_compression_function for systems without constraints; same allocation order as the generic one.
template <class CS>
std::array<UInt32, 8> sha256_compression_words(CS& cs, std::span<const Boolean> input,
                                               const std::array<UInt32, 8>& current,
                                               const std::array<std::uint32_t, 64>& round_constants) {
  PackedWord w[64];
  pack_message_words(input, w);
  PackedWord h0[8];
  for (int i = 0; i < 8; ++i) h0[i] = pack(current[i]);

  MultiEq<CS> multi_eq(cs);
  extend_message_words(cs, multi_eq, w);

  // Deferred sums: the round's temporaries live in per-round slots so the lists can point at them.
  struct Deferred {
    const PackedWord* ops[10];
    std::size_t count = 0;
    bool concrete = false;
    PackedWord value;
  };
  auto compute = [&](Deferred& d, const PackedWord* extra) -> PackedWord {
    if (d.concrete) return d.value;
    if (extra != nullptr) d.ops[d.count++] = extra;
    return addmany_emit(multi_eq, std::span<const PackedWord* const>(d.ops, d.count));
  };
  struct RoundWords {
    PackedWord s1, ch, k, s0, maj;
  };
  RoundWords rounds[64];
  // State words that later lists point at: index 0..7 = current, then two per round (new e, new a).
  PackedWord state_words[8 + 2 * 64];
  for (int i = 0; i < 8; ++i) state_words[i] = h0[i];
  Deferred a, e;
  a.concrete = true;
  a.value = h0[0];
  e.concrete = true;
  e.value = h0[4];
  const PackedWord* b = &state_words[1];
  const PackedWord* c = &state_words[2];
  const PackedWord* d = &state_words[3];
  const PackedWord* f = &state_words[5];
  const PackedWord* g = &state_words[6];
  const PackedWord* h = &state_words[7];

  for (int i = 0; i < 64; ++i) {
    RoundWords& rw = rounds[i];
    PackedWord& new_e = state_words[8 + 2 * i];
    PackedWord& new_a = state_words[9 + 2 * i];
    new_e = compute(e, nullptr);
    rw.s1 = xor_emit(cs, xor_emit(cs, rotr(new_e, 6), rotr(new_e, 11)), rotr(new_e, 25));
    WordResult ch = ch_words(new_e, *f, *g);
    emit(cs, ch);
    rw.ch = ch.word;
    rw.k = PackedWord::constant_word(round_constants[i]);
    new_a = compute(a, nullptr);
    rw.s0 = xor_emit(cs, xor_emit(cs, rotr(new_a, 2), rotr(new_a, 13)), rotr(new_a, 22));
    rw.maj = maj_emit(cs, new_a, *b, *c);

    const PackedWord* temp1[5] = {h, &rw.s1, &rw.ch, &rw.k, &w[i]};
    h = g;
    g = f;
    f = &new_e;
    e = Deferred{};
    for (const PackedWord* t : temp1) e.ops[e.count++] = t;
    e.ops[e.count++] = d;
    d = c;
    c = b;
    b = &new_a;
    a = Deferred{};
    for (const PackedWord* t : temp1) a.ops[a.count++] = t;
    a.ops[a.count++] = &rw.s0;
    a.ops[a.count++] = &rw.maj;
  }

  std::array<UInt32, 8> out;
  auto add2 = [&](const PackedWord& x, const PackedWord* y) {
    const PackedWord* ops[2] = {&x, y};
    return addmany_emit(multi_eq, std::span<const PackedWord* const>(ops, 2));
  };
  out[0] = unpack(compute(a, &h0[0]));
  out[1] = unpack(add2(h0[1], b));
  out[2] = unpack(add2(h0[2], c));
  out[3] = unpack(add2(h0[3], d));
  out[4] = unpack(compute(e, &h0[4]));
  out[5] = unpack(add2(h0[5], f));
  out[6] = unpack(add2(h0[6], g));
  out[7] = unpack(add2(h0[7], h));
  return out;  // multi_eq's destructor counts its last constraint
}

}  // namespace cuzk::gadgets::detail
