#include "job/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "io/io_error.hpp"
#include "io/mapped_file.hpp"

namespace cuzk::job {

namespace {

// A fixed colour per step family, so that pictures of different runs compare at a glance.
std::string colour_of(const std::string& step) {
  static const std::pair<const char*, const char*> kColours[] = {
      {"parse", "#9e9e9e"},       {"validate", "#bdbdbd"},     {"check", "#795548"},
      {"synthesize", "#1e88e5"},  {"inputs", "#90caf9"},       {"satisfied", "#64b5f6"},
      {"prove.wait", "#eeeeee"},  {"prove.h", "#fb8c00"},      {"prove.msm_g1", "#e53935"},
      {"prove.msm_h", "#f4511e"}, {"prove.msm_g2", "#8e24aa"}, {"verify", "#43a047"},
      {"write", "#00897b"},       {"params", "#fdd835"},       {"pce", "#c0ca33"},
  };
  for (const auto& [prefix, colour] : kColours)
    if (step.rfind(prefix, 0) == 0) return colour;
  return "#607d8b";
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::vector<TimelineEvent> read_report_timeline(const std::string& path) {
  // A FIFO would block the open until a writer comes (forever); a directory opens and reads as nothing.
  io::require_regular_file(path);
  std::ifstream in(path);
  if (!in) throw io::IoError(path, "cannot open the report");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw io::IoError(path, std::string("not JSON: ") + e.what());
  }
  const auto tool = j.is_object() ? j.find("tool") : j.end();
  if (!j.is_object() || tool == j.end() || !tool->is_string() || tool->get<std::string>() != "cuzk")
    throw io::IoError(path, "not a cuzk report");
  if (!j.contains("timeline") || !j["timeline"].is_array())
    throw io::IoError(path, "the report has no timeline (made by `cuzk prove --report` of an older cuzk?)");
  std::vector<TimelineEvent> events;
  for (const auto& e : j["timeline"]) {
    TimelineEvent event;
    try {
      event = {e.at("lane").get<std::string>(),  e.at("step").get<std::string>(),
               e.value("sector", std::string()), -1,
               e.at("start_s").get<double>(),    e.at("end_s").get<double>()};
      // The partition is a small integer when present (converting another number to int would be undefined).
      if (const auto partition = e.find("partition"); partition != e.end()) {
        if (!partition->is_number_integer() || partition->get<std::int64_t>() < -1 ||
            partition->get<std::int64_t>() > std::numeric_limits<int>::max())
          throw io::IoError(path, "malformed timeline entry: partition " + partition->dump());
        event.partition = int(partition->get<std::int64_t>());
      }
    } catch (const nlohmann::json::exception& ex) {
      throw io::IoError(path, std::string("malformed timeline entry: ") + ex.what());
    }
    // Times are seconds since the run began: finite, not negative, and each step ends after it starts.
    if (!std::isfinite(event.start_s) || !std::isfinite(event.end_s) || event.start_s < 0 ||
        event.end_s < event.start_s)
      throw io::IoError(path, fmt::format("malformed timeline entry: {} {} from {} s to {} s", event.lane,
                                          event.step, event.start_s, event.end_s));
    events.push_back(std::move(event));
  }
  return events;
}

double lane_utilization(const std::vector<TimelineEvent>& events, const std::string& lane) {
  double first = 0, last = 0, busy = 0;
  bool any = false;
  for (const auto& e : events) {
    if (e.lane != lane) continue;
    first = any ? std::min(first, e.start_s) : e.start_s;
    last = any ? std::max(last, e.end_s) : e.end_s;
    busy += std::max(0.0, e.end_s - e.start_s);
    any = true;
  }
  return any && last > first ? busy / (last - first) : 0.0;
}

namespace {

// The picture's geometry: lanes are rows of kRow pixels below the title, the busy line and the sector rows;
// seconds map to kPlot pixels.
constexpr double kLeft = 110, kRight = 20, kTitleHeight = 44, kSectorRow = 16, kRow = 28, kPlot = 1100;
// Width of a character of the 11-pixel labels, a little above the sans-serif average, so that a label
// estimated to fit does.
constexpr double kCharWidth = 6.5;

// One sector's span, from its first step's start to its last step's end, and the row it is drawn in.
struct SectorSpan {
  std::string sector;
  double start_s = 0, end_s = 0;
  std::size_t row = 0;
};

// Sectors in order of first appearance. Each goes in the first row where it and its label clear the spans
// already there, so that the labels of overlapping sectors (synthesis of the next while one is proven) do not
// run into each other.
std::vector<SectorSpan> sector_spans(const std::vector<TimelineEvent>& events, double scale) {
  std::vector<SectorSpan> spans;
  for (const auto& e : events) {
    if (e.sector.empty()) continue;  // run-wide steps (the parameters lane)
    auto span =
        std::find_if(spans.begin(), spans.end(), [&](const SectorSpan& s) { return s.sector == e.sector; });
    if (span == spans.end()) {
      spans.push_back({e.sector, e.start_s, e.end_s, 0});
    } else {
      span->start_s = std::min(span->start_s, e.start_s);
      span->end_s = std::max(span->end_s, e.end_s);
    }
  }
  std::vector<double> row_ends;  // per row, the pixel where its last span or label ends
  for (auto& span : spans) {
    const double from = span.start_s * scale;
    const double to = std::max(span.end_s * scale, from + kCharWidth * double(span.sector.size() + 8));
    span.row = std::find_if(row_ends.begin(), row_ends.end(), [&](double end) { return end + 4 <= from; }) -
               row_ends.begin();
    if (span.row == row_ends.size()) row_ends.push_back(0);
    row_ends[span.row] = to;
  }
  return spans;
}

// A bar per sector over the time it was in the run, labelled "sector NAME".
std::string draw_sectors(const std::vector<SectorSpan>& spans, double scale) {
  std::string svg;
  for (const auto& span : spans) {
    const double x = kLeft + span.start_s * scale, y = kTitleHeight + kSectorRow * double(span.row);
    svg += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"3\" fill=\"#455a64\"><title>sector {} "
        "{:.3f}-{:.3f} s</title></rect>\n",
        x, y + 11, std::max(0.5, (span.end_s - span.start_s) * scale), escape(span.sector), span.start_s,
        span.end_s);
    svg += fmt::format("<text x=\"{:.2f}\" y=\"{:.1f}\" font-size=\"11\">sector {}</text>\n", x, y + 9,
                       escape(span.sector));
  }
  return svg;
}

// One box per step in its lane's row, its sector and partition written in it where they fit.
std::string draw_steps(const std::vector<TimelineEvent>& events, const std::vector<std::string>& lanes,
                       double top, double scale) {
  std::string svg;
  for (const auto& e : events) {
    const auto row = std::find(lanes.begin(), lanes.end(), e.lane) - lanes.begin();
    const double x = kLeft + e.start_s * scale, w = std::max(0.5, (e.end_s - e.start_s) * scale);
    const double y = top + kRow * double(row) + 3;
    std::string where;
    if (!e.sector.empty()) where = e.sector + (e.partition >= 0 ? "/" + std::to_string(e.partition) : "");
    svg += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\" stroke=\"white\" "
        "stroke-width=\"0.5\"><title>{} {:.3f}-{:.3f} s</title></rect>\n",
        x, y, w, kRow - 6, colour_of(e.step), escape(where.empty() ? e.step : e.step + " " + where),
        e.start_s, e.end_s);
    if (!where.empty() && w >= kCharWidth * double(where.size()) + 4)
      svg += fmt::format(
          "<text x=\"{:.2f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\" "
          "fill=\"#212121\">{}</text>\n",
          x + w / 2, y + kRow / 2 + 1, escape(where));
  }
  return svg;
}

// Time axis: about ten ticks at a round step (beyond an hour, a power of ten: at most ~10 ticks for any
// span, so that a report of absurd times cannot make the loop below endless).
std::string draw_axis(double end, double axis_y, double scale) {
  double step = 1;
  for (double candidate :
       {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0}) {
    step = candidate;
    if (end / candidate <= 12) break;
  }
  if (end / step > 12) step = std::pow(10.0, std::ceil(std::log10(end / 10)));
  std::string svg;
  for (double t = 0; t <= end + 1e-9; t += step) {
    const double x = kLeft + t * scale;
    svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#9e9e9e\"/>\n",
                       x, axis_y, x, axis_y + 5);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{:g} s</text>\n", x,
                       axis_y + 18, t);
  }
  return svg;
}

}  // namespace

std::string render_timeline_svg(const std::vector<TimelineEvent>& events, const std::string& title) {
  std::vector<std::string> lanes;
  std::vector<std::string> steps;
  double end = 0;
  for (const auto& e : events) {
    if (std::find(lanes.begin(), lanes.end(), e.lane) == lanes.end()) lanes.push_back(e.lane);
    if (std::find(steps.begin(), steps.end(), e.step) == steps.end()) steps.push_back(e.step);
    end = std::max(end, e.end_s);
  }
  const double scale = end > 0 ? kPlot / end : 1.0;
  const std::vector<SectorSpan> sectors = sector_spans(events, scale);
  std::size_t sector_rows = 0;
  for (const auto& span : sectors) sector_rows = std::max(sector_rows, span.row + 1);
  const double top = kTitleHeight + kSectorRow * double(sector_rows) + 4;
  const double legend_top = top + kRow * double(lanes.size()) + 40;
  const double height = legend_top + 20 * double((steps.size() + 5) / 6) + 20;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"20\" font-size=\"14\">{}</text>\n",
      kLeft + kPlot + kRight, height, kLeft, escape(title));
  // The figure `cuzk report timeline` prints: whether the prover waited on synthesis.
  if (std::any_of(events.begin(), events.end(), [](const TimelineEvent& e) { return e.lane == "prover"; }))
    svg += fmt::format("<text x=\"{}\" y=\"37\">prover busy {:.0f}% of its span</text>\n", kLeft,
                       100.0 * lane_utilization(events, "prover"));
  svg += draw_sectors(sectors, scale);
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const double y = top + kRow * double(i);
    svg += fmt::format("<text x=\"5\" y=\"{:.1f}\">{}</text>\n", y + kRow * 0.65, escape(lanes[i]));
    svg += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e0e0e0\"/>\n",
                       kLeft, y + kRow, kLeft + kPlot, y + kRow);
  }
  svg += draw_steps(events, lanes, top, scale);
  svg += draw_axis(end, top + kRow * double(lanes.size()) + 5, scale);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const double x = kLeft + double(i % 6) * 180, y = legend_top + 20 * double(i / 6);
    svg += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", x,
                       y - 10, colour_of(steps[i]));
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\">{}</text>\n", x + 16, y, escape(steps[i]));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace cuzk::job
