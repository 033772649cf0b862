#include "runtime/diag.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace brisk {

namespace {

struct Diag {
  int fd;
  FILE* f;
  Diag() {
    fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, kOwnFdFloor);
    f = fd >= 0 ? fdopen(fd, "w") : nullptr;
    if (!f) {
      fd = STDERR_FILENO;
      f = stderr;
    }
  }
};

Diag& instance() {
  static Diag d;
  return d;
}

// Descriptors open_own_file made (set up before any guest runs, so no locking).
std::vector<int>& own_files() {
  static std::vector<int> fds;
  return fds;
}

}  // namespace

FILE* diag() { return instance().f; }
int diag_fd() { return instance().fd; }

int adopt_own_fd(int low) {
  if (low < 0) return -1;
  const int fd = fcntl(low, F_DUPFD_CLOEXEC, kOwnFdFloor);
  close(low);
  if (fd >= 0) own_files().push_back(fd);
  return fd;
}

FILE* open_own_file(const std::string& path) {
  const int fd = adopt_own_fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
  if (fd < 0) return nullptr;
  FILE* f = fdopen(fd, "w");
  if (!f) close(fd);
  return f;
}

std::vector<int> own_fds() {
  std::vector<int> v = own_files();
  // When diag could not get a descriptor of its own it shares the guest's stderr, which stays usable.
  if (diag_fd() > STDERR_FILENO) v.push_back(diag_fd());
  std::sort(v.begin(), v.end());
  return v;
}

bool own_fd(int fd) {  // on every fd argument of a guest's syscall: no allocation
  if (fd == diag_fd() && fd > STDERR_FILENO) return true;
  const std::vector<int>& v = own_files();
  return std::find(v.begin(), v.end(), fd) != v.end();
}

namespace {
bool same_file(int a, int b) {
  struct stat sa, sb;
  return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
}  // namespace

bool same_as_own_file(int fd) {
  for (int own : own_files())
    if (same_file(fd, own)) return true;
  return false;
}

bool same_as_messages(int fd) { return diag_fd() > STDERR_FILENO && same_file(fd, diag_fd()); }

}  // namespace brisk
