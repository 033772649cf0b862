// Loads riscv64 Linux ELF executables and interpreters into a user-mode guest address space.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/guest_vm.h"

namespace brisk {

struct LoadedElf {
  uint64_t entry = 0;      // relocated entry point
  uint64_t bias = 0;       // load bias (0 for ET_EXEC)
  uint64_t phdr = 0;       // guest address of the program headers (AT_PHDR)
  uint16_t phent = 0, phnum = 0;
  uint64_t end = 0;        // end of the highest segment: where brk starts
  std::string interp;      // PT_INTERP, empty for a static program
  // The executable PT_LOADs as mapped, page-rounded: where brisk record's MMAP2s say the file is.
  struct Code {
    uint64_t start = 0, len = 0, offset = 0;  // guest address, bytes, file offset
  };
  std::vector<Code> code;
};

// Maps every PT_LOAD of `path`. A position-independent main program goes at Linux's ELF_ET_DYN_BASE,
// an interpreter wherever mmap would put it. Throws brisk::Error naming the file on any bad input:
// missing, not ELF, wrong class/machine/type, truncated, or segments that do not fit.
LoadedElf load_elf(GuestVm& vm, const std::string& path, bool interpreter);

}  // namespace brisk
