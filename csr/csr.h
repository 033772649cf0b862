// Control and status registers: the state behind them, the Zicsr access path, and the trap and
// interrupt logic of the privileged architecture.
#pragma once

#include <cstdint>

#include "csr/ctr.h"
#include "csr/extensions.h"
#include "csr/pmu.h"
#include "csr/trigger.h"
#include "devices/device.h"

namespace brisk {
struct Hart;
struct Insn;
enum class Status : uint32_t;
}  // namespace brisk

namespace brisk::csr {

// CSR state that is not hot enough to live in the Hart's first cache lines.
struct State {
  IsaConfig isa;
  // What the `time` CSR reads: the machine's timer (user mode: the host clock at 10 MHz).
  const Clock* clock = nullptr;

  uint64_t mstatus = 0;
  uint64_t medeleg = 0, mideleg = 0;
  uint64_t mie = 0;
  uint64_t mip = 0;     // the software-writable bits (SSIP, STIP without Sstc, SEIP, LCOFIP)
  uint64_t mip_hw = 0;  // bits driven by devices and timers (MSIP, MTIP, MEIP, SEIP line, STIP by Sstc)
  uint64_t mtvec = 0, mepc = 0, mcause = 0, mtval = 0, mscratch = 0;
  uint64_t mcounteren = 0;
  pmu::State pmu;
  uint64_t menvcfg = 0;
  uint64_t pmpcfg[16] = {}, pmpaddr[64] = {};
  uint64_t stvec = 0, sepc = 0, scause = 0, stval = 0, sscratch = 0, satp = 0;
  uint64_t scounteren = 0, senvcfg = 0;
  uint64_t stimecmp = ~0ull;
  uint64_t mstateen[4] = {}, sstateen[4] = {};  // Smstateen/Ssstateen
  // H's hstateen0-3: no CSRs until brisk has H, but the V=1 rules of stateen_check read them.
  uint64_t hstateen[4] = {};
  uint64_t miselect = 0, siselect = 0;          // Smcsrind/Sscsrind
  trigger::State triggers;                      // Sdtrig
  uint64_t ssr = 0, fpmode = 0;                 // the Snitch cluster's CSRs (csr/snitch.cpp)
  bool barrier_access = false;                  // the barrier CSR was accessed: the machine's to act on
  ctr::State ctr;                               // Smctr/Ssctr (large: keep it last)

  uint64_t mip_effective() const { return mip | mip_hw; }
};

enum class CsrOp : uint8_t { RW, RS, RC };

// One Zicsr access to the CSR named by insn.imm: `write` is false for CSRRS/CSRRC with a zero source,
// `read` is false for CSRRW/CSRRWI with rd = x0. Checks existence, privilege and read-only-ness before
// any side effect. On success stores the old value in `old` and returns Status::Next; otherwise raises
// the exception.
Status access(Hart& h, const Insn& insn, CsrOp op, bool read, bool write, uint64_t src, uint64_t& old);

// Gives the hart the extensions in `isa`, fixed from then on (misa is read-only): the decoder
// gates instructions by them, and IALIGN follows C.
void set_isa(Hart& h, const IsaConfig& isa);

// Resets the privileged state of a hart for system mode: M-mode, the extensions of set_isa.
void reset(Hart& h);

// Enters the trap handler for h.trap (an exception raised by the instruction at h.pc), or for
// interrupt `irq` when irq >= 0: delegation, xepc/xcause/xtval, status stack, privilege, pc.
void take_trap(Hart& h, int irq = -1);

// The interrupt to take now (highest priority pending and enabled), or -1.
int pending_interrupt(const Hart& h);

// xRET: return from a trap handler.
Status mret(Hart& h, const Insn& i);
Status sret(Hart& h, const Insn& i);

// The privilege loads and stores are checked against (MPRV applied).
unsigned effective_data_priv(const Hart& h);

}  // namespace brisk::csr
