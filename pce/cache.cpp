#include "pce/cache.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <system_error>

#include "io/atomic_file.hpp"
#include "io/param_names.hpp"
#include "pce/errors.hpp"

namespace cuzk::pce {

namespace fs = std::filesystem;

fs::path cache_dir(const std::string& flag, const fs::path& params_dir) {
  if (!flag.empty()) return flag;
  const char* env = std::getenv("CUZK_PCE_CACHE");
  if (env != nullptr && *env != '\0') return env;
  return params_dir / "pce";
}

fs::path default_cache_dir() {
  return cache_dir("", io::parameter_cache_dir());
}

fs::path cache_path(const fs::path& cache_dir, const CacheKey& key) {
  bool ok = !key.name.empty() && key.name.front() != '.';
  for (char ch : key.name) {
    const bool allowed = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                         ch == '.' || ch == '_' || ch == '-';
    ok = ok && allowed;
  }
  if (!ok) throw PceError(PceErrorKind::kLimits, "invalid PCE cache name '" + key.name + "'");
  return cache_dir / (key.name + ".pce");
}

CircuitFigures circuit_figures(const CacheHeader& h) {
  return {h.num_constraints, h.num_inputs,    h.num_aux,         h.nnz_a,        h.nnz_b,
          h.nnz_c,           h.density_a_aux, h.density_b_input, h.density_b_aux};
}

CircuitFigures circuit_figures(const CompactR1cs& c) {
  const r1cs::Densities& d = c.densities;
  return {c.num_constraints(), c.num_inputs,         c.num_aux,         c.a.nnz(), c.b.nnz(), c.c.nnz(),
          d.a_aux.popcount(),  d.b_input.popcount(), d.b_aux.popcount()};
}

const CircuitFigures* find_figures(std::span<const FiguresRow> table, std::uint64_t sector_size) {
  for (const FiguresRow& row : table)
    if (row.sector_size == sector_size) return &row.figures;
  return nullptr;
}

namespace {

std::string describe_figures(const CircuitFigures& f) {
  return std::to_string(f.constraints) + " constraints, " + std::to_string(f.inputs) + " inputs, " +
         std::to_string(f.aux) + " aux, " + std::to_string(f.nnz_a) + "/" + std::to_string(f.nnz_b) + "/" +
         std::to_string(f.nnz_c) + " entries in A/B/C";
}

}  // namespace

LoadResult load_or_build(const fs::path& cache_dir, const CacheKey& key, const BuildFn& build_fn,
                         bool readonly, const WriteOptions& write_options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  LoadResult result;
  result.path = cache_path(cache_dir, key);
  try {
    result.pce = read_cache_file(result.path, key.description, write_options.threads);
    if (key.figures && circuit_figures(result.pce) != *key.figures) {
      const CircuitFigures found = circuit_figures(result.pce);
      result.pce = {};
      throw PceError(PceErrorKind::kCorrupt, result.path.string() +
                                                 ": its checksums hold but its circuit is not " + key.name +
                                                 "'s: " + describe_figures(found) + " in the file, " +
                                                 describe_figures(*key.figures) + " in the circuit");
    }
    result.seconds = seconds_since(start);
    spdlog::info("PCE loaded from {} in {:.2f} s", result.path.string(), result.seconds);
    return result;
  } catch (const PceError& e) {
    switch (e.kind()) {
      case PceErrorKind::kMissing:
        if (readonly) {
          throw PceError(PceErrorKind::kReadonly,
                         result.path.string() +
                             ": no PCE cache file, and --pce-readonly forbids building "
                             "one (run `cuzk pce build` first)");
        }
        break;
      case PceErrorKind::kNotACache:
      case PceErrorKind::kVersion:
      case PceErrorKind::kOtherCircuit:
      case PceErrorKind::kTruncated:
      case PceErrorKind::kCorrupt:
      case PceErrorKind::kIo:  // unreadable (permissions, I/O error): the run can still build it in memory
        if (readonly) {
          throw PceError(PceErrorKind::kReadonly,
                         std::string(e.what()) + "; --pce-readonly forbids rebuilding the cache");
        }
        spdlog::warn("PCE cache not used: {}; rebuilding it", e.what());
        result.rebuild_reason = e.what();
        break;
      default:
        throw;
    }
  }

  const auto build_start = Clock::now();
  result.pce = build_fn();
  result.built = true;
  spdlog::info("PCE built in {:.2f} s: {} constraints, {} entries", seconds_since(build_start),
               result.pce.num_constraints(), result.pce.nnz());
  std::error_code ec;
  fs::create_directories(cache_dir, ec);
  if (ec) {
    spdlog::warn("PCE cache not written: cannot create {}: {}", cache_dir.string(), ec.message());
  } else {
    io::remove_stale_temporaries(cache_dir);  // left by writers killed before they renamed
    try {
      const auto write_start = Clock::now();
      const CacheHeader h = write_cache_file(result.path, result.pce, key.description, write_options);
      spdlog::info("PCE written to {} ({} bytes) in {:.2f} s", result.path.string(), h.file_size,
                   seconds_since(write_start));
    } catch (const PceError& e) {
      if (e.kind() != PceErrorKind::kIo) throw;
      // The circuit is built: proving can go on; the next run will try to write the cache again.
      spdlog::warn("PCE cache not written: {}", e.what());
    }
  }
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace cuzk::pce
