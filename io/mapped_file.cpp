#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <limits>
#include <mutex>
#include <utility>

#include "io/io_error.hpp"

namespace cuzk::io {

namespace {

std::string errno_text(const char* action) { return std::string(action) + ": " + std::strerror(errno); }

// Closes the descriptor on every path out of the constructor (the mapping outlives it).
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

// ---------------------------------------------------------------------------------------------------------
// SIGBUS guard. Reading a page of a mapping that lies past the end of a file that shrank after it was
// mapped raises SIGBUS, which kills the process. The handler below looks the faulting address up in the
// table of live mappings; when it is one of ours, it puts an anonymous zero page in the file page's place
// (mmap MAP_FIXED), notes the offset and returns, so the read goes on over zeros and read_guarded() turns
// the outcome into an IoError. No longjmp: the reader's frames (destructors, other threads decoding the
// same file) unwind normally. Faults elsewhere go to the handler that was there before, or kill the process
// as they would have.

struct GuardSlot {
  std::atomic<std::uintptr_t> begin{0};  // 0: free
  std::atomic<std::size_t> length{0};
  std::atomic<std::uint64_t> first_fault{kNoFault};
  static constexpr std::uint64_t kNoFault = std::numeric_limits<std::uint64_t>::max();
};

// Mappings alive at once: a run holds a few (a C1 file, a .params, a .vk per sector size). A mapping
// made while every slot is taken is still correct, only unguarded.
constexpr int kGuardSlots = 256;
std::array<GuardSlot, kGuardSlots> g_guard_slots;
struct sigaction g_previous_sigbus {};
std::uintptr_t g_page_size = 4096;

void restore_previous_and_return(int sig, siginfo_t* info, void* context) {
  const struct sigaction& prev = g_previous_sigbus;
  if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
    prev.sa_sigaction(sig, info, context);
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
  } else {
    // Default action: reinstall it and return; the faulting read runs again and the kernel ends the
    // process with SIGBUS, as without this handler.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigemptyset(&dfl.sa_mask);
    ::sigaction(SIGBUS, &dfl, nullptr);
  }
}

// Async-signal-safe: atomics, mmap (a bare system call on Linux) and sigaction only.
void on_sigbus(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (GuardSlot& slot : g_guard_slots) {
    const std::uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    const std::size_t length = slot.length.load(std::memory_order_acquire);
    if (begin == 0 || address < begin || address - begin >= length) continue;
    const std::uintptr_t page = address & ~(g_page_size - 1);
    void* zero = ::mmap(reinterpret_cast<void*>(page), g_page_size, PROT_READ,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (zero == MAP_FAILED) break;
    const std::uint64_t offset = page < begin ? 0 : page - begin;
    std::uint64_t seen = slot.first_fault.load(std::memory_order_relaxed);
    while (offset < seen && !slot.first_fault.compare_exchange_weak(seen, offset)) {
    }
    errno = saved_errno;
    return;
  }
  restore_previous_and_return(sig, info, context);
  errno = saved_errno;
}

void install_sigbus_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_page_size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    ::sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &g_previous_sigbus);
  });
}

// Registers [data, data + size); returns the slot, or -1 when the table is full.
int guard_mapping(const std::uint8_t* data, std::size_t size) {
  install_sigbus_guard();
  for (int i = 0; i < kGuardSlots; ++i) {
    GuardSlot& slot = g_guard_slots[static_cast<std::size_t>(i)];
    std::uintptr_t expected = 0;
    // Claim the slot with begin = 1 (no mapping starts at address 1) before its length and real begin are
    // stored, so that the handler never sees a begin without its length.
    if (!slot.begin.compare_exchange_strong(expected, 1)) continue;
    slot.length.store(0, std::memory_order_release);
    slot.first_fault.store(GuardSlot::kNoFault, std::memory_order_release);
    slot.length.store(size, std::memory_order_release);
    slot.begin.store(reinterpret_cast<std::uintptr_t>(data), std::memory_order_release);
    return i;
  }
  return -1;
}

void unguard_mapping(int slot_index) {
  if (slot_index < 0) return;
  GuardSlot& slot = g_guard_slots[static_cast<std::size_t>(slot_index)];
  slot.length.store(0, std::memory_order_release);
  slot.begin.store(0, std::memory_order_release);
}

}  // namespace

std::string why_not_a_regular_file(const std::string& path) {
  if (path.empty()) return "empty path";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    struct stat link {};
    if (err == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
      return "a dangling symbolic link";
    if (err == ENOENT) return "no such file";
    if (err == ELOOP) return "a symbolic link loop (too many levels of symbolic links)";
    return std::string("cannot stat: ") + std::strerror(err);
  }
  if (S_ISREG(st.st_mode)) return {};
  if (S_ISDIR(st.st_mode)) return "a directory, not a regular file";
  if (S_ISFIFO(st.st_mode)) return "a FIFO (named pipe), not a regular file";
  if (S_ISCHR(st.st_mode)) return "a character device, not a regular file";
  if (S_ISBLK(st.st_mode)) return "a block device, not a regular file";
  if (S_ISSOCK(st.st_mode)) return "a socket, not a regular file";
  return "not a regular file";
}

void require_regular_file(const std::string& path) {
  if (std::string why = why_not_a_regular_file(path); !why.empty()) throw IoError(path, why);
}

MappedFile::MappedFile(std::string path) : path_(std::move(path)) {
  require_regular_file(path_);
  // O_NONBLOCK: should the path become a FIFO between the check and the open, open() returns at once
  // (and fstat below refuses it) instead of waiting for a writer. It changes nothing for regular files.
  FdCloser fd{::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (fd.fd < 0) throw IoError(path_, errno_text("cannot open"));
  struct stat st{};
  if (::fstat(fd.fd, &st) != 0) throw IoError(path_, errno_text("cannot stat"));
  if (!S_ISREG(st.st_mode)) throw IoError(path_, "not a regular file");
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ != 0) {  // mmap rejects a zero length; an empty span is the right view
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd.fd, 0);
    if (p == MAP_FAILED) {
      size_ = 0;
      throw IoError(path_, errno_text("cannot map"), 0);
    }
    data_ = static_cast<const std::uint8_t*>(p);
    guard_slot_ = guard_mapping(data_, size_);
  }
  fd_ = std::exchange(fd.fd, -1);
}

void MappedFile::check_intact() const {
  std::uint64_t lost_from = GuardSlot::kNoFault;
  if (guard_slot_ >= 0)
    lost_from =
        g_guard_slots[static_cast<std::size_t>(guard_slot_)].first_fault.load(std::memory_order_acquire);
  struct stat st {};
  if (fd_ >= 0 && ::fstat(fd_, &st) == 0 && static_cast<std::uint64_t>(st.st_size) < size_)
    lost_from = std::min<std::uint64_t>(lost_from, static_cast<std::uint64_t>(st.st_size));
  if (lost_from == GuardSlot::kNoFault) return;
  throw IoError(path_,
                "the file shrank while it was read (it had " + std::to_string(size_) +
                    " bytes; those from this offset on are gone)",
                lost_from);
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      guard_slot_(std::exchange(other.guard_slot_, -1)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    guard_slot_ = std::exchange(other.guard_slot_, -1);
  }
  return *this;
}

void MappedFile::release() noexcept {
  unguard_mapping(std::exchange(guard_slot_, -1));
  if (data_ != nullptr) ::munmap(const_cast<std::uint8_t*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  data_ = nullptr;
  size_ = 0;
}

std::span<const std::uint8_t> MappedFile::slice(std::uint64_t offset, std::uint64_t length,
                                                const std::string& what) const {
  if (offset > size_ || length > size_ - offset) {
    throw IoError(path_,
                  "truncated: " + what + " needs " + std::to_string(length) + " bytes but the file has " +
                      std::to_string(offset > size_ ? 0 : size_ - offset) + " left",
                  offset);
  }
  return bytes().subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(length));
}

void MappedFile::advise_sequential() const {
  if (data_ != nullptr) ::madvise(const_cast<std::uint8_t*>(data_), size_, MADV_SEQUENTIAL);
}

}  // namespace cuzk::io
