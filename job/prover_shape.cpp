#include "job/prover_shape.hpp"

#include <spdlog/spdlog.h>

#include <array>
#include <bit>
#include <system_error>

#include "pce/cache.hpp"
#include "pce/errors.hpp"
#include "pce/porep_pce.hpp"
#include "prover/porep/circuit.hpp"

namespace cuzk::job {

namespace {

struct TableRow {
  std::uint64_t sector_size;
  CircuitFigures figures;
};

// The partition circuits of the five production sizes: the headers of the cache files that
// pce::build_porep_pce (`cuzk pce build --sector-size S`) records, as `cuzk pce info` prints them.
// Constraints, inputs and aux are docs/circuit.md §9's; the 32GiB row also gives the production 32GiB .params
// file's exact size, 47,373,928,632 bytes (a + 3 b_g1 = 229,090,466 with 96-byte G1 and 192-byte G2 points).
// tests/test_prover_shape.cpp checks all of it, and the 2KiB and 8MiB rows against caches built afresh.
//   constraints, inputs, aux, nnz A, B, C, density A aux, B inputs, B aux
static_assert(pce::kStackedCircuitRevision == 1,
              "the circuit changed: record the table again (cuzk pce build)");
constexpr std::array<TableRow, 5> kBuiltin = {{
    // 2KiB: built in 2.6 s (0.2 GB).
    {std::uint64_t{2} << 10,
     {2'687'921, 40, 2'685'673, 6'420'965, 2'689'006, 5'824'682, 2'674'908, 1, 685'521}},
    // 8MiB: built in 3.9 s.
    {std::uint64_t{8} << 20,
     {3'844'929, 40, 3'842'449, 9'388'413, 3'847'886, 8'234'882, 3'814'996, 1, 1'011'289}},
    // 512MiB: built in 5.2 s.
    {std::uint64_t{512} << 20,
     {4'423'433, 40, 4'420'837, 10'872'137, 4'427'326, 9'439'982, 4'385'040, 1, 1'174'173}},
    // 32GiB: recording it takes minutes on one core and ~7 GB of memory.
    {std::uint64_t{32} << 30,
     {130'278'541, 328, 130'169'893, 309'404'723, 130'327'340, 282'656'500, 129'753'292, 1, 33'112'281}},
    // 64GiB: likewise.
    {std::uint64_t{64} << 30,
     {131'185'849, 328, 131'076'643, 311'892'197, 131'235'764, 284'512'534, 130'637'542, 1, 33'386'943}},
}};

}  // namespace

CircuitFigures circuit_figures(const pce::CacheHeader& h) {
  return {h.num_constraints, h.num_inputs,    h.num_aux,         h.nnz_a,        h.nnz_b,
          h.nnz_c,           h.density_a_aux, h.density_b_input, h.density_b_aux};
}

CircuitFigures circuit_figures(const pce::CompactR1cs& c) {
  const r1cs::Densities& d = c.densities;
  return {c.num_constraints(), c.num_inputs,         c.num_aux,         c.a.nnz(), c.b.nnz(), c.c.nnz(),
          d.a_aux.popcount(),  d.b_input.popcount(), d.b_aux.popcount()};
}

const CircuitFigures* builtin_circuit_figures(const porep::SectorShape& sector) {
  for (const TableRow& row : kBuiltin)
    if (row.sector_size == sector.sector_size) return &row.figures;
  return nullptr;
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

ProverShapeResult prover_shape_for(const porep::SectorShape& sector, const std::filesystem::path& pce_dir,
                                   const std::string& params_path) {
  ProverShapeResult result;
  const pce::CacheKey key = pce::porep_cache_key(porep::StackedCircuitShape::from_sector(sector));
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
    const CircuitFigures* figures = builtin_circuit_figures(sector);
    if (!figures)
      throw std::logic_error("no built-in circuit figures for " + std::string(sector.label) + " sectors");
    result.shape = prover_shape(*figures);
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

}  // namespace cuzk::job
