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
      {"parse", "#9e9e9e"},        {"validate", "#bdbdbd"}, {"check", "#795548"},
      {"synthesize", "#1e88e5"},   {"inputs", "#90caf9"},   {"satisfied", "#64b5f6"},
      {"prove.wait", "#eeeeee"},   {"prove.h", "#fb8c00"},  {"prove.msm_g1", "#e53935"},
      {"prove.msm_g2", "#8e24aa"}, {"verify", "#43a047"},   {"write", "#00897b"},
      {"params", "#fdd835"},       {"pce", "#c0ca33"},
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

std::string render_timeline_svg(const std::vector<TimelineEvent>& events, const std::string& title) {
  std::vector<std::string> lanes;
  std::vector<std::string> steps;
  double end = 0;
  for (const auto& e : events) {
    if (std::find(lanes.begin(), lanes.end(), e.lane) == lanes.end()) lanes.push_back(e.lane);
    if (std::find(steps.begin(), steps.end(), e.step) == steps.end()) steps.push_back(e.step);
    end = std::max(end, e.end_s);
  }
  constexpr double kLeft = 110, kRight = 20, kTop = 40, kRow = 28, kPlot = 1100;
  const double scale = end > 0 ? kPlot / end : 1.0;
  const double legend_top = kTop + kRow * double(lanes.size()) + 40;
  const double height = legend_top + 20 * double((steps.size() + 5) / 6) + 20;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"20\" font-size=\"14\">{}</text>\n",
      kLeft + kPlot + kRight, height, kLeft, escape(title));
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const double y = kTop + kRow * double(i);
    svg += fmt::format("<text x=\"5\" y=\"{:.1f}\">{}</text>\n", y + kRow * 0.65, escape(lanes[i]));
    svg += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e0e0e0\"/>\n",
                       kLeft, y + kRow, kLeft + kPlot, y + kRow);
  }
  for (const auto& e : events) {
    const auto row = std::find(lanes.begin(), lanes.end(), e.lane) - lanes.begin();
    const double x = kLeft + e.start_s * scale, w = std::max(0.5, (e.end_s - e.start_s) * scale);
    const double y = kTop + kRow * double(row) + 3;
    std::string label = e.step;
    if (!e.sector.empty())
      label += " " + e.sector + (e.partition >= 0 ? "/" + std::to_string(e.partition) : "");
    svg += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\" stroke=\"white\" "
        "stroke-width=\"0.5\"><title>{} {:.3f}-{:.3f} s</title></rect>\n",
        x, y, w, kRow - 6, colour_of(e.step), escape(label), e.start_s, e.end_s);
  }
  // Time axis: about ten ticks at a round step (beyond an hour, a power of ten: at most ~10 ticks for any
  // span, so that a report of absurd times cannot make the loop below endless).
  double step = 1;
  for (double candidate :
       {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0}) {
    step = candidate;
    if (end / candidate <= 12) break;
  }
  if (end / step > 12) step = std::pow(10.0, std::ceil(std::log10(end / 10)));
  const double axis_y = kTop + kRow * double(lanes.size()) + 5;
  for (double t = 0; t <= end + 1e-9; t += step) {
    const double x = kLeft + t * scale;
    svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#9e9e9e\"/>\n",
                       x, axis_y, x, axis_y + 5);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{:g} s</text>\n", x,
                       axis_y + 18, t);
  }
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
