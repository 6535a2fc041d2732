// The `--help` layout (cli/help_format.hpp). Built on CLI::Formatter's pieces (description, usage, option
// names, groups, footer); what is added is the wrapping and the order of the option groups.
#include "cli/help_format.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <string_view>
#include <vector>

namespace cuzk::cli {

std::string wrap_text(const std::string& text, std::size_t width, std::size_t indent) {
  const std::size_t room = width > indent ? width - indent : 1;
  const std::string newline = "\n" + std::string(indent, ' ');
  std::string out;
  std::istringstream paragraphs(text);
  std::string paragraph;
  bool first_paragraph = true;
  while (std::getline(paragraphs, paragraph)) {
    if (!first_paragraph) out += newline;
    first_paragraph = false;
    std::istringstream words(paragraph);
    std::string word;
    std::size_t used = 0;  // columns taken on the current line
    while (words >> word) {
      if (used > 0 && used + 1 + word.size() > room) {
        out += newline;
        used = 0;
      } else if (used > 0) {
        out += ' ';
        ++used;
      }
      out += word;
      used += word.size();
    }
  }
  return out;
}

namespace {

// Where a group of options prints: CLI11's "Options" (the help flag) first, the shared groups of
// cli/help_format.hpp in their order, a command's own groups between the first shared one and the rest.
int group_rank(const std::string& group) {
  static constexpr std::array<std::string_view, 4> kAfterOwn = {kScriptingGroup, kGpuGroup, kTuningGroup,
                                                                kTestOnlyGroup};
  if (group == "Options") return 0;
  if (group == kInputsOutputsGroup) return 1;
  const auto shared = std::find(kAfterOwn.begin(), kAfterOwn.end(), group);
  return shared == kAfterOwn.end() ? 2 : 3 + int(shared - kAfterOwn.begin());
}

class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() { column_width(kHelpColumn); }

  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return CLI::Formatter::make_help(app, name, mode);
    std::string out = make_description(app) + make_usage(app, name) + make_positionals(app);
    std::vector<std::string> groups = app->get_groups();
    std::stable_sort(groups.begin(), groups.end(), [](const std::string& a, const std::string& b) {
      return group_rank(a) < group_rank(b);
    });
    for (const std::string& group : groups) {
      const std::vector<const CLI::Option*> options = app->get_options(
          [&group](const CLI::Option* o) { return o->get_group() == group && o->nonpositional(); });
      if (!group.empty() && !options.empty()) out += make_group(group, false, options);
    }
    return out + make_subcommands(app, mode) + "\n" + make_footer(app);
  }

  std::string make_description(const CLI::App* app) const override {
    const std::string text = CLI::Formatter::make_description(app);
    return text.empty() ? text : wrap_text(text, kHelpWidth, 0) + "\n";
  }

  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string text = CLI::Formatter::make_usage(app, std::move(name));
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return wrap_text(text, kHelpWidth, 4) + "\n";
  }

  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    return two_columns(make_option_name(opt, is_positional) + make_option_opts(opt), make_option_desc(opt));
  }

  std::string make_subcommand(const CLI::App* sub) const override {
    return two_columns(sub->get_display_name(), sub->get_description());
  }

 private:
  // "  name" and the description from column kHelpColumn, wrapped there; a name that reaches the column
  // gets a line of its own.
  std::string two_columns(const std::string& name, const std::string& description) const {
    std::string out = "  " + name;
    if (description.empty()) return out + "\n";
    if (out.size() >= kHelpColumn)
      out += "\n" + std::string(kHelpColumn, ' ');
    else
      out.resize(kHelpColumn, ' ');
    return out + wrap_text(description, kHelpWidth, kHelpColumn) + "\n";
  }
};

}  // namespace

std::shared_ptr<CLI::Formatter> make_help_formatter() {
  return std::make_shared<HelpFormatter>();
}

}  // namespace cuzk::cli
