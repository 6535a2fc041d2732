// Load-or-build: the PCE of a circuit comes from its cache file when that file is valid for the circuit,
// and is otherwise extracted (build_fn: typically a CompactRecorder run of the circuit), written
// atomically and returned.
//
//   pce::CacheKey key{"porep-2KiB", "stacked-drg v1 nodes=64 layers=2 challenges=2 arities=8-0-0"};
//   pce::LoadResult r = pce::load_or_build(pce::default_cache_dir(), key, [&] {
//     pce::CompactRecorder cs;
//     porep::synthesize_stacked_circuit(cs, shape, porep::PartitionWitness::blank(shape));
//     return cs.finish();
//   });
//
// A cache file that is corrupt, truncated, of another format version, for another circuit, unreadable
// or not a regular file (a directory, a FIFO, a link to a device) is never used: it is reported (spdlog
// warn) and rebuilt, or, with `readonly`, refused with PceError(kReadonly) naming the file and the
// problem. A rebuilt cache that cannot be written (the folder is a file, a read-only file system, the
// path is a directory) is used in memory with a warning. A missing file with `readonly` is refused too
// (read-only means the cache directory is provisioned ahead, e.g. by `cuzk pce build`).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "pce/cache_file.hpp"
#include "pce/compact_r1cs.hpp"

namespace cuzk::pce {

// The one rule for where PCE caches live, shared by `cuzk prove`, `cuzk bench` and `cuzk pce build`:
// `flag` (--pce-cache-dir, --cache-dir) when given, else CUZK_PCE_CACHE when set and not empty, else
// <params_dir>/pce, beside the parameters the run uses.
std::filesystem::path cache_dir(const std::string& flag, const std::filesystem::path& params_dir);
// cache_dir with no flag and io::parameter_cache_dir() (FIL_PROOFS_PARAMETER_CACHE, default
// /var/tmp/filecoin-proof-parameters).
std::filesystem::path default_cache_dir();

// One circuit's figures, as a cache header records them (cache_file.hpp).
struct CircuitFigures {
  std::uint64_t constraints = 0, inputs = 0, aux = 0;  // inputs include ONE
  std::uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  std::uint64_t density_a_aux = 0, density_b_input = 0, density_b_aux = 0;  // popcounts
  friend bool operator==(const CircuitFigures&, const CircuitFigures&) = default;
};

CircuitFigures circuit_figures(const CacheHeader& header);
CircuitFigures circuit_figures(const CompactR1cs& circuit);

// A row of a built-in table of circuit figures, one per sector size (builtin_porep_figures,
// builtin_update_figures), and its lookup: nullptr for a size not in the table.
struct FiguresRow {
  std::uint64_t sector_size;
  CircuitFigures figures;
};
const CircuitFigures* find_figures(std::span<const FiguresRow> table, std::uint64_t sector_size);

struct CacheKey {
  // File stem: the cache file is <dir>/<name>.pce. Letters, digits, '.', '_' and '-' only. A circuit whose
  // definition changes keeps its name and gets a new description: the old file is then detected as
  // "another circuit" and replaced, instead of piling up.
  std::string name;
  // The canonical description of everything that defines the circuit's shape; its SHA-256 is the
  // circuit id stored in the file.
  std::string description;
  // The circuit's figures when they are known without building it (the production PoRep circuits:
  // porep_cache_key). A cache whose checksums hold but whose figures differ was written wrong, or forged:
  // it is corrupt (rebuilt, or refused with --pce-readonly), never used to blame the parameters or the C1.
  std::optional<CircuitFigures> figures = std::nullopt;
};

std::filesystem::path cache_path(const std::filesystem::path& cache_dir, const CacheKey& key);

struct LoadResult {
  CompactR1cs pce;
  std::filesystem::path path;
  bool built = false;          // false: loaded from the cache file
  std::string rebuild_reason;  // why an existing file was not used (empty when it was, or none existed)
  double seconds = 0;          // loading, or building + writing
};

using BuildFn = std::function<CompactR1cs()>;

// Throws PceError: kReadonly (see above), kLimits from building; anything build_fn throws passes through.
// Stale temporary files of killed writers in cache_dir are removed (io::remove_stale_temporaries).
LoadResult load_or_build(const std::filesystem::path& cache_dir, const CacheKey& key, const BuildFn& build_fn,
                         bool readonly = false, const WriteOptions& write_options = {});

}  // namespace cuzk::pce
