// Control-transfer classification (Smctr "Control Transfer Type Definitions", the E-trace itype
// encodings), shared by CTR (csr/ctr.h), the PMU's call and return events and the block plan.
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

}  // namespace brisk
