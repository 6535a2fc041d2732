// a = A·z, b = B·z, c = C·z from a witness (WitnessGen's inputs and aux) and a compact R1cs, without
// building a single linear combination: the proving path's replacement for synthesis with a recorder.
//
// Multi-threaded (OpenMP) over blocks of constraints of about equal work; the three matrices of a
// block are evaluated together (their rows read nearby witness values). Fast paths, per entry:
//   +-1                   one addition or subtraction;
//   +-2^k, value 0 or 1   skip, or add the constant +-2^k (bits are most of the witness);
//   +-2^k, k <= 2         k doublings;
//   otherwise             one Montgomery multiplication (by 2^k or by the table value; a table value
//                         times a 0/1 value is skipped or added as is).
#pragma once

#include <span>
#include <vector>

#include "pce/compact_r1cs.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/r1cs/evaluate.hpp"

namespace cuzk::pce {

// Writes the three products into a, b, c (each num_constraints long). Throws PceError(kWitness) when
// the witness or output lengths do not fit. `threads` = 0 uses OpenMP's default.
void evaluate_into(const CompactR1cs& pce, std::span<const Fr> inputs, std::span<const Fr> aux,
                   std::span<Fr> a, std::span<Fr> b, std::span<Fr> c, unsigned threads = 0);

r1cs::Evaluation evaluate(const CompactR1cs& pce, std::span<const Fr> inputs, std::span<const Fr> aux,
                          unsigned threads = 0);

// What the Groth16 prover takes: the witness (moved in), a, b, c and the densities stored with the PCE.
// `recycled`: an earlier prover input whose a, b, c vectors are reused (their memory is already mapped: at
// 32GiB sectors, 12.9 GB that would otherwise be faulted in and zeroed anew for every partition).
groth16::ProverInput make_prover_input(const CompactR1cs& pce, std::vector<Fr> inputs, std::vector<Fr> aux,
                                       unsigned threads = 0, groth16::ProverInput&& recycled = {});

}  // namespace cuzk::pce
