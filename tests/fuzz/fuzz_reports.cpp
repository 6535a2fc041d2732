// libFuzzer target: the readers of cuzk's own JSON reports, which `cuzk compare` and `cuzk report timeline`
// take from the user: the timing report (prove and bench formats) and the run report's timeline, then what
// the commands do with them (the comparison, the SVG). Malformed input must end in io::IoError, never in
// another exception, a crash or a hang. The readers take a path: the bytes go through a memfd.
// Seeds: tests/fuzz/corpus/reports.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "io/io_error.hpp"
#include "job/timeline.hpp"
#include "job/timing_report.hpp"

namespace {

// A file whose content is the input, for the life of the object.
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) : fd_(::memfd_create("fuzz-report", 0)) {
    if (fd_ < 0) __builtin_trap();
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) __builtin_trap();
      done += std::size_t(n);
    }
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cuzk;
  const MemoryFile file(data, size);
  try {
    const job::TimingReport report = job::read_timing_report(file.path());
    (void)job::compare_reports(report, report, 0.05, 0.0, 0.05);
  } catch (const io::IoError&) {
  }
  try {
    const std::vector<job::TimelineEvent> events = job::read_report_timeline(file.path());
    (void)job::render_timeline_svg(events, "fuzz");
    (void)job::lane_utilization(events, "prover");
  } catch (const io::IoError&) {
  }
  return 0;
}
