// Hostile inputs and leftovers: the regressions of the defects found by the hostile-input
// campaign that live in library functions (C1 reader, file checks, PCE cache fallback), and the naming
// and removal of stale temporary files. The CLI side (exit codes) is in tests/scripts/hostile_inputs.sh
// and tests/scripts/keep_going.sh.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "c1_fixture.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/json_reader.hpp"
#include "io/mapped_file.hpp"
#include "io/temp_dir.hpp"
#include "pce/cache.hpp"
#include "pce/compact_r1cs.hpp"
#include "pce/errors.hpp"
#include "prover/groth16/demo_circuit.hpp"
#include "prover/porep/c1_file.hpp"

namespace cuzk {
namespace {

namespace fs = std::filesystem;

std::string valid_c1_json() {
  std::mt19937_64 rng(20);
  return porep::c1_to_json(test::random_c1(rng, "StackedDrg2KiBV1_1"));
}

// The message of the IoError that parse_c1_json throws, or "" when it accepts the text.
std::string parse_error(const std::string& text) {
  try {
    (void)porep::parse_c1_json(text, "c1.json");
  } catch (const io::IoError& e) {
    return e.what();
  }
  return "";
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Defect 2: the parser took a NUL byte for the end of the input.
TEST(HostileC1, NulAndGarbageAfterTheDocumentIsRefused) {
  const std::string json = valid_c1_json();
  ASSERT_EQ(parse_error(json), "");
  ASSERT_EQ(parse_error(json + " \n\t"), "") << "whitespace may follow";
  const std::string nul_garbage = json + std::string(1, '\0') + "garbage";
  EXPECT_NE(parse_error(nul_garbage).find("trailing data"), std::string::npos) << parse_error(nul_garbage);
  EXPECT_NE(parse_error(json + std::string(1, '\0')), "") << "a lone NUL byte is data too";
  EXPECT_NE(parse_error(json + "x"), "");

  std::mt19937_64 rng(21);
  porep::C1Output c1 = test::random_c1(rng, "StackedDrg2KiBV1_1");
  c1.sector_num = 7;
  const std::string envelope = porep::c1_to_envelope_json(c1);
  ASSERT_EQ(parse_error(envelope), "");
  EXPECT_NE(parse_error(envelope + std::string(1, '\0') + "{}"), "");
}

// Defect 3: a huge string was echoed whole into the error message.
TEST(HostileC1, QuotedValuesInMessagesAreCapped) {
  const std::string json = valid_c1_json();
  const std::string name = "\"StackedDrg2KiBV1_1\"";
  ASSERT_NE(json.find(name), std::string::npos);

  std::string long_name = json;
  long_name.replace(long_name.find(name), name.size(), "\"" + std::string(200, 'A') + "\"");
  const std::string message = parse_error(long_name);
  EXPECT_NE(message.find("unknown registered_proof"), std::string::npos) << message;
  EXPECT_NE(message.find("\xe2\x80\xa6 (200 bytes)"), std::string::npos) << message;
  EXPECT_EQ(message.find(std::string(65, 'A')), std::string::npos) << "more than 64 bytes quoted";

  // An absurd token is refused as soon as it passes the limit, without being copied or echoed.
  std::string huge = json;
  huge.replace(huge.find(name), name.size(), "\"" + std::string(8 << 20, 'B') + "\"");
  const std::string huge_message = parse_error(huge);
  EXPECT_NE(huge_message.find("longer than 4096 bytes"), std::string::npos) << huge_message.substr(0, 200);
  EXPECT_LT(huge_message.size(), 300u);

  std::string huge_key = json;
  huge_key.insert(1, "\"" + std::string(8 << 20, 'K') + "\":1,");
  const std::string key_message = parse_error(huge_key);
  EXPECT_NE(key_message, "");
  EXPECT_LT(key_message.size(), 300u);

  std::string odd_key = json;
  odd_key.insert(1, "\"bad\\u0001key\":1,");
  EXPECT_NE(parse_error(odd_key).find("\"bad\\x01key\""), std::string::npos) << parse_error(odd_key);
}

TEST(HostileC1, QuoteForMessage) {
  EXPECT_EQ(io::quote_for_message("abc"), "\"abc\"");
  EXPECT_EQ(io::quote_for_message(std::string(64, 'x')), "\"" + std::string(64, 'x') + "\"");
  EXPECT_EQ(io::quote_for_message(std::string(65, 'x')),
            "\"" + std::string(64, 'x') + "\"\xe2\x80\xa6 (65 bytes)");
  EXPECT_EQ(io::quote_for_message(std::string("a\"\n\xff", 4)), "\"a\\x22\\x0a\\xff\"");
}

// Defect 7: sector numbers are unsigned; SectorNum -1 was written as "-1.proof".
TEST(HostileC1, NegativeEnvelopeSectorNumIsRefused) {
  std::mt19937_64 rng(22);
  porep::C1Output c1 = test::random_c1(rng, "StackedDrg2KiBV1_1");
  c1.sector_num = -1;
  const std::string message = parse_error(porep::c1_to_envelope_json(c1));
  EXPECT_NE(message.find("SectorNum -1 is negative"), std::string::npos) << message;
  c1.sector_num = 0;
  EXPECT_EQ(parse_error(porep::c1_to_envelope_json(c1)), "");
}

// A C1 file of many empty partitions took 16x its size in memory before it was
// refused. The reader stops at the first partition beyond what the registered proof allows.
TEST(HostileC1, PartitionsBeyondTheRegisteredProofAreRefusedAtTheFirst) {
  io::TempDir dir("cuzk_hostile_");
  std::string text = valid_c1_json();  // StackedDrg2KiBV1_1: 1 partition of 2 challenges
  const std::size_t end_of_partitions = text.find("]]},\"comm_r\"");
  ASSERT_NE(end_of_partitions, std::string::npos);
  std::string empty_partitions;
  for (int i = 0; i < 4'000'000; ++i) empty_partitions += ",[]";  // 12 MB of text
  text.insert(end_of_partitions + 1, empty_partitions);
  const fs::path path = dir.file("many-partitions.json");
  write_text(path, text);
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)porep::read_c1_file(path.string());
    ADD_FAILURE() << "a C1 file with 4,000,001 partitions was read";
  } catch (const io::IoError& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.path(), path.string());
    EXPECT_NE(message.find("partition 1: more partitions than StackedDrg2KiBV1_1 allows (1)"),
              std::string::npos)
        << message;
    EXPECT_EQ(e.offset(), std::optional<std::uint64_t>(end_of_partitions + 2)) << message;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));

  // Before the registered proof is known (fields in another order), the bound is that of any proof.
  std::string reordered = "{\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[]";
  for (int i = 0; i < 1000; ++i) reordered += ",[]";
  reordered += "]}}";
  const std::string message = parse_error(reordered);
  EXPECT_NE(message.find("partition 126: more partitions than any registered proof allows (126)"),
            std::string::npos)
      << message;

  // Challenges per partition likewise: 2 for 2KiB. A copy of the first challenge is put after the second.
  std::string three_challenges = valid_c1_json();
  const std::size_t first_challenge = three_challenges.find("[[{\"comm_d_proofs\"") + 2;
  const std::size_t second_challenge = three_challenges.find(",{\"comm_d_proofs\"", first_challenge) + 1;
  const std::string challenge =
      three_challenges.substr(first_challenge, second_challenge - 1 - first_challenge);
  three_challenges.insert(three_challenges.find("]]},\"comm_r\""), "," + challenge);
  const std::string challenge_message = parse_error(three_challenges);
  EXPECT_NE(
      challenge_message.find("partition 0 challenge 2: more challenges than StackedDrg2KiBV1_1 allows (2)"),
      std::string::npos)
      << challenge_message;
}

// Item 12: an envelope's Phase1Out is refused by its length before it is copied or decoded, and invalid
// base64 before any output is allocated.
TEST(HostileC1, Phase1OutLengthIsBounded) {
  std::mt19937_64 rng(20);
  const std::string envelope = porep::c1_to_envelope_json(test::random_c1(rng, "StackedDrg2KiBV1_1"));
  const std::size_t base64_length =
      envelope.find("\",\"SectorSize\"") - envelope.find("\"Phase1Out\":\"") - 13;
  EXPECT_NO_THROW((void)porep::parse_c1_json(envelope, "env.json", base64_length));
  EXPECT_LT(base64_length, porep::kMaxPhase1OutChars);
  try {
    (void)porep::parse_c1_json(envelope, "env.json", base64_length - 1);
    ADD_FAILURE() << "a Phase1Out over the bound was decoded";
  } catch (const io::IoError& e) {
    EXPECT_NE(
        std::string(e.what()).find("Phase1Out: longer than " + std::to_string(base64_length - 1) + " bytes"),
        std::string::npos)
        << e.what();
    EXPECT_EQ(e.offset(), std::optional<std::uint64_t>(envelope.find("\"Phase1Out\":\"") + 13));
  }
  // Escapes are never written by Go's encoding/json in base64, and are refused.
  EXPECT_NE(parse_error("{\"SectorNum\":1,\"Phase1Out\":\"QUJD\\u0044\",\"SectorSize\":2048}").find("escape"),
            std::string::npos);
  // An invalid character at the very end is found by the checking pass.
  EXPECT_NE(parse_error("{\"SectorNum\":1,\"Phase1Out\":\"" + std::string(4000, 'A') +
                        "AAA!\",\"SectorSize\":2048}")
                .find("invalid base64 character"),
            std::string::npos);
}

// Defects 1 and 8: special files are named without being opened.
TEST(HostileFiles, NonRegularFilesAreNamedWithoutOpening) {
  io::TempDir dir("cuzk_hostile_");
  const fs::path fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_directory(dir.file("dir"));
  fs::create_symlink(dir.file("absent"), dir.file("dangling"));
  fs::create_symlink(dir.file("loop"), dir.file("loop"));
  write_text(dir.file("regular"), "{}");

  EXPECT_EQ(io::why_not_a_regular_file(dir.file("regular").string()), "");
  EXPECT_NE(io::why_not_a_regular_file(fifo.string()).find("FIFO"), std::string::npos);
  EXPECT_NE(io::why_not_a_regular_file(dir.file("dir").string()).find("directory"), std::string::npos);
  EXPECT_NE(io::why_not_a_regular_file("/dev/zero").find("character device"), std::string::npos);
  EXPECT_EQ(io::why_not_a_regular_file(dir.file("dangling").string()), "a dangling symbolic link");
  EXPECT_NE(io::why_not_a_regular_file(dir.file("loop").string()).find("loop"), std::string::npos);
  EXPECT_EQ(io::why_not_a_regular_file(dir.file("absent").string()), "no such file");

  // A writer holds the FIFO open, so that a reader that opens it anyway does not block this test: it
  // must still be refused as a FIFO, by name.
  const int writer = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(writer, 0);
  try {
    (void)porep::read_c1_file(fifo.string());
    ADD_FAILURE() << "a FIFO was read as a C1 file";
  } catch (const io::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("FIFO"), std::string::npos) << e.what();
    EXPECT_EQ(e.path(), fifo.string());
  }
  ::close(writer);
}

// A file that shrank while it was mapped and read raised SIGBUS (exit 135). The read
// past the new end now sees zeros and the reader gets an IoError naming the file and the first lost offset.
TEST(HostileFiles, FileShrinkingWhileMappedIsAnIoErrorNotSigbus) {
  io::TempDir dir("cuzk_hostile_");
  const fs::path path = dir.file("shrinking");
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  write_text(path, std::string(4 * page, 'x'));
  io::MappedFile file(path.string());
  constexpr off_t kNewSize = 100;  // inside the first page: the rest of it reads as zeros without a fault
  try {
    (void)file.read_guarded([&] {
      std::size_t sum = file.bytes()[0];
      EXPECT_EQ(::truncate(path.c_str(), kNewSize), 0);
      for (std::uint8_t b : file.bytes()) sum += b;  // pages 1..3 are past the end now
      return sum;
    });
    ADD_FAILURE() << "a file that shrank while it was read gave no error";
  } catch (const io::IoError& e) {
    EXPECT_EQ(e.path(), path.string());
    EXPECT_EQ(e.offset(), std::optional<std::uint64_t>(kNewSize));
    EXPECT_NE(std::string(e.what()).find("shrank"), std::string::npos) << e.what();
  }
  // An error thrown by the reader over the zeros is replaced by the same IoError.
  try {
    file.read_guarded([&] {
      if (file.bytes()[2 * page] == 0) throw std::runtime_error("parse error over zeros");
    });
    ADD_FAILURE() << "no error";
  } catch (const io::IoError& e) {
    EXPECT_EQ(e.offset(), std::optional<std::uint64_t>(kNewSize)) << e.what();
  }
}

// Item 11 through the C1 reader: another thread truncates the file while it is parsed. Every outcome is
// a parsed C1 (read before the truncation) or an IoError naming the file, never a signal.
TEST(HostileFiles, C1FileTruncatedDuringTheReadIsAnIoError) {
  io::TempDir dir("cuzk_hostile_");
  const fs::path path = dir.file("c1.json");
  std::string text = valid_c1_json();
  // Whitespace is valid JSON and makes the parse long enough (several pages) to be caught in the middle.
  text.insert(text.size() - 1, std::string(std::size_t{8} << 20, ' '));
  int errors = 0;
  for (int round = 0; round < 20; ++round) {
    write_text(path, text);
    std::thread truncator([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(200 * round));
      (void)::truncate(path.c_str(), static_cast<off_t>(text.size() / 3));
    });
    try {
      (void)porep::read_c1_file(path.string());
    } catch (const io::IoError& e) {
      ++errors;
      EXPECT_EQ(e.path(), path.string());
    }
    truncator.join();
  }
  EXPECT_GT(errors, 0);
}

// Defect 5: bad output paths are input errors named with their reason, found before any work.
TEST(HostileFiles, BadOutputPathsAreRefusedUpFront) {
  io::TempDir dir("cuzk_hostile_");
  write_text(dir.file("file"), "x");
  auto refusal = [](const fs::path& p, bool as_dir) -> std::string {
    try {
      if (as_dir)
        io::prepare_output_dir(p);
      else
        io::check_output_file(p);
    } catch (const io::IoError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refusal(dir.file("file"), true).find("not a directory"), std::string::npos);
  EXPECT_NE(refusal(dir.file("file") / "sub", true).find("cannot create"), std::string::npos);
  EXPECT_NE(refusal("", true).find("empty path"), std::string::npos);
  EXPECT_NE(refusal("/dev/null", true).find("not a directory"), std::string::npos);
  EXPECT_NE(refusal(dir.path() / std::string(300, 'n'), true).find("cannot create"), std::string::npos);
  EXPECT_EQ(refusal(dir.file("new") / "deeper", true), "");
  EXPECT_TRUE(fs::is_directory(dir.file("new") / "deeper"));

  EXPECT_NE(refusal("/dev/null", false).find("not a regular file"), std::string::npos);
  EXPECT_NE(refusal(dir.file("new"), false).find("not a regular file"), std::string::npos);
  EXPECT_NE(refusal(dir.file("absent") / "report.json", false).find("does not exist"), std::string::npos);
  EXPECT_NE(refusal(dir.file("file") / "report.json", false).find("not a directory"), std::string::npos);
  EXPECT_EQ(refusal(dir.file("report.json"), false), "");
  EXPECT_EQ(refusal(dir.file("file"), false), "") << "an existing regular file is replaced";
  if (::geteuid() != 0) {
    fs::create_directory(dir.file("ro"));
    fs::permissions(dir.file("ro"), fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_NE(refusal(dir.file("ro"), true).find("not writable"), std::string::npos);
    EXPECT_NE(refusal(dir.file("ro") / "r.json", false).find("not writable"), std::string::npos);
    fs::permissions(dir.file("ro"), fs::perms::owner_all);
  }
}

// An atomic write renamed its temporary file over a device or FIFO in the target's place (as
// root, `gen-c1 -o /dev/null` replaced /dev/null). Every writer refuses them and leaves them as they were,
// and no temporary file is left. The device is made with mknod: the test runs as root and fails without it.
TEST(HostileFiles, AtomicWritesRefuseFifosAndDevices) {
  io::TempDir dir("cuzk_hostile_");
  const fs::path fifo = dir.file("fifo");
  const fs::path device = dir.file("null");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0) << std::strerror(errno);
  ASSERT_EQ(::mknod(device.c_str(), S_IFCHR | 0666, ::makedev(1, 3)), 0)
      << "mknod of a character device: " << std::strerror(errno) << " (the tests run as root)";
  const std::string text = "replaced";
  const std::span bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  for (const auto& [target, kind] : {std::pair{fifo, "a FIFO"}, {device, "a character device"}}) {
    SCOPED_TRACE(target.string());
    try {
      io::write_file_atomic(target, bytes);
      ADD_FAILURE() << "written over";
    } catch (const io::IoError& e) {
      EXPECT_EQ(e.path(), target.string());
      EXPECT_NE(std::string(e.what()).find(kind), std::string::npos) << e.what();
    }
    EXPECT_THROW(io::AtomicFileWriter writer(target), io::IoError);
    EXPECT_THROW(io::check_output_file(target), io::IoError);
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_TRUE(fs::is_character_file(device));
  }
  // A target that becomes a FIFO while it is written is refused at the rename.
  {
    io::AtomicFileWriter writer(dir.file("late"));
    writer.write(bytes);
    ASSERT_EQ(::mkfifo(dir.file("late").c_str(), 0644), 0);
    EXPECT_THROW(writer.commit(), io::IoError);
    EXPECT_TRUE(fs::is_fifo(dir.file("late")));
  }
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"fifo", "late", "null"})) << "no temporary file left";
}

// Defect 6: without readonly, an unusable cache path or folder is rebuilt in memory (with a warning);
// with readonly it is refused (kReadonly, exit 9).
TEST(HostilePce, UnusableCacheIsRebuiltInMemoryUnlessReadonly) {
  io::TempDir dir("cuzk_hostile_");
  const pce::CompactR1cs demo = pce::compact(groth16::make_demo_circuit().cs);
  const pce::CacheKey key{"demo", "demo circuit for the hostile-input tests"};
  auto build = [&] { return demo; };

  struct Case {
    std::string name;
    std::function<fs::path()> make;  // returns the cache folder
  };
  const std::vector<Case> cases = {
      {"cache file is a directory",
       [&] {
         fs::create_directories(dir.file("a") / "demo.pce");
         return dir.file("a");
       }},
      {"cache file links to /dev/zero",
       [&] {
         fs::create_directories(dir.file("b"));
         fs::create_symlink("/dev/zero", dir.file("b") / "demo.pce");
         return dir.file("b");
       }},
      {"cache folder is a file",
       [&] {
         write_text(dir.file("c"), "x");
         return dir.file("c");
       }},
      {"cache file is a FIFO",
       [&] {
         fs::create_directories(dir.file("d"));
         EXPECT_EQ(::mkfifo((dir.file("d") / "demo.pce").c_str(), 0600), 0);
         return dir.file("d");
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path folder = c.make();
    // Keeps a FIFO from blocking a reader that opens it (the code before the fix did).
    const int writer = ::open((folder / "demo.pce").c_str(), O_RDWR | O_NONBLOCK);
    try {
      (void)pce::load_or_build(folder, key, build, /*readonly=*/true);
      ADD_FAILURE() << "readonly accepted an unusable cache";
    } catch (const pce::PceError& e) {
      EXPECT_EQ(e.kind(), pce::PceErrorKind::kReadonly) << e.what();
    }
    try {
      pce::LoadResult r = pce::load_or_build(folder, key, build, /*readonly=*/false);
      EXPECT_TRUE(r.built);
      EXPECT_EQ(r.pce, demo);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not rebuilt in memory: " << e.what();
    }
    if (writer >= 0) ::close(writer);
  }
  EXPECT_TRUE(fs::is_symlink(dir.file("b") / "demo.pce") || fs::is_regular_file(dir.file("b") / "demo.pce"));
  EXPECT_TRUE(fs::is_character_file("/dev/zero")) << "a cache write must never replace the device";
}

// A cache whose checksums hold but whose circuit is not the one its description names
// was used, and its faults were then blamed on the parameters (exit 6) or the C1 (exit 7). Its figures are
// checked against the circuit's on load: a mismatch is a corrupt cache (rebuilt; with --pce-readonly,
// kReadonly: exit 9). The forged production cache is in tests/test_pce_porep.cpp.
TEST(HostilePce, CacheOfWrongFiguresIsCorrupt) {
  io::TempDir dir("cuzk_hostile_");
  const pce::CompactR1cs demo = pce::compact(groth16::make_demo_circuit().cs);
  pce::CacheKey key{"demo", "demo circuit for the hostile-input tests"};
  key.figures = pce::circuit_figures(demo);
  auto build = [&] { return demo; };
  EXPECT_TRUE(pce::load_or_build(dir.path(), key, build).built);
  EXPECT_FALSE(pce::load_or_build(dir.path(), key, build, /*readonly=*/true).built);  // figures agree

  pce::CacheKey other = key;
  other.figures->aux += 1;
  try {
    (void)pce::load_or_build(dir.path(), other, build, /*readonly=*/true);
    ADD_FAILURE() << "a cache of other figures was used";
  } catch (const pce::PceError& e) {
    EXPECT_EQ(e.kind(), pce::PceErrorKind::kReadonly) << e.what();
    EXPECT_NE(std::string(e.what()).find("its checksums hold but its circuit is not demo's"),
              std::string::npos)
        << e.what();
  }
  const pce::LoadResult rebuilt = pce::load_or_build(dir.path(), other, build);
  EXPECT_TRUE(rebuilt.built);
  EXPECT_NE(rebuilt.rebuild_reason.find("aux"), std::string::npos) << rebuilt.rebuild_reason;
}

std::string this_host() {
  struct utsname u {};
  EXPECT_EQ(::uname(&u), 0);
  return u.nodename;
}

// A pid that surely names no process: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

// Stale temporaries: the name says which process on which host writes it; a later run removes those of
// dead processes on this host and nothing else.
TEST(StaleTemporaries, NamesCarryPidAndHost) {
  io::TempDir dir("cuzk_hostile_");
  const std::string expected = ".5.proof.tmp." + std::to_string(::getpid()) + "@" + this_host() + ".";
  EXPECT_EQ(io::temporary_name_prefix(dir.file("5.proof")), expected);
  io::AtomicFileWriter writer(dir.file("5.proof"));
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) names.push_back(entry.path().filename());
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0].rfind(expected, 0), 0u) << names[0];
  EXPECT_EQ(names[0].size(), expected.size() + 6);  // mkostemp's XXXXXX
}

TEST(StaleTemporaries, OnlyThoseOfDeadProcessesOnThisHostAreRemoved) {
  io::TempDir dir("cuzk_hostile_");
  const std::string host = this_host();
  const std::string dead = std::to_string(dead_pid());
  const std::string alive = std::to_string(::getpid());
  const std::vector<std::string> stale = {
      ".5.proof.tmp." + dead + "@" + host + ".a1B2c3",
      ".stacked-drg-2KiB-c2.pce.tmp." + dead + "@" + host + ".zzzzzz",
      ".we@ird.tmp.name.tmp." + dead + "@" + host + ".Q0q0Q0",
  };
  const std::vector<std::string> kept = {
      ".5.proof.tmp." + alive + "@" + host + ".a1B2c3",       // a live writer (this process)
      ".5.proof.tmp." + dead + "@other-host.example.a1B2c3",  // another host on a shared file system
      ".5.proof.tmp.a1B2c3",                                  // the old naming: cannot tell, kept
      "5.proof",                                              // not a temporary
      ".5.proof.tmp." + dead + "@" + host,                    // no random suffix: not ours
  };
  for (const auto& name : stale) write_text(dir.file(name), "partial");
  for (const auto& name : kept) write_text(dir.file(name), "keep");
  EXPECT_EQ(io::remove_stale_temporaries(dir.path()), stale.size());
  for (const auto& name : stale) EXPECT_FALSE(fs::exists(dir.file(name))) << name;
  for (const auto& name : kept) EXPECT_TRUE(fs::exists(dir.file(name))) << name;
  EXPECT_EQ(io::remove_stale_temporaries(dir.file("absent")), 0u) << "a missing folder is no error";
}

// The PCE cache writes through the same writer and tidies its folder before writing.
TEST(StaleTemporaries, PceCacheFolderIsTidied) {
  io::TempDir dir("cuzk_hostile_");
  const std::string stale = ".demo.pce.tmp." + std::to_string(dead_pid()) + "@" + this_host() + ".abcdef";
  write_text(dir.file(stale), "partial cache");
  const pce::CompactR1cs demo = pce::compact(groth16::make_demo_circuit().cs);
  pce::LoadResult r = pce::load_or_build(dir.path(), {"demo", "demo circuit for the hostile-input tests"},
                                         [&] { return demo; });
  EXPECT_TRUE(r.built);
  EXPECT_FALSE(fs::exists(dir.file(stale)));
  EXPECT_TRUE(fs::is_regular_file(dir.file("demo.pce")));
}

}  // namespace
}  // namespace cuzk
