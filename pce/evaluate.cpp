#include "pce/evaluate.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "pce/errors.hpp"

namespace cuzk::pce {

namespace {

// Doubling k times beats one multiplication for k <= 2: a doubling took 10.9 ns and a Montgomery
// multiplication 26 ns in dependent chains on the dev VM (Fr, x86 ADX paths).
constexpr unsigned kMaxDoublings = 2;

// z in the unified numbering without concatenating inputs and aux (the aux vector is the big one).
struct WitnessView {
  const Fr* inputs;
  const Fr* aux;
  std::uint32_t num_inputs;
  const Fr& operator[](std::uint32_t column) const {
    return column < num_inputs ? inputs[column] : aux[column - num_inputs];
  }
};

// acc += coeff(code) * x for the codes other than +-1.
[[gnu::always_inline]] inline void add_scaled_term(Fr& acc, CoeffCode code, const Fr& x, const Fr* table) {
  if (x.is_zero()) return;
  if (is_table_code(code)) {
    const Fr& v = table[table_index(code)];
    if (x.is_one()) {
      acc += v;
    } else {
      acc += v * x;
    }
    return;
  }
  const unsigned k = exponent_of(code);
  Fr t;
  if (x.is_one()) {
    t = power_of_two(k);
  } else if (k <= kMaxDoublings) {
    t = x;
    for (unsigned i = 0; i < k; ++i) t = t.dbl();
  } else {
    t = x * power_of_two(k);
  }
  if (is_negative(code)) {
    acc -= t;
  } else {
    acc += t;
  }
}

Fr row_value(const CompactMatrix& m, std::size_t row, const WitnessView& z, const Fr* table) {
  Fr acc = Fr::zero();
  const std::uint32_t end = m.row_offsets[row + 1];
  for (std::uint32_t i = m.row_offsets[row]; i < end; ++i) {
    const CoeffCode code = m.codes[i];
    const Fr& x = z[m.columns[i]];
    if (code == kPlusOne) {
      acc += x;
    } else if (code == kMinusOne) {
      acc -= x;
    } else {
      add_scaled_term(acc, code, x, table);
    }
  }
  return acc;
}

// Work before row r (entries of the three matrices plus one per row): increasing in r.
std::uint64_t work_before(const CompactR1cs& pce, std::size_t r) {
  return std::uint64_t{pce.a.row_offsets[r]} + pce.b.row_offsets[r] + pce.c.row_offsets[r] + r;
}

[[noreturn]] void witness_error(const std::string& what) {
  throw PceError(PceErrorKind::kWitness, what);
}

}  // namespace

void evaluate_into(const CompactR1cs& pce, std::span<const Fr> inputs, std::span<const Fr> aux,
                   std::span<Fr> a, std::span<Fr> b, std::span<Fr> c, unsigned threads) {
  if (inputs.size() != pce.num_inputs || aux.size() != pce.num_aux) {
    witness_error("witness has " + std::to_string(inputs.size()) + " inputs and " +
                  std::to_string(aux.size()) + " aux; the PCE has " + std::to_string(pce.num_inputs) +
                  " and " + std::to_string(pce.num_aux));
  }
  const std::size_t rows = pce.num_constraints();
  if (a.size() != rows || b.size() != rows || c.size() != rows) {
    witness_error("output vectors must have " + std::to_string(rows) + " entries each");
  }
  const WitnessView z{inputs.data(), aux.data(), static_cast<std::uint32_t>(pce.num_inputs)};
  const Fr* table = pce.table.data();
  const int num_threads = threads == 0 ? omp_get_max_threads() : static_cast<int>(threads);
  // About 8 blocks per thread of equal work, handed out dynamically (row lengths vary from 1 to ~500).
  const std::size_t num_blocks = std::max<std::size_t>(1, std::min<std::size_t>(rows, 8 * num_threads));
  const std::uint64_t total = work_before(pce, rows);
  std::vector<std::size_t> bounds(num_blocks + 1, rows);
  bounds[0] = 0;
  for (std::size_t k = 1; k < num_blocks; ++k) {
    const std::uint64_t target = total * k / num_blocks;
    std::size_t lo = bounds[k - 1], hi = rows;  // first row r in [lo, hi] with work_before(r) >= target
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (work_before(pce, mid) < target) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    bounds[k] = lo;
  }
  // Small systems stay on the calling thread: starting a team costs more than they take.
  const bool parallel = num_threads > 1 && rows >= 4096;
#pragma omp parallel for schedule(dynamic, 1) num_threads(num_threads) if (parallel)
  for (std::int64_t block = 0; block < static_cast<std::int64_t>(num_blocks); ++block) {
    for (std::size_t r = bounds[block]; r < bounds[block + 1]; ++r) {
      a[r] = row_value(pce.a, r, z, table);
      b[r] = row_value(pce.b, r, z, table);
      c[r] = row_value(pce.c, r, z, table);
    }
  }
}

r1cs::Evaluation evaluate(const CompactR1cs& pce, std::span<const Fr> inputs, std::span<const Fr> aux,
                          unsigned threads) {
  r1cs::Evaluation e;
  e.a.resize(pce.num_constraints());
  e.b.resize(pce.num_constraints());
  e.c.resize(pce.num_constraints());
  evaluate_into(pce, inputs, aux, e.a, e.b, e.c, threads);
  return e;
}

groth16::ProverInput make_prover_input(const CompactR1cs& pce, std::vector<Fr> inputs, std::vector<Fr> aux,
                                       unsigned threads, groth16::ProverInput&& recycled) {
  groth16::ProverInput in;
  in.a = std::move(recycled.a);
  in.b = std::move(recycled.b);
  in.c = std::move(recycled.c);
  in.inputs = std::move(inputs);
  in.aux = std::move(aux);
  // Room for the prover's input rows (one per input, appended to a, b and c: groth16::prove_with), so that
  // appending them does not move three ~4 GiB vectors at 32GiB sectors.
  for (std::vector<Fr>* v : {&in.a, &in.b, &in.c}) {
    v->reserve(pce.num_constraints() + in.inputs.size());
    v->resize(pce.num_constraints());
  }
  evaluate_into(pce, in.inputs, in.aux, in.a, in.b, in.c, threads);
  in.densities = pce.densities;
  return in;
}

}  // namespace cuzk::pce
