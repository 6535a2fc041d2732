// What the job's tests share (tests/test_job.cpp, tests/test_job_engines.cpp): the committed 2KiB C1 files,
// test parameters of the 2KiB circuit from fixed toxic waste (NOT FOR PRODUCTION), made once per build tree
// under a lock that every test process of the tree shares, and the pinned proof that a run with them and
// the fixed r, s of options() gives.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "job/prove.hpp"
#include "prover/algebra/bls12_381.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/setup.hpp"
#include "prover/porep/param_names.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/porep/synthesis.hpp"

namespace cuzk::job::job_test {

namespace fs = std::filesystem;
using algebra::Fr;

inline const fs::path kTestdata = fs::path(CUZK_SOURCE_DIR) / "testdata" / "c1";

// The proof of testdata/c1/2KiB-V1_1.json with the parameters of fixed_params_dir() and r, s of options(),
// as the code before the job's refactoring (main at d08cb17) and after it both make it; any change of
// synthesis, proving or encoding that alters a proof changes it.
inline constexpr const char* kGoldenV1_1 =
    "952a792b75f609a57e3780f585926bac3a60de35ed0ca87063a30b671a08b1ee4ee88d8b09150ebc777e540fc79b6337"
    "b77f8a621ba55d9481bb10198df7089aae957fdccbc1a9726996e1d3b0bc380b0094f271a8e184b778e45b4abfe24310"
    "1282c25e18bcc8d48b9f181d142c25ec39bf1fcbbb61b94699694b30c20a9d5b190772bf5c2849eabf655184de2e84ff"
    "aaaa90bcfc3cb226ebdca0bedda0933a3bd679fcc6d6b80baecb3832f38b38d0f3b7662d694a0f601cc2357627440c91";

// Test parameters of the 2KiB circuit from fixed toxic waste, made once per build tree.
inline const std::string& fixed_params_dir() {
  static const std::string dir = [] {
    const fs::path d = fs::path(CUZK_BINARY_DIR) / "test-job-params";
    fs::create_directories(d);
    const porep::SectorShape& shape = *porep::parse_sector_size("2KiB");
    const fs::path params = d / porep::param_file_name(shape, porep::ParamFileKind::kParams);
    const fs::path vk = d / porep::param_file_name(shape, porep::ParamFileKind::kVerifyingKey);
    // ctest runs this file's tests as separate processes, maybe at once: one makes the files.
    const int lock = ::open((d / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0 || ::flock(lock, LOCK_EX) != 0) throw std::runtime_error("cannot lock " + d.string());
    if (!fs::exists(params) || !fs::exists(vk)) {
      groth16::ToxicWaste waste{Fr::from_u64(0x7a75), Fr::from_u64(0xa1fa), Fr::from_u64(0xbe7a),
                                Fr::from_u64(0x6a33a), Fr::from_u64(0xde17a)};
      const groth16::Parameters p =
          groth16::generate_parameters(porep::record_partition_circuit(shape), waste);
      p.write_file(params.string());
      p.vk.write_file(vk.string());
    }
    ::flock(lock, LOCK_UN);
    ::close(lock);
    return d.string();
  }();
  return dir;
}

inline ProveOptions options(const fs::path& out, bool overlap) {
  ProveOptions o;
  o.params_dir = fixed_params_dir();
  o.output_dir = out.string();
  o.pce_cache_dir = (fs::path(fixed_params_dir()) / "pce").string();
  o.fixed_randomness = std::pair{Fr::from_u64(12345), Fr::from_u64(67890)};
  o.overlap = overlap;
  return o;
}

inline std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  if (!fs::exists(dir)) return names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

inline std::string path_of(const char* name) {
  return (kTestdata / name).string();
}

}  // namespace cuzk::job::job_test
