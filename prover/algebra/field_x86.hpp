// x86-64 fast paths for Montgomery multiplication with 4 and 6 limbs (Fr and Fp of BLS12-381), and
// branch-free modular addition/subtraction, used by MontField when the compiler targets ADX/BMI2.
//
// The multiplication is CIOS (Koc, Acar, Kaliski 1996) in the "no final carry" form: it requires the
// top limb of the modulus to be below 2^63 - 1, so that every intermediate sum fits in N + 1 limbs
// (true for both BLS12-381 moduli). Each row runs two independent carry chains, adcx (CF) and adox
// (OF), over mulx products, as in Intel's "New Instructions Supporting Large Integer Arithmetic"
// white paper (Gopal et al., 2012). The accumulator lives in N + 1 registers whose roles rotate by one
// after each reduction step, so no limb is ever moved.
#pragma once

// Only in optimized builds: at -O0 GCC gives every memory operand its own address register and runs out.
#if defined(__x86_64__) && defined(__ADX__) && defined(__BMI2__) && defined(__OPTIMIZE__) && \
    !defined(__CUDA_ARCH__)
#define CUZK_FIELD_X86_ASM 1

#include <cstdint>

namespace cuzk::algebra::x86 {

using u64 = std::uint64_t;

// Hand-laid-out asm: one instruction per line, macro continuations aligned.
// clang-format off

// ---------------------------------------------------------------------------------------------------
// Building blocks (operands are named registers of the asm statements below).
// Row: T0..T(N-1) += a * rdx, with the top product limb landing in the fresh register TN.
// Reduce: m = T0 * inv; T0..TN += m * p, after which T0 == 0 and the accumulator is T1..TN.

#define CUZK_R(x) "%[" x "]"
#define CUZK_MAC(aoff, lo_into, hi_into)   \
  "mulxq " aoff "(%[a]), %[lo], %[hi]\n\t" \
  "adoxq %[lo], " CUZK_R(lo_into) "\n\t"   \
  "adcxq %[hi], " CUZK_R(hi_into) "\n\t"
#define CUZK_RED(pk, lo_into, hi_into)     \
  "mulxq " CUZK_R(pk) ", %[lo], %[hi]\n\t" \
  "adoxq %[lo], " CUZK_R(lo_into) "\n\t"   \
  "adcxq %[hi], " CUZK_R(hi_into) "\n\t"

// ---- 6 limbs ----
#define CUZK_FIRST_ROW6              \
  "movq 0(%[b]), %%rdx\n\t"          \
  "xorl %k[lo], %k[lo]\n\t"          \
  "mulxq 0(%[a]), %[r0], %[r1]\n\t"  \
  "mulxq 8(%[a]), %[lo], %[r2]\n\t"  \
  "adcxq %[lo], %[r1]\n\t"           \
  "mulxq 16(%[a]), %[lo], %[r3]\n\t" \
  "adcxq %[lo], %[r2]\n\t"           \
  "mulxq 24(%[a]), %[lo], %[r4]\n\t" \
  "adcxq %[lo], %[r3]\n\t"           \
  "mulxq 32(%[a]), %[lo], %[r5]\n\t" \
  "adcxq %[lo], %[r4]\n\t"           \
  "mulxq 40(%[a]), %[lo], %[r6]\n\t" \
  "adcxq %[lo], %[r5]\n\t"           \
  "movl $0, %k[lo]\n\t"              \
  "adcxq %[lo], %[r6]\n\t"

#define CUZK_ROW6(boff, T0, T1, T2, T3, T4, T5, T6) \
  "movq " boff "(%[b]), %%rdx\n\t"                  \
  "xorl %k[lo], %k[lo]\n\t"                         \
  CUZK_MAC("0", T0, T1)                             \
  CUZK_MAC("8", T1, T2)                             \
  CUZK_MAC("16", T2, T3)                            \
  CUZK_MAC("24", T3, T4)                            \
  CUZK_MAC("32", T4, T5)                            \
  "mulxq 40(%[a]), %[lo], " CUZK_R(T6) "\n\t"       \
  "adoxq %[lo], " CUZK_R(T5) "\n\t"                 \
  "movl $0, %k[lo]\n\t"                             \
  "adcxq %[lo], " CUZK_R(T6) "\n\t"                 \
  "adoxq %[lo], " CUZK_R(T6) "\n\t"

#define CUZK_REDUCE6(T0, T1, T2, T3, T4, T5, T6) \
  "movq " CUZK_R(T0) ", %%rdx\n\t"               \
  "imulq %[inv], %%rdx\n\t"                      \
  "xorl %k[lo], %k[lo]\n\t"                      \
  CUZK_RED("p0", T0, T1)                         \
  CUZK_RED("p1", T1, T2)                         \
  CUZK_RED("p2", T2, T3)                         \
  CUZK_RED("p3", T3, T4)                         \
  CUZK_RED("p4", T4, T5)                         \
  CUZK_RED("p5", T5, T6)                         \
  "movl $0, %k[lo]\n\t"                          \
  "adoxq %[lo], " CUZK_R(T6) "\n\t"

// Results are stored by the asm itself (one memory operand per limb): stores written in C++ after the
// asm get merged by GCC's SLP vectorizer into vector inserts, which costs more than the addition.
#define CUZK_OUT6(x) \
  [o0] "=m"(x[0]), [o1] "=m"(x[1]), [o2] "=m"(x[2]), [o3] "=m"(x[3]), [o4] "=m"(x[4]), [o5] "=m"(x[5])
#define CUZK_OUT4(x) [o0] "=m"(x[0]), [o1] "=m"(x[1]), [o2] "=m"(x[2]), [o3] "=m"(x[3])
#define CUZK_MOD6(p) \
  [p0] "m"(p[0]), [p1] "m"(p[1]), [p2] "m"(p[2]), [p3] "m"(p[3]), [p4] "m"(p[4]), [p5] "m"(p[5])
#define CUZK_MOD4(p) [p0] "m"(p[0]), [p1] "m"(p[1]), [p2] "m"(p[2]), [p3] "m"(p[3])
#define CUZK_IN(ptr, n) "m"(*reinterpret_cast<const u64(*)[n]>(ptr))

// Reduces the 6 registers T0..T5 (low limb first) from [0, 2p) to [0, p) in place: subtract p, then
// add it back when that borrowed. `test` leaves ZF = "no borrow" and clears CF; per limb a cmov picks
// p_k or 0 (flags untouched) and adcx (which only touches CF) adds it in. Uses the scratch registers
// [lo] and [hi]. The add-back keeps the register count low enough for the asm statements below.
#define CUZK_P(k) "%[p" #k "]"
#define CUZK_ADD_BACK(T, k)          \
  "movl $0, %k[hi]\n\t"              \
  "cmovnzq " CUZK_P(k) ", %[hi]\n\t" \
  "adcxq %[hi], " CUZK_R(T) "\n\t"
#define CUZK_ADD_BACK_IF_BORROW6(T0, T1, T2, T3, T4, T5) \
  "sbbq %[lo], %[lo]\n\t"                                \
  "testq %[lo], %[lo]\n\t"                               \
  CUZK_ADD_BACK(T0, 0)                                   \
  CUZK_ADD_BACK(T1, 1)                                   \
  CUZK_ADD_BACK(T2, 2)                                   \
  CUZK_ADD_BACK(T3, 3)                                   \
  CUZK_ADD_BACK(T4, 4)                                   \
  CUZK_ADD_BACK(T5, 5)
#define CUZK_ADD_BACK_IF_BORROW4(T0, T1, T2, T3) \
  "sbbq %[lo], %[lo]\n\t"                        \
  "testq %[lo], %[lo]\n\t"                       \
  CUZK_ADD_BACK(T0, 0)                           \
  CUZK_ADD_BACK(T1, 1)                           \
  CUZK_ADD_BACK(T2, 2)                           \
  CUZK_ADD_BACK(T3, 3)
#define CUZK_SUB_P6(T0, T1, T2, T3, T4, T5) \
  "subq %[p0], " CUZK_R(T0) "\n\t"          \
  "sbbq %[p1], " CUZK_R(T1) "\n\t"          \
  "sbbq %[p2], " CUZK_R(T2) "\n\t"          \
  "sbbq %[p3], " CUZK_R(T3) "\n\t"          \
  "sbbq %[p4], " CUZK_R(T4) "\n\t"          \
  "sbbq %[p5], " CUZK_R(T5) "\n\t"          \
  CUZK_ADD_BACK_IF_BORROW6(T0, T1, T2, T3, T4, T5)

// r = a * b * 2^-384 mod p, for a, b < p and p[5] < 2^63 - 1; inv = -p^-1 mod 2^64. r may alias a or b.
__attribute__((always_inline)) inline void mont_mul6(u64* r, const u64* a, const u64* b, const u64* p,
                                                     const u64& inv) {
  u64 r0, r1, r2, r3, r4, r5, r6, lo, hi, rdx;
  asm(CUZK_FIRST_ROW6
      CUZK_REDUCE6("r0", "r1", "r2", "r3", "r4", "r5", "r6")  // acc r1..r6
      CUZK_ROW6("8", "r1", "r2", "r3", "r4", "r5", "r6", "r0")
      CUZK_REDUCE6("r1", "r2", "r3", "r4", "r5", "r6", "r0")  // acc r2..r6 r0
      CUZK_ROW6("16", "r2", "r3", "r4", "r5", "r6", "r0", "r1")
      CUZK_REDUCE6("r2", "r3", "r4", "r5", "r6", "r0", "r1")  // acc r3..r6 r0 r1
      CUZK_ROW6("24", "r3", "r4", "r5", "r6", "r0", "r1", "r2")
      CUZK_REDUCE6("r3", "r4", "r5", "r6", "r0", "r1", "r2")  // acc r4 r5 r6 r0 r1 r2
      CUZK_ROW6("32", "r4", "r5", "r6", "r0", "r1", "r2", "r3")
      CUZK_REDUCE6("r4", "r5", "r6", "r0", "r1", "r2", "r3")  // acc r5 r6 r0 r1 r2 r3
      CUZK_ROW6("40", "r5", "r6", "r0", "r1", "r2", "r3", "r4")
      CUZK_REDUCE6("r5", "r6", "r0", "r1", "r2", "r3", "r4")  // acc r6 r0 r1 r2 r3 r4 (< 2p)
      // Final reduction from [0, 2p) to [0, p).
      CUZK_SUB_P6("r6", "r0", "r1", "r2", "r3", "r4")
      "movq %[r6], %[o0]\n\t"
      "movq %[r0], %[o1]\n\t"
      "movq %[r1], %[o2]\n\t"
      "movq %[r2], %[o3]\n\t"
      "movq %[r3], %[o4]\n\t"
      "movq %[r4], %[o5]\n\t"
      : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4), [r5] "=&r"(r5),
        [r6] "=&r"(r6), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(rdx), CUZK_OUT6(r)
      : [a] "r"(a), [b] "r"(b), CUZK_MOD6(p), [inv] "m"(inv), CUZK_IN(a, 6), CUZK_IN(b, 6)
      : "cc");
}

// ---- 4 limbs ----
#define CUZK_FIRST_ROW4              \
  "movq 0(%[b]), %%rdx\n\t"          \
  "xorl %k[lo], %k[lo]\n\t"          \
  "mulxq 0(%[a]), %[r0], %[r1]\n\t"  \
  "mulxq 8(%[a]), %[lo], %[r2]\n\t"  \
  "adcxq %[lo], %[r1]\n\t"           \
  "mulxq 16(%[a]), %[lo], %[r3]\n\t" \
  "adcxq %[lo], %[r2]\n\t"           \
  "mulxq 24(%[a]), %[lo], %[r4]\n\t" \
  "adcxq %[lo], %[r3]\n\t"           \
  "movl $0, %k[lo]\n\t"              \
  "adcxq %[lo], %[r4]\n\t"

#define CUZK_ROW4(boff, T0, T1, T2, T3, T4)   \
  "movq " boff "(%[b]), %%rdx\n\t"            \
  "xorl %k[lo], %k[lo]\n\t"                   \
  CUZK_MAC("0", T0, T1)                       \
  CUZK_MAC("8", T1, T2)                       \
  CUZK_MAC("16", T2, T3)                      \
  "mulxq 24(%[a]), %[lo], " CUZK_R(T4) "\n\t" \
  "adoxq %[lo], " CUZK_R(T3) "\n\t"           \
  "movl $0, %k[lo]\n\t"                       \
  "adcxq %[lo], " CUZK_R(T4) "\n\t"           \
  "adoxq %[lo], " CUZK_R(T4) "\n\t"

#define CUZK_REDUCE4(T0, T1, T2, T3, T4) \
  "movq " CUZK_R(T0) ", %%rdx\n\t"       \
  "imulq %[inv], %%rdx\n\t"              \
  "xorl %k[lo], %k[lo]\n\t"              \
  CUZK_RED("p0", T0, T1)                 \
  CUZK_RED("p1", T1, T2)                 \
  CUZK_RED("p2", T2, T3)                 \
  CUZK_RED("p3", T3, T4)                 \
  "movl $0, %k[lo]\n\t"                  \
  "adoxq %[lo], " CUZK_R(T4) "\n\t"

// r = a * b * 2^-256 mod p, for a, b < p and p[3] < 2^63 - 1; inv = -p^-1 mod 2^64. r may alias a or b.
__attribute__((always_inline)) inline void mont_mul4(u64* r, const u64* a, const u64* b, const u64* p,
                                                     const u64& inv) {
  u64 r0, r1, r2, r3, r4, lo, hi, rdx;
  asm(CUZK_FIRST_ROW4
      CUZK_REDUCE4("r0", "r1", "r2", "r3", "r4")  // acc r1..r4
      CUZK_ROW4("8", "r1", "r2", "r3", "r4", "r0")
      CUZK_REDUCE4("r1", "r2", "r3", "r4", "r0")  // acc r2 r3 r4 r0
      CUZK_ROW4("16", "r2", "r3", "r4", "r0", "r1")
      CUZK_REDUCE4("r2", "r3", "r4", "r0", "r1")  // acc r3 r4 r0 r1
      CUZK_ROW4("24", "r3", "r4", "r0", "r1", "r2")
      CUZK_REDUCE4("r3", "r4", "r0", "r1", "r2")  // acc r4 r0 r1 r2 (< 2p)
      // Final reduction from [0, 2p) to [0, p): keep the difference unless it borrowed.
      "movq %[r4], %[lo]\n\t"
      "subq %[p0], %[lo]\n\t"
      "movq %[r0], %[hi]\n\t"
      "sbbq %[p1], %[hi]\n\t"
      "movq %[r1], %%rdx\n\t"
      "sbbq %[p2], %%rdx\n\t"
      "movq %[r2], %[r3]\n\t"
      "sbbq %[p3], %[r3]\n\t"
      "cmovncq %[lo], %[r4]\n\t"
      "cmovncq %[hi], %[r0]\n\t"
      "cmovncq %%rdx, %[r1]\n\t"
      "cmovncq %[r3], %[r2]\n\t"
      "movq %[r4], %[o0]\n\t"
      "movq %[r0], %[o1]\n\t"
      "movq %[r1], %[o2]\n\t"
      "movq %[r2], %[o3]\n\t"
      : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4), [lo] "=&r"(lo),
        [hi] "=&r"(hi), "=&d"(rdx), CUZK_OUT4(r)
      : [a] "r"(a), [b] "r"(b), CUZK_MOD4(p), [inv] "m"(inv), CUZK_IN(a, 4), CUZK_IN(b, 4)
      : "cc");
}

// Modular addition and subtraction for a, b < p when 2p < 2^(64N), so a + b never carries out of the
// top limb; no data-dependent branch. r may alias a or b.

// r = a + b mod p.
__attribute__((always_inline)) inline void add_mod6(u64* r, const u64* a, const u64* b, const u64* p) {
  u64 s0, s1, s2, s3, s4, s5, lo, hi;
  asm("movq 0(%[a]), %[s0]\n\t"
      "addq 0(%[b]), %[s0]\n\t"
      "movq 8(%[a]), %[s1]\n\t"
      "adcq 8(%[b]), %[s1]\n\t"
      "movq 16(%[a]), %[s2]\n\t"
      "adcq 16(%[b]), %[s2]\n\t"
      "movq 24(%[a]), %[s3]\n\t"
      "adcq 24(%[b]), %[s3]\n\t"
      "movq 32(%[a]), %[s4]\n\t"
      "adcq 32(%[b]), %[s4]\n\t"
      "movq 40(%[a]), %[s5]\n\t"
      "adcq 40(%[b]), %[s5]\n\t"
      CUZK_SUB_P6("s0", "s1", "s2", "s3", "s4", "s5")
      "movq %[s0], %[o0]\n\t"
      "movq %[s1], %[o1]\n\t"
      "movq %[s2], %[o2]\n\t"
      "movq %[s3], %[o3]\n\t"
      "movq %[s4], %[o4]\n\t"
      "movq %[s5], %[o5]\n\t"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5),
        [lo] "=&r"(lo), [hi] "=&r"(hi), CUZK_OUT6(r)
      : [a] "r"(a), [b] "r"(b), CUZK_MOD6(p), CUZK_IN(a, 6), CUZK_IN(b, 6)
      : "cc");
}

// r = a - b mod p: the difference, plus p when it borrowed.
__attribute__((always_inline)) inline void sub_mod6(u64* r, const u64* a, const u64* b, const u64* p) {
  u64 s0, s1, s2, s3, s4, s5, lo, hi;
  asm("movq 0(%[a]), %[s0]\n\t"
      "subq 0(%[b]), %[s0]\n\t"
      "movq 8(%[a]), %[s1]\n\t"
      "sbbq 8(%[b]), %[s1]\n\t"
      "movq 16(%[a]), %[s2]\n\t"
      "sbbq 16(%[b]), %[s2]\n\t"
      "movq 24(%[a]), %[s3]\n\t"
      "sbbq 24(%[b]), %[s3]\n\t"
      "movq 32(%[a]), %[s4]\n\t"
      "sbbq 32(%[b]), %[s4]\n\t"
      "movq 40(%[a]), %[s5]\n\t"
      "sbbq 40(%[b]), %[s5]\n\t"
      CUZK_ADD_BACK_IF_BORROW6("s0", "s1", "s2", "s3", "s4", "s5")
      "movq %[s0], %[o0]\n\t"
      "movq %[s1], %[o1]\n\t"
      "movq %[s2], %[o2]\n\t"
      "movq %[s3], %[o3]\n\t"
      "movq %[s4], %[o4]\n\t"
      "movq %[s5], %[o5]\n\t"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5),
        [lo] "=&r"(lo), [hi] "=&r"(hi), CUZK_OUT6(r)
      : [a] "r"(a), [b] "r"(b), CUZK_MOD6(p), CUZK_IN(a, 6), CUZK_IN(b, 6)
      : "cc");
}

__attribute__((always_inline)) inline void add_mod4(u64* r, const u64* a, const u64* b, const u64* p) {
  u64 s0, s1, s2, s3, d0, d1, d2, d3;
  asm("movq 0(%[a]), %[s0]\n\t"
      "addq 0(%[b]), %[s0]\n\t"
      "movq 8(%[a]), %[s1]\n\t"
      "adcq 8(%[b]), %[s1]\n\t"
      "movq 16(%[a]), %[s2]\n\t"
      "adcq 16(%[b]), %[s2]\n\t"
      "movq 24(%[a]), %[s3]\n\t"
      "adcq 24(%[b]), %[s3]\n\t"
      "movq %[s0], %[d0]\n\t"
      "subq %[p0], %[d0]\n\t"
      "movq %[s1], %[d1]\n\t"
      "sbbq %[p1], %[d1]\n\t"
      "movq %[s2], %[d2]\n\t"
      "sbbq %[p2], %[d2]\n\t"
      "movq %[s3], %[d3]\n\t"
      "sbbq %[p3], %[d3]\n\t"
      "cmovncq %[d0], %[s0]\n\t"
      "cmovncq %[d1], %[s1]\n\t"
      "cmovncq %[d2], %[s2]\n\t"
      "cmovncq %[d3], %[s3]\n\t"
      "movq %[s0], %[o0]\n\t"
      "movq %[s1], %[o1]\n\t"
      "movq %[s2], %[o2]\n\t"
      "movq %[s3], %[o3]\n\t"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [d0] "=&r"(d0), [d1] "=&r"(d1),
        [d2] "=&r"(d2), [d3] "=&r"(d3), CUZK_OUT4(r)
      : [a] "r"(a), [b] "r"(b), CUZK_MOD4(p), CUZK_IN(a, 4), CUZK_IN(b, 4)
      : "cc");
}

__attribute__((always_inline)) inline void sub_mod4(u64* r, const u64* a, const u64* b, const u64* p) {
  u64 s0, s1, s2, s3, lo, hi;
  asm("movq 0(%[a]), %[s0]\n\t"
      "subq 0(%[b]), %[s0]\n\t"
      "movq 8(%[a]), %[s1]\n\t"
      "sbbq 8(%[b]), %[s1]\n\t"
      "movq 16(%[a]), %[s2]\n\t"
      "sbbq 16(%[b]), %[s2]\n\t"
      "movq 24(%[a]), %[s3]\n\t"
      "sbbq 24(%[b]), %[s3]\n\t"
      CUZK_ADD_BACK_IF_BORROW4("s0", "s1", "s2", "s3")
      "movq %[s0], %[o0]\n\t"
      "movq %[s1], %[o1]\n\t"
      "movq %[s2], %[o2]\n\t"
      "movq %[s3], %[o3]\n\t"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [lo] "=&r"(lo), [hi] "=&r"(hi),
        CUZK_OUT4(r)
      : [a] "r"(a), [b] "r"(b), CUZK_MOD4(p), CUZK_IN(a, 4), CUZK_IN(b, 4)
      : "cc");
}

#undef CUZK_R
#undef CUZK_MAC
#undef CUZK_RED
#undef CUZK_FIRST_ROW6
#undef CUZK_ROW6
#undef CUZK_REDUCE6
#undef CUZK_FIRST_ROW4
#undef CUZK_ROW4
#undef CUZK_REDUCE4
#undef CUZK_ADD_BACK_IF_BORROW6
#undef CUZK_ADD_BACK_IF_BORROW4
#undef CUZK_SUB_P6
#undef CUZK_ADD_BACK
#undef CUZK_P
#undef CUZK_OUT6
#undef CUZK_OUT4
#undef CUZK_MOD6
#undef CUZK_MOD4
#undef CUZK_IN

// clang-format on

}  // namespace cuzk::algebra::x86

#endif
