#include "cli/signals.hpp"

#include <unistd.h>

#include <cstring>

namespace cuzk::cli {

namespace {

std::atomic<int> g_requested{0};
static_assert(std::atomic<int>::is_always_lock_free, "read and written from a signal handler");

void on_signal(int signal) {
  g_requested.store(signal);
  // Only async-signal-safe calls here: write(2) of a fixed text.
  const char* text = signal == SIGTERM
                         ? "cuzk: SIGTERM: stopping at the next safe point (send it again to stop at once)\n"
                         : "cuzk: SIGINT: stopping at the next safe point (Ctrl-C again to stop at once)\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text, std::strlen(text));
}

}  // namespace

StopOnSignals::StopOnSignals() {
  g_requested.store(0);
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_RESTART;  // the second signal takes the default action: death
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
}

StopOnSignals::~StopOnSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

const std::atomic<int>& StopOnSignals::requested() {
  return g_requested;
}

int interrupted_exit_code() {
  const int signal = g_requested.load();
  return 128 + (signal ? signal : SIGINT);
}

}  // namespace cuzk::cli
