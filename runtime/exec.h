// What the exec loop needs from the machine around a hart.
#pragma once

#include "runtime/hart.h"

namespace brisk {

struct TrapHandler {
  virtual ~TrapHandler() = default;
  // The instruction at h.pc raised h.trap. Resolve it (emulate a syscall, enter the guest's trap
  // handler) and return true to resume at h.pc, or false to stop the hart.
  virtual bool on_trap(Hart& h) = 0;
  // h reached its deadline: an exact event, a pending interrupt, WFI or the end of a time slice.
  // Deliver what is due, set a new deadline, and return true to go on running h, or false to stop it.
  virtual bool on_budget(Hart& h) = 0;
};

// Fetches the instruction at h.pc through the permission-checked path. Returns false after raising
// an instruction fault.
bool fetch_insn(Hart& h, uint32_t& raw);

}  // namespace brisk
