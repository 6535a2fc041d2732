// The update (SnapDeals) proving path of `cuzk prove`: update input files (prover/update/input_file.hpp) in,
// verified EmptySectorUpdate proofs out, on the CPU. The same contract as prove_c1_files for the options it
// honours (output_dir, params_dir, verify, dump_public_inputs, pce_cache_dir, pce_readonly, keep_going,
// threads, fixed_randomness, stop_requested and the callbacks): every input checked first (parsed, its
// output paths and the update .params/.vk of its size), then per sector every partition synthesized through
// the update PCE (pce/update_pce.hpp, loaded or built once per sector size), checked (a * b = c), proven with
// the engine make_engine makes for the update .params (the CPU's; --gpu is refused by cli/ until the GPU
// engine's update proofs are checked on a device) (r, s from a CSPRNG per partition unless fixed), verified
// against the update .vk and update::sector_public_inputs, and `<sector_id>.proof` written atomically (192
// bytes per partition). The job's other machinery (the GPU engines, memory plans, overlap, --skip-existing)
// is PoRep's only for now: in a mixed run (prove_input_files) the C1 files get it, the update inputs the CPU
// path.
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

}  // namespace cuzk::job
