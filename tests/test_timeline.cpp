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
  std::size_t titled_boxes = 0;
  for (std::size_t at = svg.find("<title>"); at != std::string::npos; at = svg.find("<title>", at + 1))
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
