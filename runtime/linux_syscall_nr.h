// riscv64 Linux system call numbers (include/uapi/asm-generic/unistd.h), as nr::name.
#pragma once

#include <cstdint>

namespace brisk::nr {
#define SYSCALL(n, name) constexpr uint64_t name = n;
#include "runtime/linux_syscalls.def"
#undef SYSCALL
}  // namespace brisk::nr
