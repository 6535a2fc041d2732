// The sizes the memory plans depend on (gpu::ProverShape) for a sector size's PoRep or update circuit,
// without building, loading or decoding anything: the counts of the circuit from the header of its PCE cache
// file when there is one, else from a built-in table of the five production sizes; the lengths of the base
// vectors from the header of the .params file when there is one, else derived from the counts as bellperson
// lays its parameters out. `cuzk prove --dry-run` plans by it on machines without the parameters, the job
// before its first synthesis, and the GPU engine before its first allocation (EngineRequest::shape).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "gpu/memory_plan.hpp"
#include "pce/cache.hpp"
#include "pce/cache_file.hpp"
#include "pce/compact_r1cs.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/update/shape.hpp"

namespace cuzk::job {

// One partition circuit's figures, as a PCE cache header records them (pce/cache.hpp).
using pce::circuit_figures;
using pce::CircuitFigures;
// The built-in figures of a production sector size's circuit (nullptr for a shape not in the table:
// pce::builtin_porep_figures).
const CircuitFigures* builtin_circuit_figures(const porep::SectorShape& sector);

// The shape of the parameters bellperson makes for the circuit: h = domain - 1 (the domain being the next
// power of two of constraints + inputs), l = aux, and the points of zero polynomials filtered out of the
// others: a = inputs + the aux variables used by A, b_g1 = b_g2 = the inputs and aux variables used by B.
gpu::ProverShape prover_shape(const CircuitFigures& figures);
// The vector lengths of a .params header in place of the derived ones.
void apply_parameter_header(gpu::ProverShape& shape, const groth16::ParameterHeader& header);

struct ProverShapeResult {
  gpu::ProverShape shape;
  std::string circuit_from;  // "the PCE cache <path>" or "the built-in table"
  std::string vectors_from;  // "<params path>" or "derived from the circuit"
  bool params_present = false;
};

// The shape for a production sector size: the PCE cache file of its circuit in `pce_dir` when it exists
// and is for this circuit (its header only, checked: a damaged one is passed over), else the built-in
// table; the .params file at `params_path` when it exists (its header: vector lengths), else derived.
// Throws what groth16::read_parameter_header throws for a malformed .params file.
ProverShapeResult prover_shape_for(const porep::SectorShape& sector, const std::filesystem::path& pce_dir,
                                   const std::string& params_path);
// The same for the update (SnapDeals) circuit of a registered size (pce/update_pce.hpp: its cache key and
// built-in figures) and its update .params file.
ProverShapeResult update_prover_shape_for(const update::UpdateShape& shape,
                                          const std::filesystem::path& pce_dir,
                                          const std::string& params_path);

}  // namespace cuzk::job
