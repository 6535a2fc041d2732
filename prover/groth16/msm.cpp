// Pippenger's bucket method with signed (Booth) window digits, XYZZ buckets and running-sum bucket
// reduction, shared by G1 and G2 through a template on the curve configuration.
//
// Outline for n points and window width c:
//  - scalars go to canonical form; zero scalars and bases at infinity are dropped;
//  - the 256-bit range is cut into ceil(256 / c) windows; window w's digit is the Booth recoding of
//    bits [wc - 1, wc + c - 1], a value in [-2^(c-1), 2^(c-1)], so a window needs 2^(c-1) buckets;
//  - per window each point goes into the bucket of |digit| (negated when the digit is negative) with
//    a mixed XYZZ addition, then sum_k k * bucket[k] comes from two running sums;
//  - the window sums are combined by Horner's rule with c doublings between windows.
// Work is split into (window, point range) tasks pulled by std::threads from an atomic counter.
#include "prover/groth16/msm.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "prover/groth16/errors.hpp"

namespace cuzk::groth16 {
namespace {

using algebra::Affine;
using algebra::Jacobian;
using algebra::Limbs;
using algebra::u64;

// Extended Jacobian ("XYZZ") coordinates: x = X / ZZ, y = Y / ZZZ with ZZ^3 = ZZZ^2; ZZ = 0 is the
// point at infinity. Formulas: Explicit-Formulas Database, "g1p/auto/shortw/xyzz" (a = 0):
// madd-2008-s (8M + 2S), add-2008-s (12M + 2S), mdbl-2008-s-1, dbl-2008-s-1.
template <class Cfg>
struct Xyzz {
  using Field = typename Cfg::Field;
  Field X, Y, ZZ, ZZZ;

  bool is_identity() const { return ZZ.is_zero(); }
  void set_identity() {
    ZZ = Field::zero();
    ZZZ = Field::zero();
  }

  // mdbl-2008-s-1: *this = 2 * (x, y).
  void set_double_affine(const Field& x, const Field& y) {
    Field U = y.dbl();
    Field V = U.square();
    Field W = U * V;
    Field S = x * V;
    Field x2 = x.square();
    Field M = x2.dbl() + x2;
    X = M.square() - S.dbl();
    Y = M * (S - X) - W * y;
    ZZ = V;
    ZZZ = W;
  }

  // dbl-2008-s-1: *this = 2 * *this.
  void double_in_place() {
    if (is_identity()) return;
    Field U = Y.dbl();
    Field V = U.square();
    Field W = U * V;
    Field S = X * V;
    Field x2 = X.square();
    Field M = x2.dbl() + x2;
    Field X3 = M.square() - S.dbl();
    Y = M * (S - X3) - W * Y;
    X = X3;
    ZZ *= V;
    ZZZ *= W;
  }

  // madd-2008-s: *this += (x, y), with (x, y) an affine point (not infinity).
  void add_affine(const Field& x, const Field& y) {
    if (is_identity()) {
      X = x;
      Y = y;
      ZZ = Field::one();
      ZZZ = Field::one();
      return;
    }
    Field P = x * ZZ;   // U2
    Field R = y * ZZZ;  // S2
    P -= X;
    R -= Y;
    if (P.is_zero()) {
      if (R.is_zero()) {
        set_double_affine(x, y);
      } else {
        set_identity();
      }
      return;
    }
    Field PP = P.square();
    Field PPP = P * PP;
    Field Q = X * PP;
    ZZ *= PP;
    ZZZ *= PPP;
    Field X3 = R.square() - PPP - Q.dbl();
    Field YP = Y * PPP;
    Q -= X3;
    Y = R * Q - YP;
    X = X3;
  }

  // add-2008-s: *this += o.
  void add(const Xyzz& o) {
    if (o.is_identity()) return;
    if (is_identity()) {
      *this = o;
      return;
    }
    Field U1 = X * o.ZZ;
    Field P = o.X * ZZ;  // U2
    Field S1 = Y * o.ZZZ;
    Field R = o.Y * ZZZ;  // S2
    P -= U1;
    R -= S1;
    if (P.is_zero()) {
      if (R.is_zero()) {
        double_in_place();
      } else {
        set_identity();
      }
      return;
    }
    Field PP = P.square();
    Field PPP = P * PP;
    Field Q = U1 * PP;
    Field X3 = R.square() - PPP - Q.dbl();
    Q -= X3;
    Y = R * Q - S1 * PPP;
    X = X3;
    ZZ *= o.ZZ;
    ZZ *= PP;
    ZZZ *= o.ZZZ;
    ZZZ *= PPP;
  }

  // Jacobian (X', Y', Z') with Z' = ZZZ: X' = X ZZ^2 and Y' = Y ZZZ^2, since ZZZ^2 = ZZ^3.
  Jacobian<Cfg> to_jacobian() const {
    if (is_identity()) return Jacobian<Cfg>::identity();
    Jacobian<Cfg> r;
    r.X = X * ZZ.square();
    r.Y = Y * ZZZ.square();
    r.Z = ZZZ;
    return r;
  }
};

constexpr unsigned kScalarBits = 255;  // r < 2^255 (blstrs Scalar::NUM_BITS = 255)

// Windows needed for c-bit signed digits: the top window's sign bit (bit nwin * c - 1) must lie at or
// above bit 255, which is always zero for a canonical scalar.
unsigned window_count(unsigned c) {
  return (kScalarBits + 1 + c - 1) / c;
}

// Window width minimising (madd count + bucket reduction cost) over all windows; a bucket costs two
// full additions in the running sum, about three mixed additions. Capped at 18 bits: 2^17 buckets
// (24 MiB of G1 buckets per thread); wider windows save few additions and miss the caches more.
constexpr unsigned kMaxWindow = 18;
unsigned choose_window(std::size_t n) {
  unsigned best_c = 1;
  double best_cost = 0;
  for (unsigned c = 1; c <= kMaxWindow; ++c) {
    double cost =
        window_count(c) * (static_cast<double>(n) + 3.0 * static_cast<double>(std::size_t{1} << (c - 1)));
    if (c == 1 || cost < best_cost) {
      best_c = c;
      best_cost = cost;
    }
  }
  return best_c;
}

// Booth digit of window w: with x = bits [wc - 1, wc + c - 1] of k (bit -1 being 0), the digit is
// (x >> 1) + (x & 1) - 2^c * (top bit of x), in [-2^(c-1), 2^(c-1)]; sum_w 2^(wc) digit_w = k.
inline int booth_digit(const Limbs<4>& k, unsigned w, unsigned c) {
  u64 x;
  const u64 mask = (u64{1} << (c + 1)) - 1;
  if (w == 0) {
    x = (k[0] << 1) & mask;
  } else {
    unsigned start = w * c - 1;
    unsigned limb = start / 64, shift = start % 64;
    if (limb >= 4) return 0;
    x = k[limb] >> shift;
    if (shift + c + 1 > 64 && limb + 1 < 4) x |= k[limb + 1] << (64 - shift);
    x &= mask;
  }
  int d = static_cast<int>((x >> 1) + (x & 1));
  return d - static_cast<int>((x >> c) << c);
}

// Points to process: canonical scalars with the index of their base (zero scalars and bases at
// infinity removed).
template <class Cfg>
struct Prepared {
  std::vector<Limbs<4>> scalars;
  std::vector<std::uint32_t> index;
  // The bases whose scalar is exactly 1, summed directly: Groth16 witnesses are mostly bits, and a
  // mixed addition per such point costs far less than its share of a 255-bit Pippenger.
  Jacobian<Cfg> ones_sum = Jacobian<Cfg>::identity();
};

template <class Cfg>
Prepared<Cfg> prepare(std::span<const Affine<Cfg>> bases, std::span<const Fr> scalars, unsigned threads) {
  const std::size_t n = bases.size();
  Prepared<Cfg> out;
  out.scalars.resize(n);
  out.index.resize(n);
  // Per thread: compact its own range, then the ranges are concatenated.
  std::vector<std::size_t> counts(threads, 0);
  std::vector<Xyzz<Cfg>> ones(threads);
  auto work = [&](unsigned t) {
    std::size_t lo = n * t / threads, hi = n * (t + 1) / threads, m = lo;
    ones[t].set_identity();
    for (std::size_t i = lo; i < hi; ++i) {
      if (scalars[i].is_zero() || bases[i].infinity) continue;
      if (scalars[i].is_one()) {
        ones[t].add_affine(bases[i].x, bases[i].y);
        continue;
      }
      out.scalars[m] = scalars[i].to_canonical();
      out.index[m] = static_cast<std::uint32_t>(i);
      ++m;
    }
    counts[t] = m - lo;
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (auto& th : pool) th.join();
  }
  std::size_t m = counts[0];
  for (unsigned t = 1; t < threads; ++t) {
    std::size_t lo = n * t / threads;
    std::copy_n(out.scalars.begin() + lo, counts[t], out.scalars.begin() + m);
    std::copy_n(out.index.begin() + lo, counts[t], out.index.begin() + m);
    m += counts[t];
  }
  out.scalars.resize(m);
  out.index.resize(m);
  for (const auto& partial : ones) out.ones_sum += partial.to_jacobian();
  return out;
}

// Sum over points [lo, hi) of the prepared list of digit_w(k_i) * P_i, via 2^(c-1) buckets.
template <class Cfg>
Jacobian<Cfg> window_sum(std::span<const Affine<Cfg>> bases, const Prepared<Cfg>& prep, std::size_t lo,
                         std::size_t hi, unsigned w, unsigned c, std::vector<Xyzz<Cfg>>& buckets) {
  using Field = typename Cfg::Field;
  const std::size_t bucket_count = std::size_t{1} << (c - 1);
  buckets.resize(bucket_count);
  for (auto& b : buckets) b.set_identity();

  // Digits are computed a batch ahead so the bucket and the base of a later point can be prefetched
  // while the current addition runs (both are random accesses into large arrays).
  constexpr std::size_t kBatch = 256;
  constexpr std::size_t kPrefetchDistance = 4;
  int digits[kBatch];
  for (std::size_t start = lo; start < hi; start += kBatch) {
    const std::size_t len = std::min(kBatch, hi - start);
    for (std::size_t j = 0; j < len; ++j) digits[j] = booth_digit(prep.scalars[start + j], w, c);
    for (std::size_t j = 0; j < len; ++j) {
      if (j + kPrefetchDistance < len) {
        int dn = digits[j + kPrefetchDistance];
        if (dn != 0) {
          const char* bp =
              reinterpret_cast<const char*>(&buckets[static_cast<std::size_t>(dn < 0 ? -dn : dn) - 1]);
          for (std::size_t off = 0; off < sizeof(Xyzz<Cfg>); off += 64) __builtin_prefetch(bp + off, 1);
          const char* pp = reinterpret_cast<const char*>(&bases[prep.index[start + j + kPrefetchDistance]]);
          for (std::size_t off = 0; off < sizeof(Affine<Cfg>); off += 64) __builtin_prefetch(pp + off, 0);
        }
      }
      int d = digits[j];
      if (d == 0) continue;
      const Affine<Cfg>& p = bases[prep.index[start + j]];
      if (d > 0) {
        buckets[static_cast<std::size_t>(d) - 1].add_affine(p.x, p.y);
      } else {
        Field neg_y = -p.y;
        buckets[static_cast<std::size_t>(-d) - 1].add_affine(p.x, neg_y);
      }
    }
  }

  // sum_k (k + 1) * buckets[k] = sum over k of the running sums from the top.
  Xyzz<Cfg> running, total;
  running.set_identity();
  total.set_identity();
  for (std::size_t k = bucket_count; k-- > 0;) {
    running.add(buckets[k]);
    total.add(running);
  }
  return total.to_jacobian();
}

template <class Cfg>
Jacobian<Cfg> msm_pippenger(std::span<const Affine<Cfg>> bases, std::span<const Fr> scalars,
                            unsigned threads) {
  if (bases.size() != scalars.size()) {
    throw Groth16Error(
        Groth16ErrorKind::kMalformedInput,
        "msm: " + std::to_string(bases.size()) + " bases but " + std::to_string(scalars.size()) + " scalars");
  }
  // Indices are 32-bit: cut larger inputs into blocks (each costs one extra bucket reduction).
  constexpr std::size_t kMaxBlock = std::size_t{1} << 31;
  if (bases.size() > kMaxBlock) {
    Jacobian<Cfg> acc = Jacobian<Cfg>::identity();
    for (std::size_t lo = 0; lo < bases.size(); lo += kMaxBlock) {
      std::size_t len = std::min(kMaxBlock, bases.size() - lo);
      acc += msm_pippenger<Cfg>(bases.subspan(lo, len), scalars.subspan(lo, len), threads);
    }
    return acc;
  }
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  // Below a few thousand points thread start-up is not worth it.
  constexpr std::size_t kPointsPerThread = 2048;
  threads = static_cast<unsigned>(
      std::min<std::size_t>(threads, std::max<std::size_t>(1, bases.size() / kPointsPerThread)));

  const Prepared<Cfg> prep = prepare<Cfg>(bases, scalars, threads);
  const std::size_t m = prep.scalars.size();
  if (m == 0) return prep.ones_sum;

  const unsigned c = choose_window(m);
  const unsigned windows = window_count(c);
  // With more threads than windows, each window is also split into point ranges; a range is kept
  // at least as long as the bucket array so the extra bucket reductions stay a small fraction.
  std::size_t chunks = (threads + windows - 1) / windows;
  chunks = std::max<std::size_t>(1, std::min(chunks, m >> (c - 1)));
  const std::size_t tasks = windows * chunks;
  std::vector<Jacobian<Cfg>> partial(tasks);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    std::vector<Xyzz<Cfg>> buckets;
    for (std::size_t t; (t = next.fetch_add(1)) < tasks;) {
      const unsigned w = static_cast<unsigned>(t / chunks);
      const std::size_t chunk = t % chunks;
      partial[t] = window_sum<Cfg>(bases, prep, m * chunk / chunks, m * (chunk + 1) / chunks, w, c, buckets);
    }
  };
  const unsigned pool_size = static_cast<unsigned>(std::min<std::size_t>(threads, tasks));
  if (pool_size <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < pool_size; ++t) pool.emplace_back(worker);
    for (auto& th : pool) th.join();
  }

  // Horner over the windows, from the top: acc = 2^c * acc + window_sum.
  Jacobian<Cfg> acc = Jacobian<Cfg>::identity();
  for (unsigned w = windows; w-- > 0;) {
    for (unsigned i = 0; i < c; ++i) acc = acc.dbl();
    for (std::size_t chunk = 0; chunk < chunks; ++chunk) acc += partial[w * chunks + chunk];
  }
  return acc + prep.ones_sum;
}

template <class Cfg>
Jacobian<Cfg> msm_naive(std::span<const Affine<Cfg>> bases, std::span<const Fr> scalars) {
  if (bases.size() != scalars.size()) {
    throw Groth16Error(Groth16ErrorKind::kMalformedInput, "msm: bases and scalars differ in length");
  }
  Jacobian<Cfg> acc = Jacobian<Cfg>::identity();
  for (std::size_t i = 0; i < bases.size(); ++i) acc += Jacobian<Cfg>::from_affine(bases[i]) * scalars[i];
  return acc;
}

}  // namespace

algebra::G1 msm_g1(std::span<const algebra::G1Affine> bases, std::span<const Fr> scalars, unsigned threads) {
  return msm_pippenger<algebra::G1Config>(bases, scalars, threads);
}
algebra::G2 msm_g2(std::span<const algebra::G2Affine> bases, std::span<const Fr> scalars, unsigned threads) {
  return msm_pippenger<algebra::G2Config>(bases, scalars, threads);
}
algebra::G1 msm_g1_naive(std::span<const algebra::G1Affine> bases, std::span<const Fr> scalars) {
  return msm_naive<algebra::G1Config>(bases, scalars);
}
algebra::G2 msm_g2_naive(std::span<const algebra::G2Affine> bases, std::span<const Fr> scalars) {
  return msm_naive<algebra::G2Config>(bases, scalars);
}

}  // namespace cuzk::groth16
