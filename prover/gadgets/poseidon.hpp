// neptune's legacy Poseidon circuit `circuit::poseidon_hash` (neptune v11 src/circuit.rs; docs/circuit.md §8.2), the
// only Poseidon gadget rust-fil-proofs uses, and rfp's `hash_md_circuit` built on it.
//
// Allocation and constraint order, exactly as neptune:
//   state = [tag (a constant), x_1 .. x_arity (the preimage variables)]
//   first full round, i = 1..arity ("quintic s-box i"), with pre-key k and post-key k':
//     alloc (x+k)^2:  (x + k*ONE) * (x + k*ONE) = l2
//     alloc l2^2:     l2 * l2 = l4
//     alloc l4*(x+k)+k':  (x + k*ONE) * l4 = l5 - k'*ONE
//   (the tag's S-box is computed natively and stays a constant linear combination of ONE)
//   every other S-box, on a state element that is a linear combination `lc` of earlier variables:
//     alloc v:        lc * ONE = v
//     alloc v^2, v^4 as above, alloc v^5 + k':  v * l4 = l5 - k'*ONE   (no k' in the terminal round)
//   MDS layers are free: they only transform the linear combinations (M, then the pre-sparse matrix after
//   the last initial full round, the sparse matrices in the partial rounds, M again).
//   finally alloc the output: lc(state[1]) * ONE = out.
// Constraints = aux variables = poseidon::circuit_constraint_count (311 / 377 / 505 / 598 for arity
// 2 / 4 / 8 / 11).
//
// Values always come from poseidon::hash_traced (the native optimized-static permutation, which computes
// exactly these intermediate states). Systems that record constraints also build the linear combinations
// symbolically, as dense coefficient rows over the variables they range over, so the Checker verifies the
// native values against neptune's constraints.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "prover/gadgets/num.hpp"
#include "prover/gadgets/poseidon_native.hpp"

namespace cuzk::gadgets {

namespace poseidon_detail {

// Symbolic simulation of neptune's PoseidonCircuit for constraint-recording systems.
template <class CS>
class LegacyCircuit {
 public:
  using LC = typename CS::LC;

  LegacyCircuit(CS& cs, const poseidon::Constants& c, std::span<const AllocatedNum> preimage)
      : cs_(cs), c_(c), preimage_(preimage), capacity_(c.width + c.partial_rounds + 1) {
    if constexpr (CS::kHasValues) {
      std::array<Fr, poseidon::detail::kMaxWidth> values;
      for (std::size_t i = 0; i < c.arity; ++i) values[i] = preimage[i].value();
      trace_.reserve(poseidon::circuit_constraint_count(c));
      output_value_ = poseidon::hash_traced(c, std::span<const Fr>(values.data(), c.arity),
                                            [this](const Fr& v) { trace_.push_back(v); });
    }
    coeffs_.assign(c.width * capacity_, Fr::zero());
  }

  AllocatedNum run() {
    const std::size_t w = c_.width;
    const Fr* keys = c_.compressed_round_constants.data();
    std::size_t round = 0;
    {
      auto ns = cs_.push_namespace("first round");
      // The tag's S-box is a constant: ONE * (tag + k_0)^5 + k'_0.
      Fr tag = c_.domain_tag + keys[0];
      Fr tag_out = tag.square().square() * tag + keys[w];
      basis_.assign(1, Variable::one());
      set_unit(0, 0, tag_out);
      for (std::size_t i = 1; i < w; ++i) {
        auto ns_i = cs_.push_namespace([&] { return "quintic s-box " + std::to_string(i); });
        basis_.push_back(first_round_sbox(preimage_[i - 1].variable(), keys[i], keys[w + i]));
        set_unit(i, i, Fr::one());
      }
      keys += 2 * w;
      mix(round++);
    }
    for (std::size_t r = 1; r < c_.half_full_rounds; ++r) {
      auto ns = cs_.push_namespace([&] { return "initial full round " + std::to_string(r); });
      full_round(keys);
      keys += w;
      mix(round++);
    }
    for (std::size_t r = 0; r < c_.partial_rounds; ++r) {
      auto ns = cs_.push_namespace([&] { return "partial round " + std::to_string(r); });
      Variable p;
      {
        auto ns_s = cs_.push_namespace("solitary quintic s-box");
        p = sbox(0, keys++);
      }
      basis_.push_back(p);
      for (std::size_t j = 1; j < w; ++j) coeff(j, basis_.size() - 1) = Fr::zero();
      set_unit(0, basis_.size() - 1, Fr::one());
      mix(round++);
    }
    for (std::size_t r = 1; r < c_.half_full_rounds; ++r) {
      auto ns = cs_.push_namespace([&] { return "final full round " + std::to_string(r - 1); });
      full_round(keys);
      keys += w;
      mix(round++);
    }
    {
      auto ns = cs_.push_namespace("terminal full round");
      full_round(nullptr);
      mix(round++);
    }
    auto ns = cs_.push_namespace("hash result");
    Variable out = allocate_row(1);
    return AllocatedNum(out, output_value_);
  }

 private:
  Fr& coeff(std::size_t row, std::size_t slot) { return coeffs_[row * capacity_ + slot]; }
  void clear_row(std::size_t row) {
    for (std::size_t k = 0; k < basis_.size(); ++k) coeff(row, k) = Fr::zero();
  }
  void set_unit(std::size_t row, std::size_t slot, const Fr& value) {
    clear_row(row);
    coeff(row, slot) = value;
  }
  Fr next_value() {
    if constexpr (CS::kHasValues) {
      return trace_[next_++];
    } else {
      return Fr::zero();
    }
  }
  Variable alloc(const char* name) {
    Fr v = next_value();
    return cs_.alloc(name, [&] { return v; });
  }
  LC row_lc(std::size_t row) {
    LC lc;
    for (std::size_t k = 0; k < basis_.size(); ++k) {
      const Fr& a = coeff(row, k);
      if (!a.is_zero()) lc.add(basis_[k], a);
    }
    return lc;
  }
  // neptune Elt::ensure_allocated(enforce = true): alloc v, lc * ONE = v.
  Variable allocate_row(std::size_t row) {
    Variable v;
    {
      auto ns = cs_.push_namespace("allocate for Elt::Num");
      v = alloc("num");
    }
    cs_.enforce("enforce num allocation preserves lc", row_lc(row), LC(Variable::one()), LC(v));
    return v;
  }
  Variable square(Variable x) {
    Variable y = alloc("squared num");
    cs_.enforce("squaring constraint", LC(x), LC(x), LC(y));
    return y;
  }
  // neptune quintic_s_box_pre_add: square_sum, square, mul_sum with pre- and post-add.
  Variable first_round_sbox(Variable x, const Fr& pre, const Fr& post) {
    LC x_plus_pre = LC(x).add(Variable::one(), pre);
    Variable l2 = alloc("squared sum");
    cs_.enforce("squared sum constraint", x_plus_pre, x_plus_pre, LC(l2));
    Variable l4 = square(l2);
    Variable l5 = alloc("mul_sum");
    cs_.enforce("mul sum constraint pre-post-add", x_plus_pre, LC(l4), LC(l5).add(Variable::one(), -post));
    return l5;
  }
  // neptune quintic_s_box on state element `row` (a linear combination); post may be null.
  Variable sbox(std::size_t row, const Fr* post) {
    Variable v = allocate_row(row);
    Variable l2 = square(v);
    Variable l4 = square(l2);
    Variable l5 = alloc("mul_sum");
    if (post) {
      cs_.enforce("mul sum constraint post-add", LC(v), LC(l4), LC(l5).add(Variable::one(), -*post));
    } else {
      cs_.enforce("mul sum constraint", LC(v), LC(l4), LC(l5));
    }
    return l5;
  }
  // S-boxes on every element; afterwards the basis is their outputs and each row a unit vector.
  void full_round(const Fr* post_keys) {
    std::array<Variable, poseidon::detail::kMaxWidth> outputs;
    for (std::size_t i = 0; i < c_.width; ++i) {
      auto ns = cs_.push_namespace([&] { return "quintic s-box " + std::to_string(i); });
      outputs[i] = sbox(i, post_keys ? post_keys + i : nullptr);
    }
    basis_.assign(outputs.begin(), outputs.begin() + static_cast<std::ptrdiff_t>(c_.width));
    for (std::size_t i = 0; i < c_.width; ++i) set_unit(i, i, Fr::one());
  }
  // neptune product_mds: the row-vector product state * m applied to the coefficient rows. Rows are
  // mostly unit vectors right after S-boxes, so zero coefficients are skipped.
  void mix(std::size_t round) {
    const std::size_t w = c_.width;
    const std::size_t n = basis_.size();
    const std::size_t sparse_offset = c_.half_full_rounds - 1;
    scratch_.assign(w * n, Fr::zero());
    if (round > sparse_offset && round < c_.half_full_rounds + c_.partial_rounds) {
      // new row 0 = sum_i w_hat[i] * row i; new row j = row j + v_rest[j-1] * row 0.
      const poseidon::SparseMatrix& s = c_.sparse_matrices[round - sparse_offset - 1];
      for (std::size_t i = 0; i < w; ++i) {
        for (std::size_t k = 0; k < n; ++k) {
          if (!coeff(i, k).is_zero()) scratch_[k] += s.w_hat[i] * coeff(i, k);
        }
      }
      for (std::size_t k = 0; k < n; ++k) {
        const Fr first = coeff(0, k);
        if (first.is_zero()) continue;
        for (std::size_t j = 1; j < w; ++j) coeff(j, k) += s.v_rest[j - 1] * first;
      }
      for (std::size_t k = 0; k < n; ++k) coeff(0, k) = scratch_[k];
      return;
    }
    const poseidon::Matrix& m = round == sparse_offset ? c_.pre_sparse_matrix : c_.mds;
    for (std::size_t i = 0; i < w; ++i) {
      for (std::size_t k = 0; k < n; ++k) {
        const Fr a = coeff(i, k);
        if (a.is_zero()) continue;
        for (std::size_t j = 0; j < w; ++j) scratch_[j * n + k] += m(i, j) * a;
      }
    }
    for (std::size_t j = 0; j < w; ++j) {
      for (std::size_t k = 0; k < n; ++k) coeff(j, k) = scratch_[j * n + k];
    }
  }

  CS& cs_;
  const poseidon::Constants& c_;
  std::span<const AllocatedNum> preimage_;
  std::size_t capacity_;
  std::vector<Variable> basis_;  // the variables the state's linear combinations range over
  std::vector<Fr> coeffs_;       // width rows of capacity_ coefficients over basis_
  std::vector<Fr> scratch_;      // mix() workspace
  std::vector<Fr> trace_;        // the circuit's aux values, in allocation order
  std::size_t next_ = 0;
  Fr output_value_ = Fr::zero();
};

}  // namespace poseidon_detail

// neptune `circuit::poseidon_hash(cs, preimage, constants)`; preimage.size() == c.arity.
template <class CS>
AllocatedNum poseidon_hash(CS& cs, std::span<const AllocatedNum> preimage, const poseidon::Constants& c) {
  if (preimage.size() != c.arity)
    throw std::invalid_argument("poseidon_hash: preimage length must equal the arity");
  if constexpr (CS::kRecordsConstraints) {
    return poseidon_detail::LegacyCircuit<CS>(cs, c, preimage).run();
  } else {
    // Counter / WitnessGen: no linear combinations; one alloc and one (empty) enforce per value.
    using LC = typename CS::LC;
    Variable last;
    Fr out = Fr::zero();
    if constexpr (CS::kHasValues) {
      std::array<Fr, poseidon::detail::kMaxWidth> values;
      for (std::size_t i = 0; i < c.arity; ++i) values[i] = preimage[i].value();
      out = poseidon::hash_traced(c, std::span<const Fr>(values.data(), c.arity), [&](const Fr& v) {
        last = cs.alloc("poseidon", [&] { return v; });
        cs.enforce("poseidon", LC(), LC(), LC());
      });
    } else {
      const std::size_t count = poseidon::circuit_constraint_count(c);
      for (std::size_t k = 0; k < count; ++k) {
        last = cs.alloc("poseidon", [] { return Fr::zero(); });
        cs.enforce("poseidon", LC(), LC(), LC());
      }
    }
    return AllocatedNum(last, out);
  }
}

// The same with the shared Standard MerkleTree constants of arity preimage.size() (rfp's
// `Arity::PARAMETERS()`: hash2_circuit, hash_multi_leaf_circuit, hash_single_column).
template <class CS>
AllocatedNum poseidon_hash(CS& cs, std::span<const AllocatedNum> preimage) {
  return poseidon_hash(cs, preimage, poseidon::constants(preimage.size()));
}

// rfp filecoin-hashers poseidon.rs `hash_md_circuit`: arity 36; acc = elements[0]; for each chunk of 35
// following elements: alloc zero padding ("padding i") for a short last chunk, then
// acc = poseidon_hash(acc, chunk, padding) in namespace "hash md n".
template <class CS>
AllocatedNum poseidon_hash_md(CS& cs, std::span<const AllocatedNum> elements) {
  constexpr std::size_t kArity = poseidon::kHashMdArity;
  if (elements.size() < 2) throw std::invalid_argument("poseidon_hash_md: needs more than one element");
  const poseidon::Constants& c = poseidon::constants(kArity);
  std::vector<AllocatedNum> preimage(kArity);
  AllocatedNum acc = elements[0];
  std::size_t hash_num = 0;
  for (std::size_t start = 1; start < elements.size(); start += kArity - 1, ++hash_num) {
    const std::size_t chunk = std::min(kArity - 1, elements.size() - start);
    preimage[0] = acc;
    for (std::size_t i = 0; i < chunk; ++i) preimage[i + 1] = elements[start + i];
    for (std::size_t i = chunk + 1; i < kArity; ++i) {
      auto ns = cs.push_namespace([&] { return "padding " + std::to_string(i); });
      preimage[i] = AllocatedNum::alloc(cs, [] { return Fr::zero(); });
    }
    auto ns = cs.push_namespace([&] { return "hash md " + std::to_string(hash_num); });
    acc = poseidon_hash(cs, std::span<const AllocatedNum>(preimage), c);
  }
  return acc;
}

}  // namespace cuzk::gadgets
