// Control-transfer classification (Smctr "Control Transfer Type Definitions", the E-trace itype encodings)
// and the per-hart ring that inline hooks append to when a control-transfer sink is enabled.
#pragma once

#include <cstdint>
#include <vector>

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
  uint64_t type;    // TransferType; None marks a slot never written
  uint64_t reserved;
};

// A power-of-two ring overwritten oldest-first. `next` is the byte offset of the slot the next record
// goes to: translated code keeps it in a host register and appends with a few stores and no loads.
struct TransferRing {
  static constexpr unsigned kSize = 256;
  static constexpr uint64_t kBytes = kSize * sizeof(TransferRecord);
  TransferRecord rec[kSize] = {};
  uint64_t next = 0;

  void push(uint64_t source, uint64_t target, TransferType type) {
    rec[next / sizeof(TransferRecord)] = {source, target, static_cast<uint64_t>(type), 0};
    next = (next + sizeof(TransferRecord)) & (kBytes - 1);
  }
  // The records written so far (at most kSize), oldest first.
  std::vector<TransferRecord> oldest_first() const {
    std::vector<TransferRecord> v;
    for (unsigned k = 0; k < kSize; k++) {
      const TransferRecord& r = rec[(next / sizeof(TransferRecord) + k) % kSize];
      if (r.type != static_cast<uint64_t>(TransferType::None)) v.push_back(r);
    }
    return v;
  }
};

}  // namespace brisk
