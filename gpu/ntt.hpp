// Number-theoretic transforms over the BLS12-381 scalar field Fr on the GPU, and the H step of
// Groth16 (docs/circuit.md §10) built from them.
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
#include "gpu/host_staging.hpp"
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

// The H step for host vectors with its domain's tables and device buffers kept from call to call (the
// GPU prover makes one per parameter set). run() has exactly the CPU prover's contract
// (groth16::compute_h): a, b, c of equal length n, 1 <= n <= 2^log_size, and 2^log_size must be the
// smallest power of two >= n; returns the 2^log_size - 1 coefficients of h. Throws GpuError.
class HStep {
 public:
  explicit HStep(unsigned log_size);
  // Device bytes an HStep of this size allocates (a, b, c and the transform tables), for planning.
  static std::size_t device_bytes(unsigned log_size);
  unsigned log_size() const { return log_size_; }
  std::vector<algebra::Fr> run(const std::vector<algebra::Fr>& a, const std::vector<algebra::Fr>& b,
                               const std::vector<algebra::Fr>& c);
  // The same, leaving h on the device (device_h(), valid until the next call; complete on return).
  // Returns the number of coefficients, 2^log_size - 1.
  std::size_t run_on_device(const std::vector<algebra::Fr>& a, const std::vector<algebra::Fr>& b,
                            const std::vector<algebra::Fr>& c);
  // For a caller that computes a, b, c on the device itself (the constraints evaluated from the witness,
  // gpu/spmv.hpp): the three input buffers, 2^log_size values each. Write the first n values of each on
  // `producer`, then run_filled(n, producer): it zero-pads them from n on, waits for `producer` and runs
  // the H step as run_on_device does (h left on the device; complete on return).
  algebra::Fr* input_a() { return a_.data(); }
  algebra::Fr* input_b() { return b_.data(); }
  algebra::Fr* input_c() { return c_.data(); }
  std::size_t run_filled(std::size_t n, cudaStream_t producer);
  const algebra::Fr* device_h() const { return a_.data(); }
  std::size_t h_count() const { return a_.size() - 1; }  // coefficients of h

 private:
  // Checks the lengths, uploads and queues the whole H step on stream_ (h ends in a_).
  void enqueue(const std::vector<algebra::Fr>& a, const std::vector<algebra::Fr>& b,
               const std::vector<algebra::Fr>& c);
  // n values for a domain of 2^log_size_: more than half of it (or the domain of one), at most all of it.
  void check_count(std::size_t n) const;
  // The transforms of a, b, c on stream_; `ready[i]` (when given) is waited for before vector i's.
  void enqueue_transforms(Event* ready);

  unsigned log_size_;
  Stream stream_, copy_stream_;  // transforms; uploads (overlapping the transforms of earlier vectors)
  Event uploaded_[3];
  HostStaging staging_;  // the prover's vectors are pageable
  NttContext ctx_;
  DeviceBuffer<algebra::Fr> a_, b_, c_;
};

// Host convenience with exactly the CPU prover's contract (groth16::compute_h): a, b, c of equal length
// n >= 1; returns the m - 1 coefficients of h, m = the smallest power of two >= n. Uploads, runs on
// the current device, downloads (a one-off HStep). Throws GpuError.
std::vector<algebra::Fr> compute_h(const std::vector<algebra::Fr>& a, const std::vector<algebra::Fr>& b,
                                   const std::vector<algebra::Fr>& c);

}  // namespace cuzk::gpu
