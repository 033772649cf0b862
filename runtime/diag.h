// brisk's own messages. They go to a private duplicate of the host's stderr, so that a guest that
// closes or redirects its fd 2 (as xz does before exiting) cannot silence or break them.
#pragma once

#include <cstdio>

#include <fmt/format.h>

namespace brisk {

// The stream for errors, warnings and statistics.
FILE* diag();
// Its file descriptor, which user-mode guests must not be able to close or replace.
int diag_fd();

template <typename... Args>
void diag_print(fmt::format_string<Args...> f, Args&&... args) {
  std::string s = fmt::format(f, std::forward<Args>(args)...);
  std::fwrite(s.data(), 1, s.size(), diag());
  std::fflush(diag());
}

}  // namespace brisk
