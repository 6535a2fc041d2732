#include "prover/groth16/demo_circuit.hpp"

#include <array>
#include <initializer_list>
#include <stdexcept>
#include <utility>

namespace cuzk::groth16 {

namespace {

using Term = std::pair<std::uint32_t, Fr>;  // (unified variable index, coefficient)

void push_row(r1cs::SparseMatrix& m, std::initializer_list<Term> terms) {
  for (const auto& [var, coeff] : terms) {
    m.columns.push_back(var);
    m.values.push_back(coeff);
  }
  m.row_offsets.push_back(m.columns.size());
}

void enforce(r1cs::R1cs& cs, std::initializer_list<Term> a, std::initializer_list<Term> b,
             std::initializer_list<Term> c) {
  push_row(cs.a, a);
  push_row(cs.b, b);
  push_row(cs.c, c);
}

}  // namespace

DemoCircuit make_demo_circuit(std::span<const Fr> secrets, std::size_t rounds) {
  if (secrets.empty() || rounds == 0)
    throw std::invalid_argument("demo circuit: needs secrets and rounds >= 1");
  const std::size_t num_public = secrets.size();
  DemoCircuit d;
  d.cs.num_inputs = 1 + num_public;
  d.inputs.assign(1, Fr::one());
  const Fr one = Fr::one(), minus_one = -Fr::one(), five = Fr::from_u64(5);
  constexpr std::uint32_t kOne = 0;
  auto new_aux = [&](const Fr& value) {
    d.aux.push_back(value);
    return static_cast<std::uint32_t>(d.cs.num_inputs + d.aux.size() - 1);
  };
  std::vector<Fr> outputs;
  for (std::size_t k = 0; k < num_public; ++k) {
    Fr cur_value = secrets[k];
    std::uint32_t cur = new_aux(cur_value);
    for (std::size_t round = 0; round < rounds; ++round) {
      const Fr sq_value = cur_value * cur_value;
      const Fr next_value = sq_value * cur_value + cur_value + five;
      const std::uint32_t sq = new_aux(sq_value);
      const std::uint32_t next = new_aux(next_value);
      enforce(d.cs, {{cur, one}}, {{cur, one}}, {{sq, one}});
      enforce(d.cs, {{sq, one}}, {{cur, one}}, {{next, one}, {cur, minus_one}, {kOne, -five}});
      cur = next;
      cur_value = next_value;
    }
    const auto y = static_cast<std::uint32_t>(1 + k);
    if (k % 2 == 0) {
      enforce(d.cs, {{cur, one}}, {{kOne, one}}, {{y, one}});
    } else {
      enforce(d.cs, {{kOne, one}}, {{y, one}}, {{cur, one}});
    }
    outputs.push_back(cur_value);
  }
  d.inputs.insert(d.inputs.end(), outputs.begin(), outputs.end());
  d.cs.num_aux = d.aux.size();
  return d;
}

DemoCircuit make_demo_circuit() {
  const std::array<Fr, 3> secrets{Fr::from_u64(3), Fr::from_u64(5), Fr::from_u64(7)};
  return make_demo_circuit(secrets, 50);
}

}  // namespace cuzk::groth16
