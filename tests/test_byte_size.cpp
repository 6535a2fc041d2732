// io::parse_byte_size: the sizes of --gpu-memory.
#include <gtest/gtest.h>

#include "io/byte_size.hpp"

using cuzk::io::parse_byte_size;

TEST(ByteSize, BinaryUnitsAndPlainBytes) {
  EXPECT_EQ(parse_byte_size("1073741824"), 1073741824ull);
  EXPECT_EQ(parse_byte_size("22GiB"), 22ull << 30);
  EXPECT_EQ(parse_byte_size("22G"), 22ull << 30);
  EXPECT_EQ(parse_byte_size("512MiB"), 512ull << 20);
  EXPECT_EQ(parse_byte_size("8K"), 8192ull);
  EXPECT_EQ(parse_byte_size("2TiB"), 2ull << 40);
  EXPECT_EQ(parse_byte_size("0"), 0ull);
}

TEST(ByteSize, RefusesWhatIsNotASize) {
  for (const char* bad : {"", "GiB", "-1", "1.5GiB", "22 GiB", "22gib", "22GB", "0x10", "22GiBs"})
    EXPECT_FALSE(parse_byte_size(bad).has_value()) << bad;
}

TEST(ByteSize, RefusesOverflow) {
  EXPECT_FALSE(parse_byte_size("18446744073709551616").has_value());  // 2^64
  EXPECT_EQ(parse_byte_size("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parse_byte_size("16777216TiB").has_value());  // 2^64
  EXPECT_EQ(parse_byte_size("16777215TiB"), 16777215ull << 40);
}
