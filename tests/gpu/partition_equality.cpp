// One partition of a real sector proven by the GPU engine and by the CPU engine with the same r and s: the
// two proofs must be the same bytes (proof equality at production size, where a whole
// sector on the CPU does not fit in a device session). The GPU tests compare the engines at 2KiB and 8MiB;
// this is the check at 32GiB and 64GiB (domain 2^27), where the MSMs run their largest windows and the
// memory plan may stream. Run by scripts/scale-run.sh (CUZK_SCALE_EQUALITY) on a GPU machine:
//
//   gpu_partition_equality C1_FILE PARAMS_DIR PCE_CACHE_DIR PARTITION SEED [GPU_MEMORY_BYTES]
//
// Prints the proofs in hex and each engine's phase times; exit 0 when the proofs are equal and verify, 1 when
// they differ or do not verify, 2 on bad arguments or any error.
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "gpu/groth16_engine.hpp"
#include "job/engine.hpp"
#include "pce/porep_pce.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/groth16/randomness.hpp"
#include "prover/groth16/verifier.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/circuit.hpp"
#include "prover/porep/param_names.hpp"

namespace {

using namespace cuzk;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string hex(const groth16::Proof& proof) {
  const auto bytes = proof.to_bytes();
  return algebra::bytes_to_hex(bytes);
}

groth16::Proof prove_timed(const char* engine_name, groth16::ProverEngine& engine,
                           const groth16::ParameterHeader& header, groth16::ProverInput& input,
                           const std::pair<algebra::Fr, algebra::Fr>& rs) {
  groth16::ProveTimings t;
  const auto t0 = std::chrono::steady_clock::now();
  groth16::Proof proof = groth16::prove_with(engine, header, input, rs.first, rs.second, &t);
  std::printf("%s engine: prove %.3f s (H %.3f s, G1 MSMs %.3f s, G2 MSM %.3f s)\n", engine_name,
              seconds_since(t0), t.h.wall_s, t.msm_g1.wall_s, t.msm_g2.wall_s);
  std::fflush(stdout);
  return proof;
}

int run(int argc, char** argv) {
  if (argc < 6 || argc > 7) {
    std::fprintf(stderr, "usage: %s C1_FILE PARAMS_DIR PCE_CACHE_DIR PARTITION SEED [GPU_MEMORY_BYTES]\n",
                 argv[0]);
    return 2;
  }
  const std::string c1_path = argv[1], params_dir = argv[2], pce_dir = argv[3];
  const unsigned partition = static_cast<unsigned>(std::stoul(argv[4]));
  const auto rs = groth16::test_randomness(std::stoull(argv[5]));
  gpu::GpuEngineOptions gpu_options;
  if (argc == 7) gpu_options.memory_limit = std::stoull(argv[6]);

  auto t0 = std::chrono::steady_clock::now();
  const porep::C1Output c1 = porep::read_c1_file(c1_path);
  const porep::RegisteredSealProof& proof_type = *c1.registered_proof;
  if (partition >= proof_type.partitions()) {
    std::fprintf(stderr, "%s has %u partitions; partition %u does not exist\n", c1_path.c_str(),
                 proof_type.partitions(), partition);
    return 2;
  }
  const porep::StackedCircuitShape shape = porep::StackedCircuitShape::from_sector(*proof_type.shape);
  const pce::LoadResult loaded = pce::load_or_build_porep(pce_dir, shape, /*readonly=*/false);
  std::printf("C1 read and PCE %s in %.1f s\n", loaded.built ? "built" : "loaded", seconds_since(t0));

  t0 = std::chrono::steady_clock::now();
  groth16::ProverInput input =
      pce::porep_prover_input(loaded.pce, shape, porep::PartitionWitness::from_c1(c1, partition));
  std::printf("partition %u synthesized in %.1f s: %zu inputs, %zu aux, %zu constraints\n", partition,
              seconds_since(t0), input.inputs.size(), input.aux.size(), input.a.size());
  if (auto row = groth16::first_unsatisfied(input)) {
    std::fprintf(stderr, "partition %u is not satisfied at constraint %zu\n", partition, *row);
    return 2;
  }
  // The prover may reuse a, b and c's memory (the dense scalars are gathered into it), so each engine gets
  // its own copy of the synthesized partition.
  groth16::ProverInput cpu_input = input;

  const std::string params_path =
      params_dir + "/" + porep::param_file_name(*proof_type.shape, porep::ParamFileKind::kParams);
  const groth16::ParameterHeader header = groth16::read_parameter_header(params_path);

  groth16::Proof gpu_proof;
  {
    t0 = std::chrono::steady_clock::now();
    auto engine = gpu::make_gpu_engine(params_path, header, gpu_options);
    std::printf("GPU engine made (parameters on the device) in %.1f s\n", seconds_since(t0));
    gpu_proof = prove_timed("GPU", *engine, header, input, rs);
  }  // the device memory and the input go before the CPU engine's ~47 GB of decoded bases arrive
  input = {};

  groth16::Proof cpu_proof;
  {
    t0 = std::chrono::steady_clock::now();
    auto engine = job::make_engine(job::EngineConfig{}, {params_path, header, 0});
    std::printf("CPU engine made (parameters decoded) in %.1f s\n", seconds_since(t0));
    cpu_proof = prove_timed("CPU", *engine, header, cpu_input, rs);
  }

  const std::vector<algebra::Fr> public_inputs =
      porep::generate_public_inputs(proof_type, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, partition);
  const groth16::PreparedVerifyingKey pvk = groth16::prepare_verifying_key(header.vk);
  const bool gpu_verifies = groth16::verify(pvk, gpu_proof, public_inputs);
  const bool cpu_verifies = groth16::verify(pvk, cpu_proof, public_inputs);
  const bool equal = gpu_proof.to_bytes() == cpu_proof.to_bytes();
  std::printf("GPU proof %s (%s)\nCPU proof %s (%s)\n", hex(gpu_proof).c_str(),
              gpu_verifies ? "verifies" : "DOES NOT VERIFY", hex(cpu_proof).c_str(),
              cpu_verifies ? "verifies" : "DOES NOT VERIFY");
  std::printf("%s partition %u: GPU and CPU proofs %s\n", c1_path.c_str(), partition,
              equal ? "are byte-identical" : "DIFFER");
  return equal && gpu_verifies && cpu_verifies ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
