#include "runtime/diag.h"

#include <fcntl.h>
#include <unistd.h>

namespace brisk {

namespace {

// Far above the descriptors programs normally use.
constexpr int kDiagFdFloor = 1000;

struct Diag {
  int fd;
  FILE* f;
  Diag() {
    fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, kDiagFdFloor);
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

}  // namespace

FILE* diag() { return instance().f; }
int diag_fd() { return instance().fd; }

}  // namespace brisk
