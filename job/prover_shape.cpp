#include "job/prover_shape.hpp"

#include <spdlog/spdlog.h>

#include <array>
#include <bit>
#include <system_error>

#include "pce/cache.hpp"
#include "pce/errors.hpp"
#include "pce/porep_pce.hpp"
#include "pce/update_pce.hpp"
#include "prover/porep/circuit.hpp"

namespace cuzk::job {

const CircuitFigures* builtin_circuit_figures(const porep::SectorShape& sector) {
  return pce::builtin_porep_figures(sector.sector_size);
}

gpu::ProverShape prover_shape(const CircuitFigures& f) {
  gpu::ProverShape s;
  s.constraints = f.constraints;
  s.inputs = f.inputs;
  s.aux = f.aux;
  s.nnz_a = f.nnz_a;
  s.nnz_b = f.nnz_b;
  s.nnz_c = f.nnz_c;
  // bellperson's generate_parameters: one h point per power of tau below domain - 1; one l point per aux
  // variable; a, b_g1, b_g2 skip the variables whose polynomial is zero (not in the density), except that
  // every input is in a (the input * 0 = 0 rows put each input in A).
  s.h = std::bit_ceil(std::max<std::uint64_t>(f.constraints + f.inputs, 2)) - 1;
  s.l = f.aux;
  s.a = f.inputs + f.density_a_aux;
  s.b_g1 = s.b_g2 = f.density_b_input + f.density_b_aux;
  return s;
}

void apply_parameter_header(gpu::ProverShape& shape, const groth16::ParameterHeader& header) {
  shape.h = header.h;
  shape.l = header.l;
  shape.a = header.a;
  shape.b_g1 = header.b_g1;
  shape.b_g2 = header.b_g2;
}

namespace {

// The figures from the cache file of `key` in `pce_dir` when it holds this circuit, else `builtin`; the
// vector lengths from the .params header at `params_path` when there is one.
ProverShapeResult shape_from(const pce::CacheKey& key, const CircuitFigures* builtin,
                             const std::string& label, const std::filesystem::path& pce_dir,
                             const std::string& params_path) {
  ProverShapeResult result;
  const std::filesystem::path cache = pce::cache_path(pce_dir, key);
  std::error_code ec;
  bool from_cache = false;
  if (std::filesystem::is_regular_file(cache, ec)) {
    try {
      // The header alone (320 bytes, its digest checked): the cache of a 32GiB circuit is gigabytes.
      const pce::CacheHeader header = pce::read_cache_header(cache);
      if (header.description == key.description) {
        result.shape = prover_shape(circuit_figures(header));
        result.circuit_from = "the PCE cache " + cache.string();
        from_cache = true;
      }
    } catch (const pce::PceError& e) {
      // A damaged cache is rebuilt by the run that needs it; the table has the same figures.
      spdlog::debug("{}: not used for the memory plan ({})", cache.string(), e.what());
    }
  }
  if (!from_cache) {
    if (!builtin) throw std::logic_error("no built-in circuit figures for " + label);
    result.shape = prover_shape(*builtin);
    result.circuit_from = "the built-in table";
  }
  result.vectors_from = "derived from the circuit";
  if (std::filesystem::is_regular_file(params_path, ec)) {
    apply_parameter_header(result.shape, groth16::read_parameter_header(params_path));
    result.vectors_from = params_path;
    result.params_present = true;
  }
  return result;
}

}  // namespace

ProverShapeResult prover_shape_for(const porep::SectorShape& sector, const std::filesystem::path& pce_dir,
                                   const std::string& params_path) {
  return shape_from(pce::porep_cache_key(porep::StackedCircuitShape::from_sector(sector)),
                    builtin_circuit_figures(sector), std::string(sector.label) + " sectors", pce_dir,
                    params_path);
}

ProverShapeResult update_prover_shape_for(const update::UpdateShape& shape,
                                          const std::filesystem::path& pce_dir,
                                          const std::string& params_path) {
  return shape_from(pce::update_cache_key(shape), pce::builtin_update_figures(shape.sector_bytes()),
                    "update circuits of " + std::to_string(shape.sector_bytes()) + "-byte sectors", pce_dir,
                    params_path);
}

}  // namespace cuzk::job
