// Programming an ETE trace unit (devices/ete.h) from the host, as Linux's coresight driver would
// from the guest (Linux has no RISC-V driver for it): a register file or Linux's AutoFDO strobing
// configuration (docs/ete.md, "Programming from the host").
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "devices/ete.h"

namespace brisk::ete {

struct RegisterWrite {
  uint64_t offset;
  uint64_t value;
};

// The offset of a register named as in ETE ("TRCCONFIGR", "TRCRSCTLR2", "TRCACVR15"), or -1.
int64_t register_offset(std::string_view name);

// A --trace-config file: one `NAME = VALUE` per line (VALUE decimal or 0x hex; `#` starts a
// comment). Throws brisk::Error naming `what` and the line of an unknown register or a bad value.
std::vector<RegisterWrite> parse_config(std::string_view text, std::string_view what);

// Linux's AutoFDO strobing (coresight-cfg-afdo.c): counter 0 counts the window down every cycle
// and reloads itself, counter 1 counts windows down to the period, and ViewInst traces while
// counter 1 is zero, so trace is on for a window about every period windows. Linux's defaults
// are window 5000 and period 10000; both must fit TRCCNTRLDVR's 16 bits.
std::vector<RegisterWrite> autofdo_config(unsigned window = 5000, unsigned period = 10000);

// Programs the unit in Linux's order: OS lock off, TRCPRGCTLR = 0, the writes, TRCPRGCTLR = 1.
// Throws brisk::Error naming the offset of a write the unit faults.
void program(EteUnit& unit, const std::vector<RegisterWrite>& writes);

}  // namespace brisk::ete
