// The layout of every `--help` text: lines of at most kHelpWidth columns (descriptions wrapped under their
// column), option groups in a fixed order, and the commands grouped by task. The CLI11 of Debian 12
// (2.1.2) prints each description on one line however long, so the wrapping is done here.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <memory>
#include <string>

namespace cuzk::cli {

// The widest line a help text may have; tests/scripts/help_texts.sh checks every command's.
inline constexpr std::size_t kHelpWidth = 100;
// Where descriptions start (CLI11's default column).
inline constexpr std::size_t kHelpColumn = 30;

// Option groups, shared by the commands that have many flags (docs/cli.md lists them). Groups print in
// this order; a group not listed here comes after them, in the order its first option was added.
inline constexpr const char* kInputsOutputsGroup = "Inputs and outputs";
inline constexpr const char* kScriptingGroup = "Scripting";
inline constexpr const char* kGpuGroup = "GPU";
inline constexpr const char* kTuningGroup = "Tuning and checks";
inline constexpr const char* kTestOnlyGroup = "Test only";

// `text` split into lines of at most `width` columns at spaces (a word longer than that stays whole); the
// lines after the first start with `indent` spaces, and an explicit newline in `text` starts a new line.
std::string wrap_text(const std::string& text, std::size_t width, std::size_t indent);

// The formatter of the top-level app; subcommands copy it when they are added, so set it first.
std::shared_ptr<CLI::Formatter> make_help_formatter();

}  // namespace cuzk::cli
