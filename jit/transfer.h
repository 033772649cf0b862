// Control-transfer classification (Smctr "Control Transfer Type Definitions", the E-trace itype encodings)
// and the per-hart ring that inline hooks append to when a control-transfer sink is enabled.
#pragma once

#include <cstdint>

#include "jit/insn.h"

namespace brisk {

enum class TransferType : uint8_t {
  None = 0,
  Exception = 1,
  Interrupt = 2,
  TrapReturn = 3,
  NotTakenBranch = 4,
  TakenBranch = 5,
  IndirectCall = 8,
  DirectCall = 9,
  IndirectJump = 10,
  DirectJump = 11,
  CoroutineSwap = 12,
  Return = 13,
  OtherIndirectJump = 14,
  OtherDirectJump = 15,
};

// x1 and x5 are the link registers of the calling convention's return-address hints.
constexpr bool is_link(unsigned r) { return r == 1 || r == 5; }

// The transfer type of a branch or jump. For conditional branches `taken` says which way it went.
constexpr TransferType classify_transfer(const Insn& i, bool taken) {
  switch (i.op) {
    case Op::JAL:
      if (i.rd == 0) return TransferType::DirectJump;
      return is_link(i.rd) ? TransferType::DirectCall : TransferType::OtherDirectJump;
    case Op::JALR:
      if (is_link(i.rd))
        return is_link(i.rs1) && i.rs1 != i.rd ? TransferType::CoroutineSwap : TransferType::IndirectCall;
      if (is_link(i.rs1)) return TransferType::Return;
      return i.rd == 0 ? TransferType::IndirectJump : TransferType::OtherIndirectJump;
    default:
      return taken ? TransferType::TakenBranch : TransferType::NotTakenBranch;
  }
}

struct TransferRecord {
  uint64_t source;  // pc of the transferring instruction
  uint64_t target;  // pc it went to (for a not-taken branch, the fall-through pc)
  uint64_t type;    // TransferType
};

// A power-of-two ring overwritten oldest-first; head counts every record ever written, so a consumer
// can tell how many it missed.
struct TransferRing {
  static constexpr unsigned kSize = 256;
  uint64_t head = 0;
  TransferRecord rec[kSize] = {};

  void push(uint64_t source, uint64_t target, TransferType type) {
    rec[head & (kSize - 1)] = {source, target, static_cast<uint64_t>(type)};
    head++;
  }
};

}  // namespace brisk
