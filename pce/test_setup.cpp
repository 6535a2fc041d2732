// Groth16 test parameters streamed from the compact constraint matrices (pce/test_setup.hpp): the QAP at
// tau by transposed products, the degenerate-waste checks, then the vectors encoded and written chunk by
// chunk.
#include "pce/test_setup.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "io/atomic_file.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/groth16/domain.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/parameters.hpp"

namespace cuzk::pce {

namespace {

using Clock = std::chrono::steady_clock;
using groth16::kLengthBytes;
constexpr std::size_t kG1Bytes = algebra::kG1UncompressedSize;
constexpr std::size_t kG2Bytes = algebra::kG2UncompressedSize;
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

int thread_count(unsigned threads) {
  return threads == 0 ? omp_get_max_threads() : static_cast<int>(threads);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Vector lengths of the .params file, from the densities alone.
struct Layout {
  std::size_t inputs = 0, aux = 0, h = 0, a = 0, b = 0;
  std::uint64_t vk_bytes() const { return groth16::kVkFixedBytes + kLengthBytes + inputs * kG1Bytes; }
  std::uint64_t params_bytes() const {
    return vk_bytes() + 4 * kLengthBytes + (h + aux + a + b) * std::uint64_t{kG1Bytes} + kLengthBytes +
           b * std::uint64_t{kG2Bytes};
  }
};

Layout layout_of(const CompactR1cs& cs) {
  Layout l;
  l.inputs = cs.num_inputs;
  l.aux = cs.num_aux;
  const std::size_t rows = cs.num_constraints() + cs.num_inputs;  // bellperson's input constraints
  l.h = groth16::EvaluationDomain(std::max<std::size_t>(rows, 1)).size() -
        1;  // tau^j Z(tau) / delta, j < m - 1
  l.a = cs.num_inputs + cs.densities.a_aux.popcount();
  l.b = cs.densities.b_input.popcount() + cs.densities.b_aux.popcount();
  return l;
}

// u, v, w += the transposed product of A, B, C with the Lagrange values: thread t owns variables
// [nv t / T, nv (t + 1) / T) and scans every row of the three matrices for entries in its range. Field
// addition is exact, so the order of the terms does not change the result.
void transposed_products(const CompactR1cs& cs, const std::vector<Fr>& lag, std::vector<Fr>& u,
                         std::vector<Fr>& v, std::vector<Fr>& w, int threads) {
  const std::size_t nv = cs.num_variables();
  const CompactMatrix* matrices[3] = {&cs.a, &cs.b, &cs.c};
  std::vector<Fr>* outputs[3] = {&u, &v, &w};
#pragma omp parallel num_threads(threads)
  {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const auto nt = static_cast<std::size_t>(omp_get_num_threads());
    const std::uint32_t lo = static_cast<std::uint32_t>(nv * t / nt);
    const std::uint32_t width = static_cast<std::uint32_t>(nv * (t + 1) / nt) - lo;
    for (int mi = 0; mi < 3; ++mi) {
      const CompactMatrix& m = *matrices[mi];
      Fr* out = outputs[mi]->data();
      const std::uint32_t* offsets = m.row_offsets.data();
      const std::uint32_t* columns = m.columns.data();
      const CoeffCode* codes = m.codes.data();
      const std::size_t rows = m.rows();
      for (std::size_t k = 0; k < rows; ++k) {
        for (std::uint32_t e = offsets[k]; e < offsets[k + 1]; ++e) {
          const std::uint32_t col = columns[e];
          if (col - lo >= width) continue;  // unsigned: also below lo
          const CoeffCode code = codes[e];
          if (code == kPlusOne) {
            out[col] += lag[k];
          } else if (code == kMinusOne) {
            out[col] -= lag[k];
          } else {
            out[col] += cs.coefficient(code) * lag[k];
          }
        }
      }
    }
  }
}

// The smallest index i in [0, n) with pred(i), or kNone.
template <class Pred>
std::size_t first_index(std::size_t n, int threads, const Pred& pred) {
  std::size_t first = kNone;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(min : first)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
    const auto idx = static_cast<std::size_t>(i);
    if (idx < first && pred(idx)) first = idx;
  }
  return first;
}

// One writer thread: write() hands over a buffer and returns at once, after the previous buffer has
// been written (so the caller may refill it); finish() waits for the last one. A failed write is
// rethrown by the next call.
class ChunkWriter {
 public:
  explicit ChunkWriter(io::AtomicFileWriter& file) : file_(file), thread_([this] { run(); }) {}
  ~ChunkWriter() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void write(const std::uint8_t* data, std::size_t bytes, std::uint64_t offset) {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return !busy_; });
    if (error_) std::rethrow_exception(error_);
    job_ = {data, bytes, offset};
    busy_ = true;
    cv_.notify_all();
  }
  void finish() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return !busy_; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  struct Job {
    const std::uint8_t* data = nullptr;
    std::size_t bytes = 0;
    std::uint64_t offset = 0;
  };
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return busy_ || stop_; });
      if (!busy_) return;
      const Job job = job_;
      lock.unlock();
      std::exception_ptr error;
      try {
        file_.pwrite({job.data, job.bytes}, job.offset);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error && !error_) error_ = error;
      busy_ = false;
      cv_.notify_all();
    }
  }

  io::AtomicFileWriter& file_;
  std::mutex mutex_;
  std::condition_variable cv_;
  Job job_;
  bool busy_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once everything above exists
};

// Streams one vector (u32 length, then the points) at `offset` of the file: scalars of chunk c come from
// fill(first, out), are encoded into one of two buffers, and written while the next chunk is encoded.
class VectorStreamer {
 public:
  VectorStreamer(groth16::FixedBaseEncoder& encoder, io::AtomicFileWriter& file, std::size_t chunk_points,
                 const std::function<void(const std::string&)>& progress)
      : encoder_(encoder), file_(file), chunk_points_(chunk_points), progress_(progress) {}

  // Returns the offset after the vector.
  std::uint64_t stream(const char* name, bool g2, std::size_t count, std::uint64_t offset,
                       const std::function<void(std::size_t, std::span<Fr>)>& fill) {
    const auto start = Clock::now();
    std::uint8_t length[kLengthBytes];
    groth16::write_vector_length(count, name, length);
    file_.pwrite(length, offset);
    offset += kLengthBytes;
    const std::size_t point_bytes = g2 ? kG2Bytes : kG1Bytes;
    // G2 chunks hold as many bytes as G1 chunks, so the two buffers serve both.
    const std::size_t per_chunk = std::max<std::size_t>(1, g2 ? chunk_points_ / 2 : chunk_points_);
    ensure_buffers(std::min(count, per_chunk) * point_bytes, std::min(count, per_chunk));
    ChunkWriter writer(file_);
    auto last_report = start;
    for (std::size_t first = 0, index = 0; first < count; first += per_chunk, ++index) {
      const std::size_t n = std::min(per_chunk, count - first);
      std::span<Fr> scalars(scalars_.data(), n);
      fill(first, scalars);
      std::uint8_t* buffer = buffers_[index % 2].get();
      if (g2) {
        encoder_.encode_g2(scalars, buffer);
      } else {
        encoder_.encode_g1(scalars, buffer);
      }
      writer.write(buffer, n * point_bytes, offset + first * point_bytes);
      const double elapsed = seconds_since(start);
      if (progress_ && first + n < count &&
          std::chrono::duration<double>(Clock::now() - last_report).count() >= 5) {
        last_report = Clock::now();
        const double rate = double(first + n) / elapsed;
        progress_(fmt::format("{}: {:.0f}% ({} of {} points), {:.2f} M points/s, ETA {:.0f} s", name,
                              100.0 * double(first + n) / double(count), first + n, count, rate / 1e6,
                              double(count - first - n) / rate));
      }
    }
    writer.finish();
    if (progress_) {
      const double elapsed = seconds_since(start);
      progress_(fmt::format("phase {}: {:.2f} s ({} {} points, {:.2f} M points/s, {:.0f} MB/s)", name,
                            elapsed, count, g2 ? "G2" : "G1",
                            elapsed > 0 ? double(count) / elapsed / 1e6 : 0.0,
                            elapsed > 0 ? double(count * point_bytes) / elapsed / 1e6 : 0.0));
    }
    return offset + std::uint64_t{count} * point_bytes;
  }

 private:
  void ensure_buffers(std::size_t bytes, std::size_t scalars) {
    if (bytes > buffer_bytes_) {
      for (auto& b : buffers_) b = std::make_unique_for_overwrite<std::uint8_t[]>(bytes);
      buffer_bytes_ = bytes;
    }
    if (scalars > scalars_.size()) scalars_.resize(scalars);
  }

  groth16::FixedBaseEncoder& encoder_;
  io::AtomicFileWriter& file_;
  std::size_t chunk_points_;
  const std::function<void(const std::string&)>& progress_;
  std::unique_ptr<std::uint8_t[]> buffers_[2];
  std::size_t buffer_bytes_ = 0;
  std::vector<Fr> scalars_;
};

using Progress = std::function<void(const std::string&)>;

// Hands `line` to `progress` when there is one.
void say(const Progress& progress, const std::string& line) {
  if (progress) progress(line);
}

// Every variable's u_i, v_i, w_i(tau), and what the query vectors make of them.
struct VariablesAtTau {
  const groth16::ToxicWaste& waste;
  const r1cs::Densities& dens;
  std::size_t ni;  // inputs, ONE included
  Fr gamma_inv, delta_inv;
  std::vector<Fr> u, v, w;

  // ic_i / l_i = (beta u_i + alpha v_i + w_i) / gamma or / delta.
  Fr query(std::size_t i) const {
    return (waste.beta * u[i] + waste.alpha * v[i] + w[i]) * (i < ni ? gamma_inv : delta_inv);
  }
  bool has_a(std::size_t i) const { return i < ni || dens.a_aux.test(i - ni); }
  bool has_b(std::size_t i) const { return i < ni ? dens.b_input.test(i) : dens.b_aux.test(i - ni); }
};

// u, v, w at tau: the Lagrange values over the domain, the transposed products with them, and L_(nc+i) in
// u_i for the input constraints; one progress line per phase.
void evaluate_at_tau(const CompactR1cs& cs, const groth16::EvaluationDomain& domain, const Fr& z_tau,
                     unsigned threads, int nt, const Progress& progress, VariablesAtTau& at) {
  const std::size_t ni = cs.num_inputs, nv = cs.num_variables(), nc = cs.num_constraints();
  auto phase_start = Clock::now();
  at.u.resize(nv);
  at.v.resize(nv);
  at.w.resize(nv);
  {
    const std::vector<Fr> lag = groth16::lagrange_at(domain, at.waste.tau, z_tau, threads);
    say(progress,
        fmt::format("phase lagrange: {:.2f} s (domain 2^{})", seconds_since(phase_start), domain.log_size()));
    phase_start = Clock::now();
    transposed_products(cs, lag, at.u, at.v, at.w, nt);
    for (std::size_t i = 0; i < ni; ++i) at.u[i] += lag[nc + i];
  }
  say(progress, fmt::format("phase qap: {:.2f} s (u, v, w at tau for {} variables over {} matrix entries)",
                            seconds_since(phase_start), nv, cs.nnz()));
}

// The per-variable checks of generate_parameters, in its order: no zero IC or L element (an unconstrained
// aux variable is reported as such), no zero u_i(tau) where a holds i, no zero v_i(tau) where b does.
void check_variables(const VariablesAtTau& at, std::size_t nv, int nt) {
  const std::size_t ni = at.ni;
  if (const std::size_t i = first_index(nv, nt, [&](std::size_t j) { return at.query(j).is_zero(); });
      i != kNone) {
    if (i < ni) groth16::throw_degenerate_waste("the IC element of input " + std::to_string(i) + " is zero");
    const std::size_t k = i - ni;
    if (!(at.dens.a_aux.test(k) || at.dens.b_aux.test(k) || !at.w[i].is_zero()))
      groth16::throw_unconstrained_variable(k, i);
    groth16::throw_degenerate_waste("the L element of aux variable " + std::to_string(k) + " is zero");
  }
  auto zero_where_held = [&](std::size_t j) {
    return (at.has_a(j) && at.u[j].is_zero()) || (at.has_b(j) && at.v[j].is_zero());
  };
  if (const std::size_t i = first_index(nv, nt, zero_where_held); i != kNone) {
    if (at.has_a(i) && at.u[i].is_zero())
      groth16::throw_degenerate_waste("u_" + std::to_string(i) + "(tau) is zero");
    groth16::throw_degenerate_waste("v_" + std::to_string(i) + "(tau) is zero");
  }
}

// Which variables the a and b vectors hold, in order.
struct VectorVariables {
  std::vector<std::uint32_t> a, b;
};

// The variables of the a and b vectors (the layout gives their counts).
VectorVariables vector_variables(const VariablesAtTau& at, const Layout& layout, std::size_t nv) {
  VectorVariables vars;
  vars.a.reserve(layout.a);
  vars.b.reserve(layout.b);
  for (std::size_t i = 0; i < nv; ++i) {
    if (at.has_a(i)) vars.a.push_back(static_cast<std::uint32_t>(i));
    if (at.has_b(i)) vars.b.push_back(static_cast<std::uint32_t>(i));
  }
  return vars;
}

// The vk block: alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2, u32 ic length, ic.
std::vector<std::uint8_t> encode_vk_block(const VariablesAtTau& at, const Layout& layout,
                                          groth16::FixedBaseEncoder& encoder) {
  const groth16::ToxicWaste& waste = at.waste;
  std::vector<std::uint8_t> vk(layout.vk_bytes());
  const Fr g1_scalars[3] = {waste.alpha, waste.beta, waste.delta};
  const Fr g2_scalars[3] = {waste.beta, waste.gamma, waste.delta};
  std::uint8_t g1[3 * kG1Bytes], g2[3 * kG2Bytes];
  encoder.encode_g1(g1_scalars, g1);
  encoder.encode_g2(g2_scalars, g2);
  std::uint8_t* out = vk.data();
  auto put = [&](const std::uint8_t* from, std::size_t bytes) {
    std::copy(from, from + bytes, out);
    out += bytes;
  };
  put(g1, 2 * kG1Bytes);             // alpha_g1, beta_g1
  put(g2, 2 * kG2Bytes);             // beta_g2, gamma_g2
  put(g1 + 2 * kG1Bytes, kG1Bytes);  // delta_g1
  put(g2 + 2 * kG2Bytes, kG2Bytes);  // delta_g2
  groth16::write_vector_length(at.ni, "ic", out);
  out += kLengthBytes;
  std::vector<Fr> ic(at.ni);
  for (std::size_t i = 0; i < at.ni; ++i) ic[i] = at.query(i);
  encoder.encode_g1(ic, out);
  return vk;
}

// Streams h, l, a, b_g1 and b_g2 from `offset` (the end of the vk block), and checks that they end where
// the layout says.
void stream_vectors(VectorStreamer& streamer, const VariablesAtTau& at, const VectorVariables& vars,
                    const Fr& z_tau, const Layout& layout, std::uint64_t offset, unsigned threads, int nt) {
  const std::size_t ni = at.ni;
  const Fr h_scale = z_tau * at.delta_inv;  // h_j = tau^j Z(tau) / delta
  offset = streamer.stream("h", false, layout.h, offset, [&](std::size_t first, std::span<Fr> out) {
    groth16::fill_powers(at.waste.tau, h_scale, first, out, threads);
  });
  offset = streamer.stream("l", false, layout.aux, offset, [&](std::size_t first, std::span<Fr> out) {
#pragma omp parallel for schedule(static) num_threads(nt)
    for (std::int64_t j = 0; j < static_cast<std::int64_t>(out.size()); ++j)
      out[j] = at.query(ni + first + static_cast<std::size_t>(j));
  });
  auto gather = [&](const std::vector<std::uint32_t>& vars, const std::vector<Fr>& values) {
    return [&vars, &values, nt](std::size_t first, std::span<Fr> out) {
#pragma omp parallel for schedule(static) num_threads(nt)
      for (std::int64_t j = 0; j < static_cast<std::int64_t>(out.size()); ++j)
        out[j] = values[vars[first + static_cast<std::size_t>(j)]];
    };
  };
  offset = streamer.stream("a", false, layout.a, offset, gather(vars.a, at.u));
  offset = streamer.stream("b_g1", false, layout.b, offset, gather(vars.b, at.v));
  offset = streamer.stream("b_g2", true, layout.b, offset, gather(vars.b, at.v));
  if (offset != layout.params_bytes())
    throw std::logic_error("write_test_parameters: wrote " + std::to_string(offset) +
                           " bytes, the layout says " + std::to_string(layout.params_bytes()));
}

}  // namespace

TestParametersSize test_parameters_size(const CompactR1cs& cs) {
  const Layout l = layout_of(cs);
  return {l.params_bytes(), l.vk_bytes()};
}

void write_test_parameters(const CompactR1cs& cs, const groth16::ToxicWaste& waste,
                           groth16::FixedBaseEncoder& encoder, const std::filesystem::path& params_path,
                           const std::filesystem::path& vk_path, unsigned threads,
                           const std::function<void(const std::string&)>& progress,
                           std::size_t chunk_points) {
  const int nt = thread_count(threads);
  if (chunk_points == 0) chunk_points = kDefaultSetupChunkPoints;
  validate(cs, "compact R1CS");
  if (cs.num_inputs == 0)  // as groth16::validate_r1cs
    throw groth16::Groth16Error(groth16::Groth16ErrorKind::kMalformedInput,
                                "R1CS has no inputs (input 0 must be ONE)");
  const std::size_t ni = cs.num_inputs, nv = cs.num_variables(), nc = cs.num_constraints();
  const groth16::EvaluationDomain domain(nc + ni);
  const std::size_t m = domain.size();

  // The checks of generate_parameters, in its order (prover/groth16/setup.cpp).
  if (waste.gamma.is_zero()) groth16::throw_degenerate_waste("gamma is zero");
  if (waste.delta.is_zero()) groth16::throw_degenerate_waste("delta is zero");
  const Fr z_tau = waste.tau.pow(static_cast<algebra::u64>(m)) - Fr::one();
  if (z_tau.is_zero()) groth16::throw_degenerate_waste("tau is in the evaluation domain");
  VariablesAtTau at{waste, cs.densities, ni, waste.gamma.inverse(), waste.delta.inverse(), {}, {}, {}};

  evaluate_at_tau(cs, domain, z_tau, threads, nt, progress, at);
  auto phase_start = Clock::now();
  check_variables(at, nv, nt);
  const Layout layout = layout_of(cs);
  const VectorVariables vars = vector_variables(at, layout, nv);
  say(progress, fmt::format("phase checks: {:.2f} s", seconds_since(phase_start)));

  io::AtomicFileWriter params_file(params_path);
  io::AtomicFileWriter vk_file(vk_path);
  params_file.preallocate(layout.params_bytes());
  say(progress, fmt::format("writing {} ({} bytes) with the {} encoder", params_path.string(),
                            layout.params_bytes(), encoder.name()));

  phase_start = Clock::now();
  const std::vector<std::uint8_t> vk = encode_vk_block(at, layout, encoder);
  params_file.pwrite(vk, 0);
  vk_file.write(vk);
  say(progress, fmt::format("phase vk: {:.2f} s ({} inputs)", seconds_since(phase_start), ni));

  VectorStreamer streamer(encoder, params_file, chunk_points, progress);
  stream_vectors(streamer, at, vars, z_tau, layout, vk.size(), threads, nt);

  phase_start = Clock::now();
  params_file.commit();
  vk_file.commit();
  say(progress,
      fmt::format("phase sync: {:.2f} s (fsync and rename of {} and {})", seconds_since(phase_start),
                  params_path.filename().string(), vk_path.filename().string()));
}

}  // namespace cuzk::pce
