// SHA-256 circuit: bellpepper `gadgets/sha256.rs` (docs/circuit.md §8.1), and the rust-fil-proofs
// `Sha256Function` circuits built on it (filecoin-hashers/src/sha256.rs).
//
// Bits are in SHA-256 message order: bit 8k + j is bit 7 - j (MSB first) of message byte k. The output is
// the digest in the same order (each 32-bit word most significant bit first).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "prover/gadgets/multipack.hpp"
#include "prover/gadgets/num.hpp"
#include "prover/gadgets/sha256_words.hpp"
#include "prover/gadgets/uint32.hpp"

namespace cuzk::gadgets {

// FIPS 180-4 §4.2.2 round constants K and §5.3.3 initial hash value H(0).
inline constexpr std::array<std::uint32_t, 64> kSha256RoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
inline constexpr std::array<std::uint32_t, 8> kSha256Iv = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

using Sha256State = std::array<UInt32, 8>;

inline Sha256State sha256_iv() {
  Sha256State iv;
  for (int i = 0; i < 8; ++i) iv[i] = UInt32::constant(kSha256Iv[i]);
  return iv;
}

namespace detail {

// bellpepper's Maybe: a concrete word, or a list of words whose sum is deferred.
struct MaybeUInt32 {
  const UInt32* concrete = nullptr;
  const UInt32* deferred[10];
  std::size_t count = 0;
};

// The working variables a..h between compression rounds; a and e are deferred sums after a round.
struct Sha256WorkingVars {
  MaybeUInt32 a, e;
  const UInt32* b;
  const UInt32* c;
  const UInt32* d;
  const UInt32* f;
  const UInt32* g;
  const UInt32* h;
};

// The helpers below append every UInt32 they produce to `store`, whose capacity the caller reserves up
// front, so the pointers into it stay valid.

// bellpepper's Maybe::compute: the concrete word, or the deferred list (plus `extra`) summed under `name`.
template <class CS>
const UInt32* compute_maybe(CS& cs, MultiEq<CS>& multi_eq, std::vector<UInt32>& store, MaybeUInt32& m,
                            const UInt32* extra, const char* name) {
  if (m.concrete != nullptr) return m.concrete;
  if (extra != nullptr) m.deferred[m.count++] = extra;
  auto ns = cs.push_namespace(name);
  store.push_back(UInt32::addmany(multi_eq, std::span<const UInt32* const>(m.deferred, m.count)));
  return &store.back();
}

// The message schedule: w[0..15] point at the 16 input words (store[0..15]), w[16..63] at their
// extensions ("w extension i").
template <class CS>
void sha256_message_schedule(CS& cs, MultiEq<CS>& multi_eq, std::vector<UInt32>& store,
                             const UInt32* (&w)[64]) {
  for (int i = 0; i < 16; ++i) w[i] = &store[i];
  for (int i = 16; i < 64; ++i) {
    auto ns = cs.push_namespace([&] { return "w extension " + std::to_string(i); });
    UInt32 s0 = w[i - 15]->rotr(7);
    {
      auto ns1 = cs.push_namespace("first xor for s0");
      s0 = UInt32::xor_(cs, s0, w[i - 15]->rotr(18));
    }
    {
      auto ns1 = cs.push_namespace("second xor for s0");
      s0 = UInt32::xor_(cs, s0, w[i - 15]->shr(3));
    }
    UInt32 s1 = w[i - 2]->rotr(17);
    {
      auto ns1 = cs.push_namespace("first xor for s1");
      s1 = UInt32::xor_(cs, s1, w[i - 2]->rotr(19));
    }
    {
      auto ns1 = cs.push_namespace("second xor for s1");
      s1 = UInt32::xor_(cs, s1, w[i - 2]->shr(10));
    }
    auto ns1 = cs.push_namespace("computation of w[i]");
    store.push_back(UInt32::addmany(multi_eq, {w[i - 16], &s0, w[i - 7], &s1}));
    w[i] = &store.back();
  }
}

// Compression round i ("compression round i"): S1, ch, S0 and maj, then the working variables shifted,
// with the new a and e left as deferred sums. `round_constant` is the caller's slot for K_i, which
// outlives the round because the deferred lists point at it.
template <class CS>
void sha256_compression_round(CS& cs, MultiEq<CS>& multi_eq, std::vector<UInt32>& store,
                              Sha256WorkingVars& vars, int i, UInt32& round_constant, const UInt32* w_i) {
  auto ns = cs.push_namespace([&] { return "compression round " + std::to_string(i); });
  const UInt32* new_e = compute_maybe(cs, multi_eq, store, vars.e, nullptr, "deferred e computation");
  UInt32 s1 = new_e->rotr(6);
  {
    auto ns1 = cs.push_namespace("first xor for s1");
    s1 = UInt32::xor_(cs, s1, new_e->rotr(11));
  }
  {
    auto ns1 = cs.push_namespace("second xor for s1");
    store.push_back(UInt32::xor_(cs, s1, new_e->rotr(25)));
  }
  const UInt32* s1_ptr = &store.back();
  {
    auto ns1 = cs.push_namespace("ch");
    store.push_back(UInt32::sha256_ch(cs, *new_e, *vars.f, *vars.g));
  }
  const UInt32* ch_ptr = &store.back();
  round_constant = UInt32::constant(kSha256RoundConstants[i]);

  const UInt32* new_a = compute_maybe(cs, multi_eq, store, vars.a, nullptr, "deferred a computation");
  UInt32 s0 = new_a->rotr(2);
  {
    auto ns1 = cs.push_namespace("first xor for s0");
    s0 = UInt32::xor_(cs, s0, new_a->rotr(13));
  }
  {
    auto ns1 = cs.push_namespace("second xor for s0");
    store.push_back(UInt32::xor_(cs, s0, new_a->rotr(22)));
  }
  const UInt32* s0_ptr = &store.back();
  {
    auto ns1 = cs.push_namespace("maj");
    store.push_back(UInt32::sha256_maj(cs, *new_a, *vars.b, *vars.c));
  }
  const UInt32* maj_ptr = &store.back();

  // temp1 = [h, S1, ch, K_i, w_i]; e = temp1 ++ [d]; a = temp1 ++ [S0, maj].
  const UInt32* temp1[5] = {vars.h, s1_ptr, ch_ptr, &round_constant, w_i};
  vars.h = vars.g;
  vars.g = vars.f;
  vars.f = new_e;
  vars.e = MaybeUInt32{};
  for (const UInt32* t : temp1) vars.e.deferred[vars.e.count++] = t;
  vars.e.deferred[vars.e.count++] = vars.d;
  vars.d = vars.c;
  vars.c = vars.b;
  vars.b = new_a;
  vars.a = MaybeUInt32{};
  for (const UInt32* t : temp1) vars.a.deferred[vars.a.count++] = t;
  vars.a.deferred[vars.a.count++] = s0_ptr;
  vars.a.deferred[vars.a.count++] = maj_ptr;
}

// The new state: each word of `current` plus its working variable after the last round.
template <class CS>
Sha256State sha256_compression_output(CS& cs, MultiEq<CS>& multi_eq, std::vector<UInt32>& store,
                                      Sha256WorkingVars& vars, const Sha256State& current) {
  Sha256State out;
  out[0] = *compute_maybe(cs, multi_eq, store, vars.a, &current[0], "deferred h0 computation");
  auto add2 = [&](const char* name, const UInt32& x, const UInt32* y) {
    auto ns = cs.push_namespace(name);
    return UInt32::addmany(multi_eq, {&x, y});
  };
  out[1] = add2("new h1", current[1], vars.b);
  out[2] = add2("new h2", current[2], vars.c);
  out[3] = add2("new h3", current[3], vars.d);
  out[4] = *compute_maybe(cs, multi_eq, store, vars.e, &current[4], "deferred h4 computation");
  out[5] = add2("new h5", current[5], vars.f);
  out[6] = add2("new h6", current[6], vars.g);
  out[7] = add2("new h7", current[7], vars.h);
  return out;
}

// bellpepper's sha256_compression_function, Boolean by Boolean (the systems that record constraints).
template <class CS>
Sha256State sha256_compression_booleans(CS& cs, std::span<const Boolean> input, const Sha256State& current) {
  // Every UInt32 the rounds produce lives here (the state and the deferred addition lists point into
  // it), so rounds shift pointers instead of copying 32-bit words of Booleans.
  std::vector<UInt32> store;
  store.reserve(64 + 64 * 7 + 8);
  for (int i = 0; i < 16; ++i) store.push_back(UInt32::from_bits_be(input.subspan(32 * i, 32)));

  MultiEq<CS> multi_eq(cs);
  const UInt32* w[64];
  sha256_message_schedule(cs, multi_eq, store, w);

  UInt32 round_constants[64];
  Sha256WorkingVars vars;
  vars.a.concrete = &current[0];
  vars.e.concrete = &current[4];
  vars.b = &current[1];
  vars.c = &current[2];
  vars.d = &current[3];
  vars.f = &current[5];
  vars.g = &current[6];
  vars.h = &current[7];
  for (int i = 0; i < 64; ++i)
    sha256_compression_round(cs, multi_eq, store, vars, i, round_constants[i], w[i]);

  // multi_eq's destructor emits its last constraint after the output's additions.
  return sha256_compression_output(cs, multi_eq, store, vars, current);
}

}  // namespace detail

// One compression of a 512-bit block. Owns one MultiEq for the whole call (emitted at the end).
// Systems that record no constraints take the word-level path of sha256_words.hpp, which allocates the
// same variables with the same values in the same order and counts the same constraints.
template <class CS>
Sha256State sha256_compression_function(CS& cs, std::span<const Boolean> input, const Sha256State& current) {
  if (input.size() != 512) throw r1cs::ConstraintSystemError("sha256_compression_function: 512 bits");
  if constexpr (CS::kRecordsConstraints) {
    return detail::sha256_compression_booleans(cs, input, current);
  } else {
    return detail::sha256_compression_words(cs, input, current, kSha256RoundConstants);
  }
}

// The state as 256 bits, each word most significant bit first (into_bits_be of each word).
inline std::vector<Boolean> sha256_state_bits(const Sha256State& state) {
  std::vector<Boolean> out;
  out.reserve(256);
  for (const UInt32& word : state) word.append_bits_be(out);
  return out;
}

// bellpepper sha256_block_no_padding: one compression from the IV.
template <class CS>
std::vector<Boolean> sha256_block_no_padding(CS& cs, std::span<const Boolean> input) {
  return sha256_state_bits(sha256_compression_function(cs, input, sha256_iv()));
}

// bellpepper sha256: pad with a 1 bit, zeros and the 64-bit big-endian bit length (all constants), then
// compress each block (namespaces "block i") starting from the IV.
template <class CS>
std::vector<Boolean> sha256(CS& cs, std::span<const Boolean> input) {
  if (input.size() % 8 != 0) throw r1cs::ConstraintSystemError("sha256: input must be whole bytes");
  std::vector<Boolean> padded(input.begin(), input.end());
  const std::uint64_t length = input.size();
  padded.push_back(Boolean::constant(true));
  while ((padded.size() + 64) % 512 != 0) padded.push_back(Boolean::constant(false));
  for (int i = 63; i >= 0; --i) padded.push_back(Boolean::constant(((length >> i) & 1) != 0));

  Sha256State cur = sha256_iv();
  for (std::size_t block = 0; block * 512 < padded.size(); ++block) {
    auto ns = cs.push_namespace([&] { return "block " + std::to_string(block); });
    cur = sha256_compression_function(cs, std::span<const Boolean>(padded).subspan(block * 512, 512), cur);
  }
  return sha256_state_bits(cur);
}

// --- rust-fil-proofs Sha256Function circuits (filecoin-hashers/src/sha256.rs) ----------------------------

// hash_circuit: sha256 (namespace "hash"), reverse the bits within each byte, take the first 254 bits
// and pack_bits them (namespace "pack_le"). The value is the digest read as a little-endian integer with
// its top two bits cleared (= native sha256 with byte 31 &= 0x3f).
template <class CS>
AllocatedNum sha256_hash_circuit(CS& cs, std::span<const Boolean> bits) {
  std::vector<Boolean> be;
  {
    auto ns = cs.push_namespace("hash");
    be = sha256(cs, bits);
  }
  std::vector<Boolean> le = reverse_bit_numbering(be);
  le.resize(kFrCapacity);
  auto ns = cs.push_namespace("pack_le");
  return pack_bits(cs, le);
}

// Appends reverse_bit_numbering(bits) (pads to whole bytes with Constant(false), MSB-first per byte).
inline void append_bytes_msb_first(std::vector<Boolean>& out, std::span<const Boolean> le_bits) {
  std::vector<Boolean> reversed = reverse_bit_numbering(le_bits);
  out.insert(out.end(), reversed.begin(), reversed.end());
}

// hash_leaf_bits_circuit(left, right): both halves byte-reversed and concatenated, then hash_circuit.
template <class CS>
AllocatedNum sha256_hash_leaf_bits_circuit(CS& cs, std::span<const Boolean> left,
                                           std::span<const Boolean> right) {
  std::vector<Boolean> preimage;
  append_bytes_msb_first(preimage, left);
  append_bytes_msb_first(preimage, right);
  return sha256_hash_circuit(cs, preimage);
}

// hash_multi_leaf_circuit(leaves): to_bits_le of each leaf (namespace "i_num_into_bits"), byte-reversed,
// concatenated, then hash_circuit.
template <class CS>
AllocatedNum sha256_hash_multi_leaf_circuit(CS& cs, std::span<const AllocatedNum> leaves) {
  std::vector<Boolean> preimage;
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    std::vector<Boolean> bits;
    {
      auto ns = cs.push_namespace([&] { return std::to_string(i) + "_num_into_bits"; });
      bits = leaves[i].to_bits_le(cs);
    }
    append_bytes_msb_first(preimage, bits);
  }
  return sha256_hash_circuit(cs, preimage);
}

// hash2_circuit(a, b): to_bits_le of each (namespaces "a_bits", "b_bits"), byte-reversed, then hash_circuit.
template <class CS>
AllocatedNum sha256_hash2_circuit(CS& cs, const AllocatedNum& a, const AllocatedNum& b) {
  std::vector<Boolean> a_bits, b_bits;
  {
    auto ns = cs.push_namespace("a_bits");
    a_bits = a.to_bits_le(cs);
  }
  {
    auto ns = cs.push_namespace("b_bits");
    b_bits = b.to_bits_le(cs);
  }
  std::vector<Boolean> preimage;
  append_bytes_msb_first(preimage, a_bits);
  append_bytes_msb_first(preimage, b_bits);
  return sha256_hash_circuit(cs, preimage);
}

}  // namespace cuzk::gadgets
