// The order in which phases are listed: the order they run in. Logs, `--report` files, `cuzk bench` and
// `cuzk compare` all list the shared phases first (parameter load, constraint cache, engine setup), then a
// sector's phases from parsing to writing, then phases this list does not know (alphabetically), then
// "total". Maps keyed by phase name use PhaseOrder, so iterating one yields this order.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace cuzk::job {

// 0 for the first phase of a run; equal ranks for every unknown phase (ordered by name among themselves);
// the largest for "total".
std::size_t phase_rank(std::string_view phase);

// Strict weak order: by rank, then by name. Transparent, so string_views look maps up.
struct PhaseOrder {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const {
    const std::size_t ra = phase_rank(a), rb = phase_rank(b);
    return ra != rb ? ra < rb : a < b;
  }
};

template <class T>
using PhaseMap = std::map<std::string, T, PhaseOrder>;

}  // namespace cuzk::job
