// A strict pull parser for JSON held in memory (usually an mmapped file). It never builds a DOM:
// callers walk the document in the order they expect it, so memory stays bounded by the input and
// the structures being filled. Every error names the file and the byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/io_error.hpp"

namespace cuzk::io {

// Quoted values in error messages are cut to this many bytes: a hostile file must not be echoed whole
// to stderr (a 1 GiB string would be a 1 GiB message).
inline constexpr std::size_t kMaxQuotedBytes = 64;
// `value` in double quotes for an error message: at most kMaxQuotedBytes bytes of it, then
// "… (N bytes)" when it is longer; control and non-ASCII bytes as \xNN.
std::string quote_for_message(std::string_view value);

// The longest string read_string() accepts unless told otherwise. The strings of a C1 file besides the
// envelope's Phase1Out are keys and registered proof names (the longest, "StackedDrg512MiBV1_2_Feat_
// NonInteractivePoRep", has 45 bytes); 4 KiB leaves room and refuses absurd tokens before they are copied.
inline constexpr std::size_t kMaxStringBytes = 4096;

class JsonReader {
 public:
  JsonReader(std::string_view text, std::string source_name) : text_(text), source_(std::move(source_name)) {}

  // Structure. `next_key` returns false at the closing brace; `has_next_element` likewise for ']'.
  void begin_object();
  bool next_key(std::string& key);
  void begin_array();
  bool has_next_element();

  // Scalars.
  std::uint64_t read_u64();
  std::int64_t read_i64();
  // Fails ("longer than max_bytes") as soon as the string passes max_bytes, without reading it all.
  std::string read_string(std::size_t max_bytes = kMaxStringBytes);
  // A string without escapes, as a view into the text (no copy: for long values such as an envelope's
  // base64 Phase1Out); fails at an escape, and as soon as it passes max_bytes, naming what it is.
  std::string_view read_plain_string(std::size_t max_bytes, const std::string& what);
  void read_null();
  void skip_value();
  // Reads a JSON array of exactly N integers 0..255.
  template <std::size_t N>
  void read_byte_array(std::uint8_t (&out)[N]) {
    read_bytes(out, N);
  }
  void read_bytes(std::uint8_t* out, std::size_t n);

  void expect_end();  // only whitespace may follow the document (no NUL, no garbage)

  std::size_t offset() const { return pos_; }
  // Errors raised while a context is set are prefixed with it (e.g. "partition 0 challenge 3").
  void set_context(std::string context) { context_ = std::move(context); }
  [[noreturn]] void fail(const std::string& what) const {
    throw IoError(source_, context_.empty() ? what : context_ + ": " + what, pos_);
  }
  const std::string& source() const { return source_; }

 private:
  void skip_ws();
  char peek();
  void expect(char c);
  std::uint64_t parse_unsigned();

  std::string_view text_;
  std::string source_;
  std::string context_;
  std::size_t pos_ = 0;
  // Commas: after a value inside a container, the next element/key must be preceded by ','.
  bool first_in_container_ = true;
};

}  // namespace cuzk::io
