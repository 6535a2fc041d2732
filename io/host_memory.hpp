// The host's memory as the kernel reports it, for the memory plans of a run (job/run_memory.hpp) and the GPU
// engine's choice of how to stream base vectors (gpu/groth16_engine.cpp).
#pragma once

#include <cstddef>

namespace cuzk::io {

// MemAvailable of /proc/meminfo in bytes (0 when it cannot be read). TEST ONLY: the environment variable
// CUZK_TEST_MEM_AVAILABLE (a size such as 2GiB) replaces it, so that tests can make a run that does not fit.
std::size_t host_memory_available();

}  // namespace cuzk::io
