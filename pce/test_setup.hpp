// Groth16 test parameters streamed from the compact constraint matrices, for circuits whose parameters do
// not fit in memory (a 32GiB PoRep partition: ~44 GiB of .params). The same values as
// groth16::generate_parameters (prover/groth16/setup.hpp, bellperson src/groth16/generator.rs), and the
// same bytes as its Parameters::to_bytes / VerifyingKey::to_bytes:
//
//   1. L_k(tau) over the domain (groth16::lagrange_at);
//   2. u_i, v_i, w_i(tau) per variable by a transposed product over the compact matrices: thread t owns a
//      range of columns and scans every row, so no atomics and no transposed copy; then u_i += L_(nc+i)
//      for the input constraints;
//   3. the degenerate-waste checks of generate_parameters, in its order and with its error texts, before
//      anything is written;
//   4. every vector in file order (vk block, h, l, a, b_g1, b_g2: bellperson's layout, see
//      prover/groth16/parameters.hpp), chunk by chunk: scalars computed, encoded by the FixedBaseEncoder
//      (CPU or GPU), handed to a writer thread that pwrites them into a pre-allocated temporary file while
//      the next chunk is encoded; then fsync and rename (io::AtomicFileWriter). The .vk likewise.
// Host memory: the matrices, u, v, w (3 x 32 B per variable), the Lagrange values while (2) runs, and two
// chunk buffers; never the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "pce/compact_r1cs.hpp"
#include "prover/groth16/fixed_base.hpp"
#include "prover/groth16/setup.hpp"

namespace cuzk::pce {

// Points per chunk by default: 2^20 G1 points are 96 MiB of encoding (G2 chunks hold as many bytes), large
// enough that the hand-over to the writer costs nothing and small enough that the CPU encoder reports
// progress every few seconds (a 2^22 chunk took minutes on two cores).
inline constexpr std::size_t kDefaultSetupChunkPoints = std::size_t{1} << 20;

// Byte sizes of the files write_test_parameters writes for `cs` (they follow from the densities).
struct TestParametersSize {
  std::uint64_t params_bytes = 0;
  std::uint64_t vk_bytes = 0;
};
TestParametersSize test_parameters_size(const CompactR1cs& cs);

// Writes params_path and vk_path atomically. `threads` = 0 uses every OpenMP thread (for the host work;
// the encoder has its own). `progress` (may be empty) gets one line per phase with its seconds, and per
// vector lines with the rate and the ETA. `chunk_points` = 0: kDefaultSetupChunkPoints (tests use tiny
// chunks to cross every boundary).
// Throws: pce::PceError(kCorrupt) for structurally invalid matrices; groth16::Groth16Error as
// generate_parameters does (kDomainTooLarge, kUnconstrainedVariable, kParameters for degenerate waste);
// io::IoError naming the file when it cannot be written (nothing is left behind then);
// std::length_error for a vector longer than its u32 length field; whatever the encoder throws.
void write_test_parameters(const CompactR1cs& cs, const groth16::ToxicWaste& waste,
                           groth16::FixedBaseEncoder& encoder, const std::filesystem::path& params_path,
                           const std::filesystem::path& vk_path, unsigned threads,
                           const std::function<void(const std::string&)>& progress,
                           std::size_t chunk_points = 0);

}  // namespace cuzk::pce
