// The update (SnapDeals) proving path of `cuzk prove`: update input files (prover/update/input_file.hpp) in,
// verified EmptySectorUpdate proofs out. The same contract as prove_c1_files for the options it honours
// (output_dir, params_dir, verify, dump_public_inputs, pce_cache_dir, pce_readonly, keep_going,
// skip_existing, threads, overlap, engine, fixed_randomness, stop_requested and the callbacks): every input
// checked first (parsed, its output paths and the update .params/.vk of its size), the memory plan made,
// logged and a run that does not fit refused (exit 8), then per sector every partition synthesized through
// the update PCE (pce/update_pce.hpp, loaded or built once per sector size) on all host threads, proven on
// the run's engine (the CPU's, or with --gpu one GPU's, which may hold the constraint matrices: then
// synthesis makes the witness only), in two stages (job/two_stage.hpp), r, s from a CSPRNG per partition
// unless fixed, verified against the update .vk and update::sector_public_inputs, and `<sector_id>.proof`
// written atomically (192 bytes per partition). Several GPUs and --cpu-engines are PoRep's only for now (cli/
// refuses them).
#pragma once

#include <string>
#include <vector>

#include "job/prove.hpp"
#include "job/run_report.hpp"

namespace cuzk::job {

// Whether `path` holds an update input file rather than a C1 file: its text (the first MiB) names one of the
// update file's commitments ("comm_r_old", "comm_r_new", "comm_d_new"), which a C1 file never has. A file
// that cannot be read, or is not a regular file (a FIFO is never opened here), is not one (the C1 reader then
// names the fault).
bool is_update_input_file(const std::string& path);

// Throws what prove_c1_files throws (JobError, update::UpdateError for a refused input, io::IoError, ...);
// with keep_going a failed sector is in RunReport::failures instead.
RunReport prove_update_files(const std::vector<std::string>& paths, const ProveOptions& options);

// `cuzk prove`'s inputs of either kind (is_update_input_file): all C1 files go to prove_c1_files, all update
// files to prove_update_files; a mix is checked as one run (the update inputs, then the C1 files, before any
// partition is synthesized; an update input and a C1 file that write the same proof file are refused), then
// the C1 files are proven by the run's engines and the update inputs on the CPU. The report holds both kinds'
// sectors (the C1 files' first), failures in input order with positions in `paths`, and the update path's
// shared phases as "update.params.load", "update.pce.load" or "update.pce.build".
RunReport prove_input_files(const std::vector<std::string>& paths, const ProveOptions& options);

// `cuzk prove --dry-run` over inputs of either kind: what prove_input_files would do, from its up-front
// checks alone (plan_c1_files for the C1 files; for the update inputs the same: parsed, output paths and the
// update parameters checked, missing parameter files noted, nothing made or written, the first bad input
// throws), and the memory plan of the circuit that needs the most: an update circuit's is labelled "<size>
// update" and has one synthesis in flight (the producer, on all threads) and one engine.
RunPlan plan_input_files(const std::vector<std::string>& paths, const ProveOptions& options);

}  // namespace cuzk::job
