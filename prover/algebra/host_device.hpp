// One macro that lets the algebra types be used from host code and from CUDA device code.
#pragma once

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__
#define CUZK_INLINE __forceinline__
#else
#define CUZK_HD
#define CUZK_INLINE inline __attribute__((always_inline))
#endif
