// The committed C1 fixtures (testdata/README.md): valid files parse, validate and satisfy the circuit with
// the verifier's public inputs; every malformed variant is refused at the right layer.
#include <gtest/gtest.h>

#include <string>

#include "io/io_error.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/porep/c1_validate.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/errors.hpp"
#include "prover/porep/synthesis.hpp"

using namespace cuzk;

namespace {

std::string fixture(const std::string& name) {
  return std::string(CUZK_SOURCE_DIR) + "/testdata/c1/" + name;
}

void expect_valid(const std::string& name) {
  SCOPED_TRACE(name);
  porep::C1Output c1 = porep::read_c1_file(fixture(name));
  ASSERT_NO_THROW(porep::validate_c1(c1, name));
  EXPECT_EQ(porep::check_partition(c1, 0), std::nullopt);
  groth16::ProverInput input = porep::synthesize_partition(c1, 0);
  std::vector<algebra::Fr> expected =
      porep::generate_public_inputs(*c1.registered_proof, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, 0);
  ASSERT_EQ(input.inputs.size(), expected.size() + 1);
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), input.inputs.begin() + 1));
}

template <class Error>
std::string expect_refused(const std::string& name) {
  try {
    porep::C1Output c1 = porep::read_c1_file(fixture(name));
    porep::validate_c1(c1, fixture(name));
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(name), std::string::npos) << "the message names the file: " << what;
    return what;
  }
  ADD_FAILURE() << name << " was not refused";
  return {};
}

}  // namespace

TEST(TestdataC1, ValidFixturesSatisfyTheCircuit) {
  expect_valid("2KiB-V1_1.json");
  expect_valid("2KiB-V1-envelope.json");
  expect_valid("2KiB-synthetic.json");
  EXPECT_EQ(porep::read_c1_file(fixture("2KiB-V1-envelope.json")).sector_num, 2);
}

TEST(TestdataC1, MalformedFixturesAreRefusedWhileReading) {
  EXPECT_NE(expect_refused<io::IoError>("bad-truncated.json").find("offset"), std::string::npos);
  EXPECT_NE(expect_refused<io::IoError>("bad-missing-field.json").find("missing field \"_h\""),
            std::string::npos);
  EXPECT_NE(expect_refused<porep::PorepError>("bad-proof-type.json").find("does not match"),
            std::string::npos);
  EXPECT_NE(expect_refused<porep::PorepError>("bad-noncanonical.json").find("not a canonical"),
            std::string::npos);
  EXPECT_NE(expect_refused<porep::PorepError>("bad-zero-seed.json").find("seed is all zero"),
            std::string::npos);
}

TEST(TestdataC1, TamperedFixturesFailTheCircuitOrTheInputs) {
  for (const char* name : {"bad-label.json", "bad-path.json"}) {
    porep::C1Output c1 = porep::read_c1_file(fixture(name));
    ASSERT_NO_THROW(porep::validate_c1(c1, name));
    auto failure = porep::check_partition(c1, 0);
    ASSERT_TRUE(failure.has_value()) << name;
    EXPECT_NE(failure->find("challenge_0/"), std::string::npos) << *failure;
  }
  porep::C1Output c1 = porep::read_c1_file(fixture("bad-seed.json"));
  ASSERT_NO_THROW(porep::validate_c1(c1, "bad-seed.json"));
  groth16::ProverInput input = porep::synthesize_partition(c1, 0);
  std::vector<algebra::Fr> expected =
      porep::generate_public_inputs(*c1.registered_proof, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, 0);
  EXPECT_FALSE(std::equal(expected.begin(), expected.end(), input.inputs.begin() + 1))
      << "a changed seed must change the challenges the verifier derives";
}
