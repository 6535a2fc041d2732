#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/h_step.hpp"

namespace cuzk::gpu {

using algebra::Fr;

HStep::HStep(unsigned log_size, unsigned buffers)
    : log_size_(log_size),
      ctx_(log_size, stream_),
      a_(std::size_t{1} << log_size),
      b_(a_.size()),
      c_(buffers == 2 ? 0 : a_.size()) {
  if (buffers != 2 && buffers != 3)
    throw GpuError("gpu::HStep: " + std::to_string(buffers) + " buffers (2 or 3)");
}

std::size_t HStep::device_bytes(unsigned log_size, unsigned buffers) {
  return buffers * (std::size_t{1} << log_size) * sizeof(Fr) + NttContext::device_bytes(log_size);
}

Fr* HStep::input_c() {
  if (!c_.size()) throw GpuError("gpu::HStep: no third buffer for a caller's c (the H step in two buffers)");
  return c_.data();
}

HStep::Lendable HStep::lendable() {
  if (c_.size()) return {b_.data(), c_.data(), b_.size() * sizeof(Fr)};
  const std::size_t half = b_.size() / 2;
  return {b_.data(), b_.data() + half, half * sizeof(Fr)};
}

std::vector<Fr> HStep::run(const std::vector<Fr>& a, const std::vector<Fr>& b, const std::vector<Fr>& c) {
  enqueue(a, b, c);
  std::vector<Fr> h(h_count());  // allocated and zeroed while the device works
  staging_.download(h.data(), a_.data(), h.size() * sizeof(Fr), stream_);
  stream_.synchronize();  // also when h is empty (a domain of 1), so that no work outlives the call
  return h;
}

std::size_t HStep::run_on_device(const std::vector<Fr>& a, const std::vector<Fr>& b,
                                 const std::vector<Fr>& c) {
  enqueue(a, b, c);
  stream_.synchronize();
  return h_count();
}

void HStep::check_count(std::size_t n) const {
  const std::size_t m = a_.size();
  if (n == 0 || n > m || (m > 1 && n <= m / 2))
    throw GpuError("gpu::HStep: " + std::to_string(n) + " values for a domain of " + std::to_string(m));
}

void HStep::upload(DeviceBuffer<Fr>& device, const std::vector<Fr>& host, Event& done) {
  device.zero(copy_stream_, host.size());  // the zero padding (no values of an earlier call)
  staging_.upload(device.data(), host.data(), host.size() * sizeof(Fr), copy_stream_);
  done.record(copy_stream_);
}

void HStep::enqueue(const std::vector<Fr>& a, const std::vector<Fr>& b, const std::vector<Fr>& c) {
  if (a.empty() || a.size() != b.size() || a.size() != c.size())
    throw GpuError("gpu::compute_h: a, b, c must be non-empty and of equal length");
  check_count(a.size());
  if (!c_.size()) return enqueue_in_two(a, b, c);
  // Each vector goes up on the copy stream (through pinned chunks: the host copies into them) and is
  // transformed on stream_ once it is there, so the copies of b and c overlap the transforms of a and b.
  upload(a_, a, uploaded_[0]);
  upload(b_, b, uploaded_[1]);
  upload(c_, c, uploaded_[2]);
  enqueue_transforms(uploaded_);
}

void HStep::enqueue_in_two(const std::vector<Fr>& a, const std::vector<Fr>& b, const std::vector<Fr>& c) {
  upload(a_, a, uploaded_[0]);
  upload(b_, b, uploaded_[1]);  // overlaps a's transforms
  uploaded_[0].hold(stream_);
  ctx_.h_to_coset(a_.data(), log_size_, stream_);
  uploaded_[1].hold(stream_);
  ctx_.h_to_coset(b_.data(), log_size_, stream_);
  ctx_.h_finish_product(a_.data(), b_.data(), log_size_, stream_);
  product_done_.record(stream_);
  // c into b's buffer once the product has read it: the host's copying into the pinned chunks goes on
  // meanwhile, and its DMAs start when the copy stream passes the event.
  product_done_.hold(copy_stream_);
  upload(b_, c, uploaded_[2]);
  uploaded_[2].hold(stream_);
  ctx_.h_to_coefficients(b_.data(), log_size_, stream_);
  ctx_.h_subtract_coefficients(a_.data(), b_.data(), log_size_, stream_);
}

void HStep::enqueue_transforms(Event* ready) {
  DeviceBuffer<Fr>* device[3] = {&a_, &b_, &c_};
  for (int i = 0; i < 3; ++i) {
    if (ready) ready[i].hold(stream_);
    if (i < 2) {
      ctx_.h_to_coset(device[i]->data(), log_size_, stream_);
    } else {
      ctx_.h_to_coefficients(device[i]->data(), log_size_, stream_);
    }
  }
  ctx_.h_finish(a_.data(), b_.data(), c_.data(), log_size_, stream_);
}

std::size_t HStep::run_filled(std::size_t n, cudaStream_t producer) {
  check_count(n);
  if (!c_.size()) throw GpuError("gpu::HStep::run_filled: needs the H step's three buffers");
  for (DeviceBuffer<Fr>* v : {&a_, &b_, &c_}) v->zero(producer, n);
  for (Event& e : uploaded_) e.record(producer);  // all three are ready together
  enqueue_transforms(uploaded_);
  stream_.synchronize();
  return h_count();
}

std::vector<Fr> compute_h(const std::vector<Fr>& a, const std::vector<Fr>& b, const std::vector<Fr>& c) {
  unsigned lg = 0;  // the smallest domain that holds a (HStep::run checks the lengths)
  while ((std::size_t{1} << lg) < a.size()) ++lg;
  if (lg > NttContext::kMaxLogSize) throw GpuError("gpu::compute_h: domain larger than 2^28");
  return HStep(lg).run(a, b, c);
}

}  // namespace cuzk::gpu
