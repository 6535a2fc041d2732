// A .params file read straight to the device (gpu/parameter_upload.hpp) gives exactly the bases the host
// decoder gives, converted to the device layout; a damaged point is refused naming the vector and index;
// and the GPU engine made from the file proves as the CPU prover does.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "gpu/groth16_engine.hpp"
#include "gpu/parameter_upload.hpp"
#include "prover/groth16/demo_circuit.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/groth16/setup.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "tests/test_util.hpp"

using namespace cuzk;
using namespace cuzk::groth16;

namespace {

namespace fs = std::filesystem;

struct Fixture {
  DemoCircuit circuit = make_demo_circuit();
  Parameters params;
  fs::path path;
};

Fixture make_fixture(const std::string& name) {
  const std::string rng_name = "ParameterUpload." + name;
  auto rng = test::seeded_rng(rng_name.c_str());
  Fixture f;
  f.params =
      generate_parameters(f.circuit.cs,
                          ToxicWaste{test::random_nonzero_field<Fr>(rng), test::random_nonzero_field<Fr>(rng),
                                     test::random_nonzero_field<Fr>(rng), test::random_nonzero_field<Fr>(rng),
                                     test::random_nonzero_field<Fr>(rng)},
                          0);
  f.path = fs::temp_directory_path() / ("cuzk-upload-" + name + "-" + std::to_string(::getpid()) + ".params");
  f.params.write_file(f.path.string());
  return f;
}

template <class Cfg>
void expect_same_bases(const gpu::DeviceBuffer<typename gpu::Msm<Cfg>::DeviceAffine>& device,
                       const std::vector<algebra::Affine<Cfg>>& host, const char* name) {
  using DeviceAffine = typename gpu::Msm<Cfg>::DeviceAffine;
  ASSERT_EQ(device.size(), host.size()) << name;
  std::vector<DeviceAffine> got(device.size());
  device.download(std::span<DeviceAffine>(got));
  CUDA_OK(cudaDeviceSynchronize());
  for (std::size_t i = 0; i < host.size(); ++i) {
    const DeviceAffine want = gpu::Msm<Cfg>::to_device(host[i]);
    ASSERT_EQ(0, std::memcmp(&got[i], &want, sizeof(DeviceAffine))) << name << " point " << i;
  }
}

TEST(GpuParameterUpload, SameBasesAsTheHostDecoder) {
  CUZK_REQUIRE_GPU();
  Fixture f = make_fixture("same");
  const ParametersInfo info = read_parameters_info(f.path.string());
  gpu::ParameterUploadStats stats;
  // Two reader threads over small pieces: the piece hand-out is exercised even on a small file.
  gpu::DeviceParameterBases bases = gpu::upload_parameter_bases(f.path.string(), info, 2, &stats);
  expect_same_bases<algebra::G1Config>(bases.h.device, f.params.h, "h");
  expect_same_bases<algebra::G1Config>(bases.l.device, f.params.l, "l");
  expect_same_bases<algebra::G1Config>(bases.a.device, f.params.a, "a");
  expect_same_bases<algebra::G1Config>(bases.b_g1.device, f.params.b_g1, "b_g1");
  expect_same_bases<algebra::G2Config>(bases.b_g2.device, f.params.b_g2, "b_g2");
  EXPECT_EQ(stats.bytes,
            (f.params.h.size() + f.params.l.size() + f.params.a.size() + f.params.b_g1.size()) * 96 +
                f.params.b_g2.size() * 192);
  fs::remove(f.path);
}

// Flips one bit of point `index` of `vector` (a y coordinate byte: the point leaves the curve).
void damage(const Fixture& f, const std::string& vector, std::size_t index, std::size_t byte_in_point) {
  const ParametersInfo info = read_parameters_info(f.path.string());
  const auto& v = info.vector(vector);
  std::fstream file(f.path, std::ios::in | std::ios::out | std::ios::binary);
  const std::uint64_t at = v.length_offset + kLengthBytes + index * v.point_bytes + byte_in_point;
  file.seekg(static_cast<std::streamoff>(at));
  char c = 0;
  file.read(&c, 1);
  c = static_cast<char>(c ^ 0x01);
  file.seekp(static_cast<std::streamoff>(at));
  file.write(&c, 1);
}

// Host-bound vectors (the streamed tier) decode to the same bytes, through a window smaller than a vector.
TEST(GpuParameterUpload, HostPlacementGivesTheSameBases) {
  CUZK_REQUIRE_GPU();
  Fixture f = make_fixture("host");
  const ParametersInfo info = read_parameters_info(f.path.string());
  gpu::BasePlacement placement;
  placement.l = placement.b_g2 = false;
  placement.decode_window = 7;
  placement.stream_from_file = false;
  gpu::DeviceParameterBases bases = gpu::upload_parameter_bases(f.path.string(), info, 2, nullptr, placement);
  ASSERT_EQ(bases.l.device.size(), 0u);
  ASSERT_EQ(bases.l.host.size(), f.params.l.size());
  for (std::size_t i = 0; i < f.params.l.size(); ++i) {
    const auto want = gpu::G1Msm::to_device(f.params.l[i]);
    ASSERT_EQ(0, std::memcmp(&bases.l.host[i], &want, sizeof want)) << "l point " << i;
  }
  for (std::size_t i = 0; i < f.params.b_g2.size(); ++i) {
    const auto want = gpu::G2Msm::to_device(f.params.b_g2[i]);
    ASSERT_EQ(0, std::memcmp(&bases.b_g2.host[i], &want, sizeof want)) << "b_g2 point " << i;
  }
  expect_same_bases<algebra::G1Config>(bases.h.device, f.params.h, "h");
  fs::remove(f.path);
}

// Streamed vectors read from the file for every MSM (the default): no host copy, and each load of any range
// decodes to the same device bases, by either path (reader threads through pinned staging, pieces of the
// range in turn; or the DMA from the registered page cache); a point damaged after the first load is
// reported by check() with the file's name (the registered mapping sees the page cache's new bytes).
class GpuFileSource : public ::testing::TestWithParam<gpu::StreamPath> {};

TEST_P(GpuFileSource, LoadsTheSameBases) {
  CUZK_REQUIRE_GPU();
  Fixture f = make_fixture(GetParam() == gpu::StreamPath::kPread ? "file" : "registered");
  const ParametersInfo info = read_parameters_info(f.path.string());
  gpu::BasePlacement placement;
  placement.l = placement.b_g2 = false;
  placement.decode_window = 5;
  placement.stream_path = GetParam();
  gpu::DeviceParameterBases bases = gpu::upload_parameter_bases(f.path.string(), info, 3, nullptr, placement);
  ASSERT_EQ(bases.l.device.size(), 0u);
  ASSERT_EQ(bases.l.host.size(), 0u);
  ASSERT_TRUE(bases.l.file && bases.b_g2.file);
  ASSERT_EQ(bases.l.file->stream_path(), GetParam());
  gpu::Stream stream;
  for (auto [first, n] : {std::pair<std::size_t, std::size_t>{0, f.params.l.size()}, {1, 7}, {100, 203}}) {
    gpu::DeviceBuffer<gpu::G1Msm::DeviceAffine> window(n);
    bases.l.file->load(first, n, window.data(), stream);
    std::vector<gpu::G1Msm::DeviceAffine> got(n);
    window.download(std::span<gpu::G1Msm::DeviceAffine>(got), stream);
    stream.synchronize();
    bases.l.file->check();
    for (std::size_t i = 0; i < n; ++i) {
      const auto want = gpu::G1Msm::to_device(f.params.l[first + i]);
      ASSERT_EQ(0, std::memcmp(&got[i], &want, sizeof want)) << "l point " << first + i;
    }
  }
  {
    const std::size_t n = f.params.b_g2.size();
    gpu::DeviceBuffer<gpu::G2Msm::DeviceAffine> window(n);
    bases.b_g2.file->load(0, n, window.data(), stream);
    std::vector<gpu::G2Msm::DeviceAffine> got(n);
    window.download(std::span<gpu::G2Msm::DeviceAffine>(got), stream);
    stream.synchronize();
    bases.b_g2.file->check();
    for (std::size_t i = 0; i < n; ++i) {
      const auto want = gpu::G2Msm::to_device(f.params.b_g2[i]);
      ASSERT_EQ(0, std::memcmp(&got[i], &want, sizeof want)) << "b_g2 point " << i;
    }
  }
  damage(f, "l", 150, 95);  // after the first load: the next load of that point must report it
  gpu::DeviceBuffer<gpu::G1Msm::DeviceAffine> window(f.params.l.size());
  bases.l.file->load(0, f.params.l.size(), window.data(), stream);
  stream.synchronize();
  try {
    bases.l.file->check();
    FAIL() << "a point damaged after the first load was not reported";
  } catch (const Groth16Error& e) {
    EXPECT_NE(std::string(e.what()).find("invalid point 150"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(f.path.string()), std::string::npos) << e.what();
  }
  fs::remove(f.path);
}

INSTANTIATE_TEST_SUITE_P(Paths, GpuFileSource,
                         ::testing::Values(gpu::StreamPath::kPread, gpu::StreamPath::kRegistered),
                         [](const auto& info) {
                           return info.param == gpu::StreamPath::kPread ? std::string("pread")
                                                                        : std::string("registered");
                         });

TEST(GpuParameterUpload, RefusesAPointOffTheCurveNamingIt) {
  CUZK_REQUIRE_GPU();
  Fixture f = make_fixture("offcurve");
  damage(f, "l", 3, 95);      // last byte of y
  damage(f, "b_g2", 1, 191);  // last byte of y.c0
  const ParametersInfo info = read_parameters_info(f.path.string());
  try {
    (void)gpu::upload_parameter_bases(f.path.string(), info, 1);
    FAIL() << "a damaged point was accepted";
  } catch (const Groth16Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("point 3 of vector l"), std::string::npos) << what;
    EXPECT_NE(what.find("not on the curve"), std::string::npos) << what;
    EXPECT_NE(what.find(f.path.string()), std::string::npos) << what;
  }
  fs::remove(f.path);
}

TEST(GpuParameterUpload, RefusesTheCompressedFlag) {
  CUZK_REQUIRE_GPU();
  Fixture f = make_fixture("flag");
  {
    const ParametersInfo info = read_parameters_info(f.path.string());
    const auto& v = info.vector("h");
    std::fstream file(f.path, std::ios::in | std::ios::out | std::ios::binary);
    const std::uint64_t at = v.length_offset + kLengthBytes + 2 * v.point_bytes;
    file.seekg(static_cast<std::streamoff>(at));
    char c = 0;
    file.read(&c, 1);
    c = static_cast<char>(c | 0x80);
    file.seekp(static_cast<std::streamoff>(at));
    file.write(&c, 1);
  }
  const ParametersInfo info = read_parameters_info(f.path.string());
  EXPECT_THROW((void)gpu::upload_parameter_bases(f.path.string(), info, 1), Groth16Error);
  fs::remove(f.path);
}

TEST(GpuParameterUpload, EngineFromTheFileProvesAsTheCpu) {
  CUZK_REQUIRE_GPU();
  Fixture f = make_fixture("engine");
  auto rng = test::seeded_rng("ParameterUpload.engine.rs");
  const ProverInput witness = witness_from_r1cs(f.circuit.cs, f.circuit.inputs, f.circuit.aux);
  const Fr r = test::random_field<Fr>(rng), s = test::random_field<Fr>(rng);
  const ParameterHeader header = read_parameter_header(f.path.string());
  EXPECT_EQ(header, header_of(f.params));
  auto engine = gpu::make_gpu_engine(f.path.string(), header);
  EXPECT_EQ(prove_with(*engine, header, ProverInput(witness), r, s).to_bytes(),
            prove(f.params, witness, r, s).to_bytes());
  bool reported_load = false;
  for (const auto& [name, seconds] : engine->setup_phases())
    if (name.rfind("params.load.", 0) == 0) reported_load = seconds >= 0;
  EXPECT_TRUE(reported_load);
  fs::remove(f.path);
}

}  // namespace
