#include "prover/groth16/fixed_base.hpp"

#include <omp.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <type_traits>

#include "prover/algebra/encoding.hpp"

namespace cuzk::groth16 {

namespace {

using algebra::G1Config;
using algebra::G2Config;

// The widest window FixedBaseTable::best_window picks (its cap): the cheapest for any chunk above
// ~10^5 scalars, and a table of 22 x 4095 entries (about 10 MB in G1, 20 MB in G2) built in well under
// a second.
constexpr unsigned kCpuWindowBits = 12;
// Points per batch normalisation (one field inversion each), as FixedBaseTable::mul_many.
constexpr std::size_t kBatch = 1024;

template <class Cfg>
void encode_point(const algebra::Affine<Cfg>& p, std::uint8_t* out) {
  if constexpr (std::is_same_v<Cfg, G1Config>) {
    algebra::encode_g1_uncompressed(p, out);
  } else {
    algebra::encode_g2_uncompressed(p, out);
  }
}

template <class Cfg>
constexpr std::size_t encoded_size() {
  return std::is_same_v<Cfg, G1Config> ? algebra::kG1UncompressedSize : algebra::kG2UncompressedSize;
}

class CpuFixedBaseEncoder final : public FixedBaseEncoder {
 public:
  explicit CpuFixedBaseEncoder(unsigned threads)
      : threads_(threads == 0 ? omp_get_max_threads() : static_cast<int>(threads)) {}

  std::string name() const override { return "cpu (" + std::to_string(threads_) + " threads)"; }

  void encode_g1(std::span<const algebra::Fr> scalars, std::uint8_t* out) override {
    encode(table(g1_once_, g1_), scalars, out);
  }
  void encode_g2(std::span<const algebra::Fr> scalars, std::uint8_t* out) override {
    encode(table(g2_once_, g2_), scalars, out);
  }

 private:
  template <class Cfg>
  const FixedBaseTable<Cfg>& table(std::once_flag& once, std::optional<FixedBaseTable<Cfg>>& t) {
    std::call_once(once, [&] { t.emplace(Cfg::generator(), kCpuWindowBits, threads_); });
    return *t;
  }

  template <class Cfg>
  void encode(const FixedBaseTable<Cfg>& table, std::span<const algebra::Fr> scalars, std::uint8_t* out) {
    constexpr std::size_t kSize = encoded_size<Cfg>();
    const auto batches = static_cast<std::int64_t>((scalars.size() + kBatch - 1) / kBatch);
#pragma omp parallel for schedule(dynamic) num_threads(threads_)
    for (std::int64_t c = 0; c < batches; ++c) {
      const std::size_t start = static_cast<std::size_t>(c) * kBatch;
      const std::size_t end = std::min(scalars.size(), start + kBatch);
      std::vector<algebra::Jacobian<Cfg>> jac(end - start);
      for (std::size_t i = start; i < end; ++i) jac[i - start] = table.mul(scalars[i]);
      const auto aff = algebra::batch_to_affine(jac);
      for (std::size_t i = start; i < end; ++i) encode_point<Cfg>(aff[i - start], out + i * kSize);
    }
  }

  int threads_;
  std::once_flag g1_once_, g2_once_;
  std::optional<FixedBaseTable<G1Config>> g1_;
  std::optional<FixedBaseTable<G2Config>> g2_;
};

}  // namespace

std::unique_ptr<FixedBaseEncoder> make_cpu_fixed_base_encoder(unsigned threads) {
  return std::make_unique<CpuFixedBaseEncoder>(threads);
}

}  // namespace cuzk::groth16
