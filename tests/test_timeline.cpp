// The run timeline (job/timeline.hpp): utilization from the events, the SVG picture, and the round trip
// through a `cuzk prove --report` JSON file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "io/io_error.hpp"
#include "job/prove.hpp"
#include "job/timeline.hpp"

using namespace cuzk::job;

namespace {

std::vector<TimelineEvent> sample() {
  return {
      {"synthesis 0", "synthesize", "s1", 0, 0.0, 4.0}, {"synthesis 1", "synthesize", "s1", 1, 0.5, 4.5},
      {"prover", "prove.h", "s1", 0, 4.0, 5.0},         {"prover", "prove.msm_g1", "s1", 0, 5.0, 6.0},
      {"prover", "prove.h", "s1", 1, 7.0, 8.0},  // a 1 s gap before it
      {"writer", "write", "s1", -1, 8.0, 8.1},
  };
}

TEST(Timeline, UtilizationIsBusyTimeOverTheLaneSpan) {
  const auto events = sample();
  EXPECT_DOUBLE_EQ(lane_utilization(events, "prover"), 3.0 / 4.0);
  EXPECT_DOUBLE_EQ(lane_utilization(events, "synthesis 0"), 1.0);
  EXPECT_DOUBLE_EQ(lane_utilization(events, "nobody"), 0.0);
}

TEST(Timeline, SvgHasOneBoxPerEventInItsLaneRow) {
  const std::string svg = render_timeline_svg(sample(), "a <test> & more");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("a &lt;test&gt; &amp; more"), std::string::npos);  // the title is escaped
  // Step boxes have a white outline (the sector bars have none).
  const std::string step_box = "stroke-width=\"0.5\"><title>";
  std::size_t titled_boxes = 0;
  for (std::size_t at = svg.find(step_box); at != std::string::npos; at = svg.find(step_box, at + 1))
    ++titled_boxes;
  EXPECT_EQ(titled_boxes, sample().size());
  for (const char* lane : {"synthesis 0", "synthesis 1", "prover", "writer"})
    EXPECT_NE(svg.find(std::string(">") + lane + "<"), std::string::npos) << lane;
  // Lanes are rows in order of first appearance: the prover's boxes sit below both synthesis rows.
  const std::regex box(R"re(<rect x="[0-9.]+" y="([0-9.]+)"[^>]*><title>prove\.h s1/0)re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, box));
  EXPECT_GT(std::stod(m[1]), 40.0 + 2 * 28.0);
}

// Each sector is named over its span, the busy share of the prover is written under the title, and a box
// wide enough carries its sector/partition.
TEST(Timeline, SvgLabelsSectorsAndSaysHowBusyTheProverWas) {
  std::vector<TimelineEvent> events = sample();
  events.push_back({"synthesis 0", "synthesize", "s2", 0, 4.5, 7.0});  // overlaps s1: a second bar row
  events.push_back({"prover", "prove.h", "s2", 0, 8.0, 9.0});
  events.push_back({"parameters", "params.load 2KiB", "", -1, 0.0, 0.2});  // run-wide: no sector
  const std::string svg = render_timeline_svg(events, "t");
  for (const char* sector : {"s1", "s2"}) {
    const std::string label = std::string(">sector ") + sector + "</text>";
    const std::size_t at = svg.find(label);
    ASSERT_NE(at, std::string::npos) << sector;
    EXPECT_EQ(svg.find(label, at + 1), std::string::npos) << sector << " is labelled once";
  }
  EXPECT_EQ(svg.find(">sector </text>"), std::string::npos) << "a run-wide step is no sector";
  // The prover lane: busy 1+1+1+1 s of its span 4 s to 9 s.
  EXPECT_NE(svg.find(">prover busy 80% of its span</text>"), std::string::npos);
  // The 4 s synthesis box (440 px) says whose partition it is; the 0.1 s write box (14 px) cannot.
  EXPECT_NE(svg.find(">s1/0</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">s1</text>"), std::string::npos);
  // The two sectors overlap in time, so their bars are in two rows and the lanes start below both.
  const std::regex bar(R"re(<rect x="[0-9.]+" y="([0-9.]+)" width="[0-9.]+" height="3")re");
  std::vector<double> bar_rows;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bar); it != std::sregex_iterator(); ++it)
    bar_rows.push_back(std::stod((*it)[1]));
  ASSERT_EQ(bar_rows.size(), 2u);
  EXPECT_LT(bar_rows[0], bar_rows[1]);
  const std::regex first_box(R"re(<rect x="[0-9.]+" y="([0-9.]+)"[^>]*><title>synthesize s1/0)re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, first_box));
  EXPECT_GT(std::stod(m[1]), bar_rows[1]);
  // Without a prover lane there is no figure to give.
  EXPECT_EQ(render_timeline_svg({{"writer", "write", "s1", -1, 0, 1}}, "t").find("prover busy"),
            std::string::npos);
}

TEST(Timeline, RoundTripThroughTheJsonReport) {
  RunReport report;
  report.timeline = sample();
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("cuzk-timeline-" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(path);
    out << to_json(report);
  }
  const std::vector<TimelineEvent> back = read_report_timeline(path.string());
  ASSERT_EQ(back.size(), report.timeline.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].lane, report.timeline[i].lane);
    EXPECT_EQ(back[i].step, report.timeline[i].step);
    EXPECT_EQ(back[i].partition, report.timeline[i].partition);
    EXPECT_DOUBLE_EQ(back[i].end_s, report.timeline[i].end_s);
  }
  {
    std::ofstream out(path);
    out << R"({"tool": "cuzk", "sectors": []})";
  }
  EXPECT_THROW(read_report_timeline(path.string()), cuzk::io::IoError);
  // Fields of the wrong type are a malformed report (io::IoError, exit 3), not an internal error.
  for (const char* text :
       {R"({"tool": 5, "timeline": []})", R"({"tool": "cuzk", "timeline": [{"lane": 1}]})",
        R"({"tool": "cuzk", "timeline": [7]})",
        R"({"tool": "cuzk", "timeline": [{"lane": "p", "step": "s", "start_s": 2, "end_s": 1}]})",
        R"({"tool": "cuzk", "timeline": [{"lane": "p", "step": "s", "partition": 1e20,
                               "start_s": 0, "end_s": 1}]})"}) {
    {
      std::ofstream out(path);
      out << text;
    }
    EXPECT_THROW(read_report_timeline(path.string()), cuzk::io::IoError) << text;
  }
  std::filesystem::remove(path);
}

// A span of any length draws a bounded axis (about ten ticks), quickly: a report is user input.
TEST(Timeline, AbsurdSpansDrawABoundedAxis) {
  for (double end : {1e-9, 0.5, 7200.0, 1e9, 1e300}) {
    const std::string svg = render_timeline_svg({{"prover", "prove", "a", 0, 0, end}}, "t");
    std::size_t ticks = 0;
    for (std::size_t at = svg.find(" s</text>"); at != std::string::npos; at = svg.find(" s</text>", at + 1))
      ++ticks;
    EXPECT_GE(ticks, 1u) << end;
    EXPECT_LE(ticks, 14u) << end;
  }
}

}  // namespace
