// The H step of the Groth16 prover on the GPU: a, b, c (the constraints' evaluations) in, the coefficients of
// h = (a b - c) / Z left on the device for the h MSM, with the NTT context's transforms (gpu/ntt.hpp).
//
// Three buffers of the domain's size hold a, b and c, so that b and c go up while a is transformed. Where
// device memory is short (the planner's DevicePlan::h_step_buffers, gpu/memory_plan.hpp) it runs in two:
// a and b go to the coset, their product goes through the final transform, and only then does c go up into
// b's buffer. That costs c's upload without overlap (~0.1-0.2 s at 2^27) and frees a third of the H step's
// memory (4 GiB at 2^27) for the MSMs' windows and ranges. Both give the same h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/host_staging.hpp"
#include "gpu/ntt.hpp"
#include "prover/algebra/bls12_381.hpp"

namespace cuzk::gpu {

// The H step for host vectors with its domain's tables and device buffers kept from call to call (the
// GPU prover makes one per parameter set). run() has exactly the CPU prover's contract
// (groth16::compute_h): a, b, c of equal length n, 1 <= n <= 2^log_size, and 2^log_size must be the
// smallest power of two >= n; returns the 2^log_size - 1 coefficients of h. Throws GpuError.
class HStep {
 public:
  // `buffers`: 3, or 2 (c after the product of a and b, in b's buffer).
  explicit HStep(unsigned log_size, unsigned buffers = 3);
  // Device bytes an HStep of this size allocates (its buffers and the transform tables), for planning.
  static std::size_t device_bytes(unsigned log_size, unsigned buffers = 3);
  unsigned log_size() const { return log_size_; }
  unsigned buffers() const { return c_.size() ? 3 : 2; }
  std::vector<algebra::Fr> run(const std::vector<algebra::Fr>& a, const std::vector<algebra::Fr>& b,
                               const std::vector<algebra::Fr>& c);
  // The same, leaving h on the device (device_h(), valid until the next call; complete on return).
  // Returns the number of coefficients, 2^log_size - 1.
  std::size_t run_on_device(const std::vector<algebra::Fr>& a, const std::vector<algebra::Fr>& b,
                            const std::vector<algebra::Fr>& c);
  // For a caller that computes a, b, c on the device itself (the constraints evaluated from the witness,
  // gpu/spmv.hpp), three buffers only: the input buffers, 2^log_size values each. Write the first n values
  // of each on `producer`, then run_filled(n, producer): it zero-pads them from n on, waits for `producer`
  // and runs the H step as run_on_device does (h left on the device; complete on return).
  algebra::Fr* input_a() { return a_.data(); }
  algebra::Fr* input_b() { return b_.data(); }
  algebra::Fr* input_c();
  std::size_t run_filled(std::size_t n, cudaStream_t producer);
  const algebra::Fr* device_h() const { return a_.data(); }
  std::size_t h_count() const { return a_.size() - 1; }  // coefficients of h

  // The memory the MSMs may use between two H steps (h stays in the first buffer): two equal parts, the
  // second and third buffers, or the two halves of the second.
  struct Lendable {
    void* first = nullptr;
    void* second = nullptr;
    std::size_t bytes = 0;  // of each
  };
  Lendable lendable();

 private:
  // Checks the lengths, uploads and queues the whole H step on stream_ (h ends in a_).
  void enqueue(const std::vector<algebra::Fr>& a, const std::vector<algebra::Fr>& b,
               const std::vector<algebra::Fr>& c);
  void enqueue_in_two(const std::vector<algebra::Fr>& a, const std::vector<algebra::Fr>& b,
                      const std::vector<algebra::Fr>& c);
  // n values for a domain of 2^log_size_: more than half of it (or the domain of one), at most all of it.
  void check_count(std::size_t n) const;
  // The transforms of a, b, c on stream_; `ready[i]` (when given) is waited for before vector i's.
  void enqueue_transforms(Event* ready);
  // Host vector -> device buffer (zero-padded to the domain) on copy_stream_, then `done` recorded there.
  void upload(DeviceBuffer<algebra::Fr>& device, const std::vector<algebra::Fr>& host, Event& done);

  unsigned log_size_;
  Stream stream_, copy_stream_;  // transforms; uploads (overlapping the transforms of earlier vectors)
  Event uploaded_[3];
  Event product_done_;   // two buffers: b's buffer is free for c
  HostStaging staging_;  // the prover's vectors are pageable
  NttContext ctx_;
  DeviceBuffer<algebra::Fr> a_, b_, c_;  // c_ empty with two buffers
};

// Host convenience with exactly the CPU prover's contract (groth16::compute_h): a, b, c of equal length
// n >= 1; returns the m - 1 coefficients of h, m = the smallest power of two >= n. Uploads, runs on
// the current device, downloads (a one-off HStep). Throws GpuError.
std::vector<algebra::Fr> compute_h(const std::vector<algebra::Fr>& a, const std::vector<algebra::Fr>& b,
                                   const std::vector<algebra::Fr>& c);

}  // namespace cuzk::gpu
