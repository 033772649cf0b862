// brisk's own messages. They go to a private duplicate of the host's stderr, so that a guest that
// closes or redirects its fd 2 (as xz does before exiting) cannot silence or break them.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace brisk {

// brisk's own descriptors are moved to here or above, far above those programs normally use.
constexpr int kOwnFdFloor = 1000;

// The stream for errors, warnings and statistics.
FILE* diag();
// Its file descriptor, which user-mode guests must not be able to close or replace.
int diag_fd();
// Opens a file of brisk's own for writing (the perf map, a CTR dump) on a descriptor far above the
// guest's, like diag's, that own_fd() names; nullptr with errno set on failure.
FILE* open_own_file(const std::string& path);
// The same for a descriptor brisk opened itself (a temporary file): moves it up there and counts it
// as brisk's own; -1 with errno set (and fd closed) on failure.
int adopt_own_fd(int fd);
// brisk's own descriptors, ascending: diag's (when it has its own) and those open_own_file made.
// User-mode guests must see them as not open.
std::vector<int> own_fds();
bool own_fd(int fd);
// Whether fd, however it was opened (a /proc/self/fd link, a symlink to one), is the same file as one
// open_own_file made.
bool same_as_own_file(int fd);
// Whether fd is the same file as brisk's messages descriptor, when that is a descriptor of its own.
// The guest's stderr may be that file too, so this alone does not make fd brisk's.
bool same_as_messages(int fd);

template <typename... Args>
void diag_print(fmt::format_string<Args...> f, Args&&... args) {
  std::string s = fmt::format(f, std::forward<Args>(args)...);
  std::fwrite(s.data(), 1, s.size(), diag());
  std::fflush(diag());
}

}  // namespace brisk
