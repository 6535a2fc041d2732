#include "io/json_reader.hpp"

#include <algorithm>
#include <cctype>

namespace cuzk::io {

namespace {
std::string describe(char c) {
  if (c == '\0') return "end of input";
  if (std::isprint(static_cast<unsigned char>(c))) return std::string("'") + c + "'";
  return "byte " + std::to_string(static_cast<unsigned char>(c));
}
}  // namespace

std::string quote_for_message(std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  const std::string_view shown = value.substr(0, kMaxQuotedBytes);
  for (char c : shown) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '"' && c != '\\') {
      out += c;
    } else {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  out += '"';
  if (value.size() > shown.size()) out += "\u2026 (" + std::to_string(value.size()) + " bytes)";
  return out;
}

void JsonReader::skip_ws() {
  while (pos_ < text_.size() &&
         (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t'))
    ++pos_;
}

char JsonReader::peek() {
  skip_ws();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

void JsonReader::expect(char c) {
  char got = peek();
  if (got != c) fail(std::string("malformed JSON: expected '") + c + "', found " + describe(got));
  ++pos_;
}

void JsonReader::begin_object() {
  expect('{');
  first_in_container_ = true;
}

bool JsonReader::next_key(std::string& key) {
  char c = peek();
  if (c == '}') {
    ++pos_;
    first_in_container_ = false;
    return false;
  }
  if (!first_in_container_) {
    expect(',');
  }
  first_in_container_ = false;
  key = read_string();
  expect(':');
  first_in_container_ = true;  // the value that follows is not preceded by ','
  return true;
}

void JsonReader::begin_array() {
  expect('[');
  first_in_container_ = true;
}

bool JsonReader::has_next_element() {
  char c = peek();
  if (c == ']') {
    ++pos_;
    first_in_container_ = false;
    return false;
  }
  if (!first_in_container_) expect(',');
  first_in_container_ = true;
  return true;
}

std::uint64_t JsonReader::parse_unsigned() {
  skip_ws();
  std::size_t start = pos_;
  std::uint64_t value = 0;
  while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
    std::uint64_t digit = static_cast<std::uint64_t>(text_[pos_] - '0');
    if (value > (UINT64_MAX - digit) / 10) fail("integer out of range");
    value = value * 10 + digit;
    ++pos_;
  }
  if (pos_ == start) fail("malformed JSON: expected an integer, found " + describe(peek()));
  if (text_[start] == '0' && pos_ - start > 1) {
    pos_ = start;
    fail("malformed JSON: leading zero in an integer");
  }
  if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E'))
    fail("expected an integer, found a fractional number");
  first_in_container_ = false;
  return value;
}

std::uint64_t JsonReader::read_u64() {
  if (peek() == '-') fail("expected a non-negative integer");
  return parse_unsigned();
}

std::int64_t JsonReader::read_i64() {
  bool negative = false;
  if (peek() == '-') {
    negative = true;
    ++pos_;
  }
  std::uint64_t magnitude = parse_unsigned();
  if (magnitude > static_cast<std::uint64_t>(INT64_MAX) + (negative ? 1 : 0)) fail("integer out of range");
  return negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
}

std::string JsonReader::read_string(std::size_t max_bytes) {
  expect('"');
  const std::size_t start = pos_;
  std::string out;
  while (true) {
    if (pos_ >= text_.size()) fail("malformed JSON: unterminated string");
    if (out.size() > max_bytes) {
      pos_ = start;
      fail("a string longer than " + std::to_string(max_bytes) + " bytes (not a C1 output)");
    }
    char c = text_[pos_++];
    if (c == '"') break;
    if (static_cast<unsigned char>(c) < 0x20) fail("malformed JSON: control character in a string");
    if (c != '\\') {
      out += c;
      continue;
    }
    if (pos_ >= text_.size()) fail("malformed JSON: unterminated escape");
    char e = text_[pos_++];
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        // Base64 and identifiers never need non-ASCII; accept \u00XX for completeness.
        if (pos_ + 4 > text_.size()) fail("malformed JSON: short \\u escape");
        unsigned v = 0;
        for (int i = 0; i < 4; ++i) {
          char h = text_[pos_++];
          v <<= 4;
          if (h >= '0' && h <= '9') v |= static_cast<unsigned>(h - '0');
          else if (h >= 'a' && h <= 'f') v |= static_cast<unsigned>(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F') v |= static_cast<unsigned>(h - 'A' + 10);
          else fail("malformed JSON: bad \\u escape");
        }
        if (v > 0x7f) fail("unsupported non-ASCII \\u escape");
        out += static_cast<char>(v);
        break;
      }
      default: fail("malformed JSON: bad escape");
    }
  }
  first_in_container_ = false;
  return out;
}

std::string_view JsonReader::read_plain_string(std::size_t max_bytes, const std::string& what) {
  expect('"');
  const std::size_t start = pos_;
  const std::size_t scan_end = std::min(text_.size(), start + max_bytes + 1);
  while (pos_ < scan_end && text_[pos_] != '"') {
    const char c = text_[pos_];
    if (c == '\\') fail(what + ": an escape sequence (not expected in it)");
    if (static_cast<unsigned char>(c) < 0x20) fail("malformed JSON: control character in a string");
    ++pos_;
  }
  if (pos_ - start > max_bytes) {
    pos_ = start;
    fail(what + ": longer than " + std::to_string(max_bytes) + " bytes");
  }
  if (pos_ >= text_.size()) fail("malformed JSON: unterminated string");
  const std::string_view out = text_.substr(start, pos_ - start);
  ++pos_;  // the closing quote
  first_in_container_ = false;
  return out;
}

void JsonReader::read_null() {
  skip_ws();
  if (text_.substr(pos_, 4) != "null") fail("expected null, found " + describe(peek()));
  pos_ += 4;
  first_in_container_ = false;
}

void JsonReader::skip_value() {
  char c = peek();
  if (c == '{') {
    begin_object();
    std::string key;
    while (next_key(key)) skip_value();
  } else if (c == '[') {
    begin_array();
    while (has_next_element()) skip_value();
  } else if (c == '"') {
    read_string();
  } else if (c == 'n') {
    read_null();
  } else if (c == 't' || c == 'f') {
    std::string_view word = c == 't' ? "true" : "false";
    if (text_.substr(pos_, word.size()) != word) fail("malformed JSON: bad literal");
    pos_ += word.size();
    first_in_container_ = false;
  } else {
    if (c == '-') ++pos_;
    parse_unsigned();
  }
}

void JsonReader::read_bytes(std::uint8_t* out, std::size_t n) {
  std::size_t start = pos_;
  begin_array();
  std::size_t count = 0;
  while (has_next_element()) {
    if (count == n) {
      pos_ = start;
      fail("expected an array of " + std::to_string(n) + " bytes, found more");
    }
    std::uint64_t v = read_u64();
    if (v > 255) fail("byte value " + std::to_string(v) + " out of range 0..255");
    out[count++] = static_cast<std::uint8_t>(v);
  }
  if (count != n) {
    pos_ = start;
    fail("expected an array of " + std::to_string(n) + " bytes, found " + std::to_string(count));
  }
}

void JsonReader::expect_end() {
  // Not peek() != '\0': peek() also returns '\0' for a NUL byte, which is data, not the end.
  skip_ws();
  if (pos_ < text_.size()) {
    fail("trailing data after the JSON document (" +
         std::string(text_[pos_] == '\0' ? "a NUL byte" : describe(text_[pos_])) + ")");
  }
}

}  // namespace cuzk::io
