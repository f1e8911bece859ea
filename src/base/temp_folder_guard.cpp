#include "base/temp_folder_guard.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <tuple>

namespace openge {
namespace {

// One entry per guarded folder: "<folder>\0<file path>\0...<file path>\0\0", built before it is
// published, never changed after. Whoever takes it out of the table (the guard's destructor, the
// exit handler or a signal handler) removes the folder; a signal handler never frees it.
constexpr int kMaxFolders = 1024;
std::atomic<char*> g_entries[kMaxFolders];

struct sigaction g_previous_int, g_previous_term;
bool g_handles_int = false, g_handles_term = false;

// Async-signal-safe: unlink and rmdir only.
void remove_entry(const char* entry) {
  const char* folder = entry;
  for (const char* p = folder + std::strlen(folder) + 1; *p; p += std::strlen(p) + 1) ::unlink(p);
  ::rmdir(folder);
}

void remove_all_entries() {
  for (auto& slot : g_entries)
    if (char* entry = slot.exchange(nullptr)) remove_entry(entry);
}

extern "C" void on_termination_signal(int sig, siginfo_t* info, void* context) {
  remove_all_entries();
  const struct sigaction& previous = sig == SIGINT ? g_previous_int : g_previous_term;
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler == SIG_DFL) {
    // Blocked while this handler runs: delivered, with the default action, when it returns.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  } else if (previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  }
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::atexit(remove_all_entries);
    struct sigaction ours {};
    ours.sa_sigaction = on_termination_signal;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    for (auto [sig, previous, handles] : {std::tuple{SIGINT, &g_previous_int, &g_handles_int},
                                          std::tuple{SIGTERM, &g_previous_term, &g_handles_term}}) {
      struct sigaction current {};
      if (::sigaction(sig, nullptr, &current) != 0) continue;
      if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) continue;  // stays ignored
      *previous = current;
      *handles = ::sigaction(sig, &ours, nullptr) == 0;
    }
  });
}

char* make_entry(const std::string& folder, const std::vector<std::string>& file_names) {
  std::string flat = folder + '\0';
  for (const std::string& name : file_names) flat += folder + "/" + name + '\0';
  flat += '\0';
  char* entry = new char[flat.size()];
  std::memcpy(entry, flat.data(), flat.size());
  return entry;
}

}  // namespace

TempFolderGuard::TempFolderGuard(std::string folder, const std::vector<std::string>& file_names)
    : folder_(std::move(folder)) {
  install_once();
  char* entry = make_entry(folder_, file_names);
  for (int i = 0; i < kMaxFolders; ++i) {
    char* expected = nullptr;
    if (g_entries[i].compare_exchange_strong(expected, entry)) {
      slot_ = i;
      return;
    }
  }
  delete[] entry;  // table full: removed by the destructor only
}

TempFolderGuard::~TempFolderGuard() {
  if (slot_ >= 0)
    if (char* entry = g_entries[slot_].exchange(nullptr)) {
      remove_entry(entry);
      delete[] entry;
    }
  // Anything else that landed in the folder (and the folder, when the table was full).
  std::error_code ec;
  std::filesystem::remove_all(folder_, ec);
}

}  // namespace openge
