#include "prover/gadgets/poseidon_native.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

namespace cuzk::gadgets::poseidon {

namespace {

inline Fr pow5(const Fr& x) {
  Fr x2 = x.square();
  return x2.square() * x;
}

}  // namespace

Fr hash(const Constants& c, std::span<const Fr> preimage) {
  return hash_traced(c, preimage, [](const Fr&) {});
}

Fr hash(std::span<const Fr> preimage) {
  return hash(constants(preimage.size()), preimage);
}

Fr hash_reference(const Constants& c, std::span<const Fr> preimage) {
  detail::check_preimage(c, preimage);
  const std::size_t w = c.width;
  detail::State state{};
  state[0] = c.domain_tag;
  for (std::size_t i = 0; i < c.arity; ++i) state[i + 1] = preimage[i];
  const Fr* keys = c.round_constants.data();
  auto full_round = [&] {
    for (std::size_t i = 0; i < w; ++i) state[i] = pow5(state[i] + keys[i]);
    keys += w;
    detail::apply_dense(c.mds, state, w);
  };
  for (std::size_t r = 0; r < c.half_full_rounds; ++r) full_round();
  for (std::size_t r = 0; r < c.partial_rounds; ++r) {
    for (std::size_t i = 0; i < w; ++i) state[i] += keys[i];
    keys += w;
    state[0] = pow5(state[0]);
    detail::apply_dense(c.mds, state, w);
  }
  for (std::size_t r = 0; r < c.half_full_rounds; ++r) full_round();
  return state[1];
}

std::size_t circuit_constraint_count(const Constants& c) {
  return 3 * c.arity + 4 * (c.width * c.full_rounds + c.partial_rounds - c.width) + 1;
}

Fr hash_with_circuit_witness(const Constants& c, std::span<const Fr> preimage, Fr* aux) {
  return hash_traced(c, preimage, [&aux](const Fr& v) { *aux++ = v; });
}

Fr hash_md(std::span<const Fr> elements) {
  if (elements.size() < 2) throw std::invalid_argument("poseidon: hash_md needs more than one element");
  const Constants& c = constants(kHashMdArity);
  std::vector<Fr> preimage(kHashMdArity);
  Fr acc = elements[0];
  for (std::size_t start = 1; start < elements.size(); start += kHashMdArity - 1) {
    std::size_t chunk = std::min(kHashMdArity - 1, elements.size() - start);
    preimage[0] = acc;
    for (std::size_t i = 0; i < kHashMdArity - 1; ++i)
      preimage[i + 1] = i < chunk ? elements[start + i] : Fr::zero();
    acc = hash(c, preimage);
  }
  return acc;
}

}  // namespace cuzk::gadgets::poseidon
