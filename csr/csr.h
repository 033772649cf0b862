// Control and status registers: the state behind them and the Zicsr access path.
#pragma once

#include <cstdint>

namespace brisk {
struct Hart;
struct Insn;
enum class Status : uint32_t;
}  // namespace brisk

namespace brisk::csr {

// CSR state that is not hot enough to live in the Hart's first cache lines.
struct State {
  // The `time` CSR: reads the machine's timer (user mode: the host clock at 10 MHz).
  uint64_t (*read_time)(const Hart&) = nullptr;
};

enum class CsrOp : uint8_t { RW, RS, RC };

// One Zicsr access to the CSR named by insn.imm: `write` is false for CSRRS/CSRRC with a zero source,
// `read` is false for CSRRW/CSRRWI with rd = x0. Checks existence, privilege and read-only-ness before
// any side effect. On success stores the old value in `old` and returns Status::Next; otherwise raises
// the exception.
Status access(Hart& h, const Insn& insn, CsrOp op, bool read, bool write, uint64_t src, uint64_t& old);

}  // namespace brisk::csr
