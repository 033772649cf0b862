// What the system machines (runtime/virt_machine.h, runtime/snitch_machine.h) share for the
// programs they run: an ELF's segments loaded by physical address, HTIF's tohost mailbox through
// which bare-metal programs print and exit, and the report of a trap without a working handler.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "runtime/elf_file.h"
#include "runtime/hart.h"

namespace brisk {

struct LoadedElf {
  uint64_t entry = 0;
  uint64_t end = 0;                // physical end of the highest segment
  std::optional<uint64_t> tohost;  // the tohost symbol, HTIF's mailbox
};

// The machine's memory for [pa, pa + size): a host pointer when all of it is loadable memory,
// else nullptr.
using PhysMemory = std::function<uint8_t*(uint64_t pa, uint64_t size)>;

// Throws brisk::Error unless the ELF at `path` is of the harts' XLEN (its class, ELF32 or ELF64).
void check_xlen(const ElfFile& f, const std::string& path, unsigned xlen);

// Loads f's PT_LOAD segments at p_paddr + bias into `memory`. Throws brisk::Error naming the
// file and the segment when `memory` has no room for it ("is outside <where>").
LoadedElf load_segments(const ElfFile& f, uint64_t bias, const PhysMemory& memory, const std::string& where);

// HTIF as riscv-tests and bare-metal programs use it: a 64-bit tohost word in RAM holding
// device (63:56), command (55:48) and payload (47:0). Device 0 command 0 with payload bit 0 set
// exits with status payload >> 1; device 1 command 1 writes the payload's low byte to stdout.
// The guest's own exit code (HTIF, a test finisher) as brisk's exit status, which keeps 8 bits: a
// failure code such as 256 must not come out as success, so codes over 255 give 255, with a line.
int guest_exit_status(uint64_t code);

class Htif {
 public:
  explicit Htif(uint8_t* tohost) : tohost_(tohost) {}
  // Serves a pending request and clears tohost. Returns the exit status when the guest asked to
  // exit; an unsupported request is reported and ends the run with 1.
  std::optional<int> poll();

 private:
  uint8_t* tohost_;
};

// An exception that repeats at the same pc without an instruction retired in between means the
// guest has no working handler for it: machines report it instead of spinning.
class TrapRepeats {
 public:
  // Called for each exception of h, before it is taken: true, after one line naming the hart,
  // the cause and the pc, at the third repeat.
  bool stuck(const Hart& h);

 private:
  uint64_t instret_ = ~0ull;
  unsigned repeats_ = 0;
};

}  // namespace brisk
