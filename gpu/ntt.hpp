// Number-theoretic transforms over the BLS12-381 scalar field Fr on the GPU, and the steps of Groth16's H
// polynomial (docs/circuit.md §10) built from them (gpu/h_step.hpp runs them).
//
// Semantics follow the CPU prover (prover/groth16/domain.hpp): a forward transform evaluates
// sum_i x_i w^(ij) with w the primitive 2^k-th root of unity 7^((r-1)/2^k) squared down as bellperson
// does; the inverse uses w^-1 and scales by 1/n; the coset variants use the multiplicative generator
// g = 7: a forward coset transform first multiplies coefficient i by g^i, an inverse coset transform
// multiplies output coefficient i by g^-i afterwards. Values are Fr in Montgomery form (the host
// algebra::Fr layout). Orders: natural or bit-reversed, independently for input and output.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "prover/algebra/bls12_381.hpp"

namespace cuzk::gpu {

enum class NttOrder { kNatural, kBitReversed };
enum class NttDirection { kForward, kInverse };

// Holds the device tables (roots of unity for the largest domain, powers of the coset generator) for
// every domain size 2^1 .. 2^max_log_size. Build once, use for many transforms.
class NttContext {
 public:
  static constexpr unsigned kMaxLogSize = 28;

  explicit NttContext(unsigned max_log_size, cudaStream_t stream = nullptr);
  // Device bytes a context of this size keeps (its twiddle and coset-power tables), for planning.
  static std::size_t device_bytes(unsigned max_log_size);
  unsigned max_log_size() const { return max_log_; }

  // In place on 2^log_size device values (log_size 0 .. max_log_size). Asynchronous on `stream`.
  void transform(algebra::Fr* d_values, unsigned log_size, NttDirection direction, NttOrder input,
                 NttOrder output, bool coset, cudaStream_t stream) const;

  // The H step on the device: a, b, c are 2^log_size values each (the per-constraint evaluations,
  // zero-padded), natural order. Leaves the coefficients of h in d_a, natural order (the first
  // 2^log_size - 1 are h; the last is zero for a satisfied witness). d_b and d_c are clobbered.
  void compute_h(algebra::Fr* d_a, algebra::Fr* d_b, algebra::Fr* d_c, unsigned log_size,
                 cudaStream_t stream) const;
  // compute_h in steps, so that a caller can upload b and c while a is transformed: h_to_coset on a and
  // on b (evaluations on the domain -> evaluations on the coset, times n), h_to_coefficients on c
  // (evaluations -> coefficients, times n, bit-reversed order), then h_finish (the pointwise step and the
  // final inverse coset transform, into d_a).
  void h_to_coset(algebra::Fr* d_x, unsigned log_size, cudaStream_t stream) const;
  void h_to_coefficients(algebra::Fr* d_x, unsigned log_size, cudaStream_t stream) const;
  void h_finish(algebra::Fr* d_a, const algebra::Fr* d_b, const algebra::Fr* d_c, unsigned log_size,
                cudaStream_t stream) const;
  // h_finish in two steps, for a caller with no third buffer: h_finish_product leaves d_a as h_finish would
  // before subtracting c, in bit-reversed order, and no longer reads d_b; h_subtract_coefficients then
  // subtracts c's coefficients (h_to_coefficients' output, put in d_c after the first step) and permutes d_a
  // to natural order. The same values as h_finish.
  void h_finish_product(algebra::Fr* d_a, const algebra::Fr* d_b, unsigned log_size,
                        cudaStream_t stream) const;
  void h_subtract_coefficients(algebra::Fr* d_a, const algebra::Fr* d_c, unsigned log_size,
                               cudaStream_t stream) const;

 private:
  // As transform, with `scale` (none: no multiplication) in place of an inverse transform's 1/n, and
  // optional fused pointwise work (natural-order input only): the input times pre_mul (element by
  // element), and sub_factor * post_sub subtracted from the output before any final permutation (so in
  // bit-reversed order for a natural-order output).
  void transform_scaled(algebra::Fr* d_values, unsigned log_size, NttDirection direction, NttOrder input,
                        NttOrder output, bool coset, std::optional<algebra::Fr> scale, cudaStream_t stream,
                        const algebra::Fr* pre_mul = nullptr, const algebra::Fr* post_sub = nullptr,
                        const algebra::Fr& sub_factor = algebra::Fr::zero()) const;

  unsigned max_log_;
  DeviceBuffer<algebra::Fr> twiddles_;  // w_N^e for e < N/2, N = 2^max_log
  // g^i = hi[i >> 12] * lo[i & 4095] for the coset generator g and for g^-1.
  DeviceBuffer<algebra::Fr> gen_lo_, gen_hi_, gen_inv_lo_, gen_inv_hi_;
};

}  // namespace cuzk::gpu
