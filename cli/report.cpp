// `cuzk report timeline REPORT.json -o timeline.svg`: the run's timeline as a picture (job/timeline.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "io/atomic_file.hpp"
#include "job/timeline.hpp"

namespace cuzk::cli {

void register_report_commands(CLI::App& app) {
  CLI::App* report = app.add_subcommand("report", "Pictures of a `cuzk prove --report` JSON file");
  report->require_subcommand(1);
  auto input = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  CLI::App* timeline = report->add_subcommand(
      "timeline",
      "Draw the run's timeline as an SVG waterfall: one row per synthesis worker, the prover and the "
      "writer; one box per step of every partition");
  timeline->add_option("REPORT", *input, "A JSON report of `cuzk prove --report`")->required();
  timeline->add_option("-o,--output", *output, "The SVG file to write")->required();
  timeline->callback([input, output] {
    io::check_output_file(*output);  // a device or FIFO is refused, not replaced
    const std::vector<job::TimelineEvent> events = job::read_report_timeline(*input);
    const std::string svg = job::render_timeline_svg(events, "cuzk timeline: " + *input);
    io::write_file_atomic(*output, {reinterpret_cast<const std::uint8_t*>(svg.data()), svg.size()});
    fmt::print("{}: {} steps; prover busy {:.0f}% of its span\n", *output, events.size(),
               100.0 * job::lane_utilization(events, "prover"));
  });
}

}  // namespace cuzk::cli
