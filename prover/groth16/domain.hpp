// Radix-2 evaluation domain over Fr and the H polynomial of Groth16, computed exactly as bellperson
// (docs/circuit.md §10: ifft -> coset fft with generator 7 -> a*b - c -> divide by Z -> icoset fft).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "prover/algebra/bls12_381.hpp"

namespace cuzk::groth16 {

using algebra::Fr;

class EvaluationDomain {
 public:
  // The smallest power of two >= n (n >= 1); throws Groth16Error when log2 >= 32 (bellperson's
  // PolynomialDegreeTooLarge).
  explicit EvaluationDomain(std::size_t n);

  std::size_t size() const { return size_; }
  unsigned log_size() const { return log_size_; }
  const Fr& omega() const { return omega_; }

  // In place, natural order in and out; values.size() must equal size(). Multi-threaded.
  void fft(std::span<Fr> values) const;
  void ifft(std::span<Fr> values) const;        // includes the 1/m scaling
  void coset_fft(std::span<Fr> values) const;   // multiply coefficient i by g^i, then fft
  void icoset_fft(std::span<Fr> values) const;  // ifft, then multiply coefficient i by g^-i
  // Z(g) = g^m - 1 evaluated on the coset: multiplies every value by (g^m - 1)^-1.
  void divide_by_z_on_coset(std::span<Fr> values) const;

 private:
  std::size_t size_;
  unsigned log_size_;
  Fr omega_, omega_inv_, size_inv_, gen_, gen_inv_;
};

// From the per-constraint evaluations a, b, c (each of length n = number of constraints including
// the input constraints) to the m - 1 coefficients of h (m = domain size). Takes the vectors by
// value: they are padded and transformed in place.
std::vector<Fr> compute_h(std::vector<Fr> a, std::vector<Fr> b, std::vector<Fr> c);

}  // namespace cuzk::groth16
