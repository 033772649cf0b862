#include "csr/csr.h"

#include <array>

#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/table.h"
#include "runtime/fp.h"
#include "runtime/hart.h"

namespace brisk::csr {

namespace {


constexpr uint64_t kFflagsMask = 0x1f;

// Writable mstatus fields (UXL/SXL are fixed at 64 bits, SD is derived).
constexpr uint64_t kMstatusWritable = MSTATUS_SIE | MSTATUS_MIE | MSTATUS_SPIE | MSTATUS_MPIE | MSTATUS_SPP |
                                      MSTATUS_MPP | MSTATUS_FS | MSTATUS_MPRV | MSTATUS_SUM | MSTATUS_MXR |
                                      MSTATUS_TVM | MSTATUS_TW | MSTATUS_TSR;
constexpr uint64_t kMipWritable = MIP_SSIP | MIP_STIP | MIP_SEIP | MIP_LCOFIP;
constexpr uint64_t kMedelegWritable = 0xb3ff;  // every exception but ecall from M (11) and cause 14

// Interrupt-relevant state changed: the exec loop must look at pending interrupts before the next block.
void interrupts_changed(Hart& h) { h.request_exit(); }

// UXL and SXL (RV64 only: RV32's mstatus has neither) and SD, bit XLEN-1.
uint64_t mstatus_xl(const Hart& h) { return h.rv32 ? 0 : XLEN_64 << 32 | XLEN_64 << 34; }
uint64_t sd_bit(const Hart& h) { return h.rv32 ? MSTATUS32_SD : MSTATUS_SD; }
uint64_t with_sd(const Hart& h, uint64_t s) {
  s |= mstatus_xl(h);
  if ((s & MSTATUS_FS) == MSTATUS_FS_DIRTY) s |= sd_bit(h);
  return s;
}

void write_mstatus(Hart& h, uint64_t v, uint64_t mask) {
  uint64_t old = h.csr.mstatus;
  uint64_t next = (old & ~mask) | (v & mask);
  if (((next & MSTATUS_MPP) >> MSTATUS_MPP_SHIFT) == 2) next = (next & ~MSTATUS_MPP) | (old & MSTATUS_MPP);  // WARL
  if (!h.csr.isa.has(Ext::F)) next &= ~MSTATUS_FS;
  h.csr.mstatus = next;
  // TLBs are kept per privilege and SUM, so only MXR changes what a cached translation allows.
  if ((old ^ next) & MSTATUS_MXR) h.env->flush_tlb(h);
  interrupts_changed(h);
}

Status illegal(Hart& h, const Insn& i) { return h.illegal(i); }

Status check_rv32(Hart& h, const Insn& i, bool) { return h.rv32 ? Status::Next : illegal(h, i); }

// FP CSRs exist only with F, and trap while mstatus.FS is Off.
Status check_fp(Hart& h, const Insn& i, bool) {
  if (!h.csr.isa.has(Ext::F) || (h.csr.mstatus & MSTATUS_FS) == 0) return illegal(h, i);
  return Status::Next;
}

// satp and sfence.vma trap in S-mode when mstatus.TVM is set.
Status check_tvm(Hart& h, const Insn& i, bool) {
  if (h.priv == Priv::S && (h.csr.mstatus & MSTATUS_TVM)) return illegal(h, i);
  return Status::Next;
}

// stimecmp needs Sstc enabled by menvcfg.STCE and, below M, the TM bit of mcounteren.
Status check_stimecmp(Hart& h, const Insn& i, bool) {
  if (!h.csr.isa.has(Ext::Sstc)) return illegal(h, i);
  if (h.priv != Priv::M && (!(h.csr.mcounteren & 2) || !(h.csr.menvcfg & MENVCFG_STCE))) return illegal(h, i);
  return Status::Next;
}

// The FIOM and CMO fields of menvcfg/senvcfg after writing v (machine.adoc, "menvcfg"): CBIE and
// CBCFE exist with Zicbom, CBZE with Zicboz; CBIE is WARL and keeps its value on a write of the
// reserved 0b10.
uint64_t write_envcfg(const Hart& h, uint64_t old, uint64_t v) {
  uint64_t mask = ENVCFG_FIOM;
  if (h.csr.isa.has(Ext::Zicbom)) mask |= ENVCFG_CBIE | ENVCFG_CBCFE;
  if (h.csr.isa.has(Ext::Zicboz)) mask |= ENVCFG_CBZE;
  if ((v & ENVCFG_CBIE) == (2ull << 4)) v = (v & ~ENVCFG_CBIE) | (old & ENVCFG_CBIE);
  return v & mask;
}

void define_fp(Table& t) {
  t[CSR_FFLAGS] = {[](Hart& h, uint16_t) -> uint64_t { return h.fflags; },
                   [](Hart& h, uint16_t, uint64_t v) {
                     h.fflags = v & kFflagsMask;
                     load_host_flags(h);
                     fp_dirty(h);
                   },
                   check_fp};
  t[CSR_FRM] = {[](Hart& h, uint16_t) -> uint64_t { return h.frm; },
                [](Hart& h, uint16_t, uint64_t v) {
                  h.frm = v & 7;
                  fp_dirty(h);
                },
                check_fp};
  t[CSR_FCSR] = {[](Hart& h, uint16_t) -> uint64_t { return uint64_t(h.frm) << 5 | h.fflags; },
                 [](Hart& h, uint16_t, uint64_t v) {
                   h.frm = (v >> 5) & 7;
                   h.fflags = v & kFflagsMask;
                   load_host_flags(h);
                   fp_dirty(h);
                 },
                 check_fp};
}

void define_counter_enables(Table& t) {
  t[CSR_MCOUNTEREN] = {[](Hart& h, uint16_t) { return h.csr.mcounteren; },
                       [](Hart& h, uint16_t, uint64_t v) { h.csr.mcounteren = v & 0xffffffff; }};
  t[CSR_SCOUNTEREN] = {[](Hart& h, uint16_t) { return h.csr.scounteren; },
                       [](Hart& h, uint16_t, uint64_t v) { h.csr.scounteren = v & 0xffffffff; }};
}

void define_machine(Table& t) {
  auto zero = [](Hart&, uint16_t) -> uint64_t { return 0; };
  t[CSR_MVENDORID] = {zero};
  t[CSR_MARCHID] = {zero};
  t[CSR_MIMPID] = {zero};
  t[CSR_MCONFIGPTR] = {zero};
  t[CSR_MHARTID] = {[](Hart& h, uint16_t) { return h.hartid; }};
  t[CSR_MSTATUS] = {[](Hart& h, uint16_t) { return with_sd(h, h.csr.mstatus); },
                    [](Hart& h, uint16_t, uint64_t v) { write_mstatus(h, v, kMstatusWritable); }};
  t[CSR_MISA] = {[](Hart& h, uint16_t) {
                   return (h.rv32 ? MISA_MXL_32 : MISA_MXL_64) | misa_letter('S') | misa_letter('U') |
                          h.csr.isa.letters();
                 },
                 [](Hart&, uint16_t, uint64_t) {}};  // WARL: the extensions are fixed at start-up
  t[CSR_MEDELEG] = {[](Hart& h, uint16_t) { return h.csr.medeleg; },
                    [](Hart& h, uint16_t, uint64_t v) { h.csr.medeleg = v & kMedelegWritable; }};
  t[CSR_MIDELEG] = {[](Hart& h, uint16_t) { return h.csr.mideleg; },
                    [](Hart& h, uint16_t, uint64_t v) {
                      h.csr.mideleg = v & S_INTERRUPTS;
                      interrupts_changed(h);
                    }};
  t[CSR_MIE] = {[](Hart& h, uint16_t) { return h.csr.mie; },
                [](Hart& h, uint16_t, uint64_t v) {
                  const uint64_t cluster = h.csr.isa.snitch_cluster ? MIP_MCIP : 0;
                  h.csr.mie = v & (S_INTERRUPTS | MIP_MSIP | MIP_MTIP | MIP_MEIP | cluster);
                  interrupts_changed(h);
                }};
  t[CSR_MIP] = {[](Hart& h, uint16_t) { return h.csr.mip_effective(); },
                [](Hart& h, uint16_t, uint64_t v) {
                  uint64_t mask = kMipWritable;
                  if (h.csr.menvcfg & MENVCFG_STCE) mask &= ~MIP_STIP;  // Sstc drives STIP
                  h.csr.mip = (h.csr.mip & ~mask) | (v & mask);
                  interrupts_changed(h);
                },
                nullptr, [](Hart& h, uint16_t) { return (h.csr.mip_effective() & ~MIP_SEIP) | (h.csr.mip & MIP_SEIP); }};
  t[CSR_MTVEC] = {[](Hart& h, uint16_t) { return h.csr.mtvec; },
                  [](Hart& h, uint16_t, uint64_t v) { h.csr.mtvec = (v & TVEC_MODE) >= 2 ? (v & ~TVEC_MODE) : v; }};
  t[CSR_MSCRATCH] = {[](Hart& h, uint16_t) { return h.csr.mscratch; },
                     [](Hart& h, uint16_t, uint64_t v) { h.csr.mscratch = v; }};
  t[CSR_MEPC] = {[](Hart& h, uint16_t) { return h.csr.mepc; },
                 [](Hart& h, uint16_t, uint64_t v) { h.csr.mepc = v & ~uint64_t(1); }};
  t[CSR_MCAUSE] = {[](Hart& h, uint16_t) { return h.csr.mcause; },
                   [](Hart& h, uint16_t, uint64_t v) { h.csr.mcause = v; }};
  t[CSR_MTVAL] = {[](Hart& h, uint16_t) { return h.csr.mtval; },
                  [](Hart& h, uint16_t, uint64_t v) { h.csr.mtval = v; }};
  t[CSR_MENVCFG] = {[](Hart& h, uint16_t) { return h.csr.menvcfg; },
                    [](Hart& h, uint16_t, uint64_t v) {
                      uint64_t mask = 0;
                      if (h.csr.isa.has(Ext::Sstc)) mask |= MENVCFG_STCE;
                      if (h.csr.isa.has(Ext::Smcdeleg)) mask |= MENVCFG_CDE;
                      h.csr.menvcfg = (v & mask) | write_envcfg(h, h.csr.menvcfg, v);
                      interrupts_changed(h);
                    }};
  // PMP registers are accepted and read back, but not enforced (see README).
  // RV64 packs eight entries in each even pmpcfg, RV32 four in every one: the odd ones are RV32's.
  for (uint16_t n = CSR_PMPCFG0; n <= CSR_PMPCFG15; n++)
    t[n] = {[](Hart& h, uint16_t n) { return h.csr.pmpcfg[n - CSR_PMPCFG0]; },
            [](Hart& h, uint16_t n, uint64_t v) { h.csr.pmpcfg[n - CSR_PMPCFG0] = v; },
            n % 2 ? check_rv32 : nullptr};
  for (uint16_t n = CSR_PMPADDR0; n <= CSR_PMPADDR63; n++)
    t[n] = {[](Hart& h, uint16_t n) { return h.csr.pmpaddr[n - CSR_PMPADDR0]; },
            [](Hart& h, uint16_t n, uint64_t v) { h.csr.pmpaddr[n - CSR_PMPADDR0] = v & ((1ull << 54) - 1); }};
  t[CSR_MSECCFG] = {zero, [](Hart&, uint16_t, uint64_t) {}};
}

void define_supervisor(Table& t) {
  t[CSR_SSTATUS] = {[](Hart& h, uint16_t) { return with_sd(h, h.csr.mstatus) & (SSTATUS_MASK | sd_bit(h)); },
                    [](Hart& h, uint16_t, uint64_t v) {
                      write_mstatus(h, v, kMstatusWritable & SSTATUS_MASK);
                    }};
  t[CSR_SIE] = {[](Hart& h, uint16_t) { return h.csr.mie & h.csr.mideleg; },
                [](Hart& h, uint16_t, uint64_t v) {
                  h.csr.mie = (h.csr.mie & ~h.csr.mideleg) | (v & h.csr.mideleg);
                  interrupts_changed(h);
                }};
  t[CSR_SIP] = {[](Hart& h, uint16_t) { return h.csr.mip_effective() & h.csr.mideleg; },
                [](Hart& h, uint16_t, uint64_t v) {
                  uint64_t mask = h.csr.mideleg & (MIP_SSIP | MIP_LCOFIP);  // the only S-writable bits
                  h.csr.mip = (h.csr.mip & ~mask) | (v & mask);
                  interrupts_changed(h);
                }};
  t[CSR_STVEC] = {[](Hart& h, uint16_t) { return h.csr.stvec; },
                  [](Hart& h, uint16_t, uint64_t v) { h.csr.stvec = (v & TVEC_MODE) >= 2 ? (v & ~TVEC_MODE) : v; }};
  t[CSR_SSCRATCH] = {[](Hart& h, uint16_t) { return h.csr.sscratch; },
                     [](Hart& h, uint16_t, uint64_t v) { h.csr.sscratch = v; }};
  t[CSR_SEPC] = {[](Hart& h, uint16_t) { return h.csr.sepc; },
                 [](Hart& h, uint16_t, uint64_t v) { h.csr.sepc = v & ~uint64_t(1); }};
  t[CSR_SCAUSE] = {[](Hart& h, uint16_t) { return h.csr.scause; },
                   [](Hart& h, uint16_t, uint64_t v) { h.csr.scause = v; }};
  t[CSR_STVAL] = {[](Hart& h, uint16_t) { return h.csr.stval; },
                  [](Hart& h, uint16_t, uint64_t v) { h.csr.stval = v; }};
  t[CSR_SENVCFG] = {[](Hart& h, uint16_t) { return h.csr.senvcfg; },
                    [](Hart& h, uint16_t, uint64_t v) {
                      h.csr.senvcfg = write_envcfg(h, h.csr.senvcfg, v);
                    },
                    [](Hart& h, const Insn& i, bool) {
                      return stateen_check(h, i, STATEEN0_ENVCFG, virtual_mode(h));
                    }};
  t[CSR_SATP] = {[](Hart& h, uint16_t) { return h.csr.satp; },
                 [](Hart& h, uint16_t, uint64_t v) {
                   // WARL: an unsupported mode leaves satp unchanged
                   if (h.rv32) {
                     v &= 0xffffffff;  // Sv32 is RV32's one mode, and every ASID bit is kept
                   } else {
                     uint64_t mode = v >> SATP_MODE_SHIFT;
                     if (mode != SATP_MODE_BARE && mode != SATP_MODE_SV39 && mode != SATP_MODE_SV48 &&
                         mode != SATP_MODE_SV57)
                       return;
                   }
                   // Entries carry no ASID: another address space means starting afresh.
                   if (v != h.csr.satp) h.env->flush_tlb(h);
                   h.csr.satp = v;
                 },
                 check_tvm};
  t[CSR_STIMECMP] = {[](Hart& h, uint16_t) { return h.csr.stimecmp; },
                     [](Hart& h, uint16_t, uint64_t v) {
                       h.csr.stimecmp = v;
                       h.env->timer_changed(h);
                       interrupts_changed(h);
                     },
                     check_stimecmp};
}

Table build() {
  Table t{};
  define_fp(t);
  define_counter_enables(t);
  define_pmu(t);
  define_machine(t);
  define_supervisor(t);
  define_stateen(t);
  define_indirect(t);
  define_cdeleg(t);
  define_ctr(t);
  define_triggers(t);
  define_snitch(t);
  return t;
}

const Table& table() {
  static const Table t = build();
  return t;
}

// RV32 (docs/architecture.md, "XLEN"): the register behind CSR `num`, which is `num` itself but
// for the high-half CSRs (mstatush, cycleh, ...), whose register is the 64-bit one they give bits
// 63:32 of. `halves` says whether the register has such a high half: its low CSR then leaves bits
// 63:32 alone on a write, where every other CSR of an RV32 hart holds XLEN bits.
uint16_t rv32_register(uint16_t num, bool& high, bool& halves) {
  struct Pair {
    uint16_t low, high, count;
  };
  static constexpr Pair kPairs[] = {
      {CSR_MSTATUS, CSR_MSTATUSH, 1},
      {CSR_MEDELEG, CSR_MEDELEGH, 1},
      {CSR_MENVCFG, CSR_MENVCFGH, 1},
      {CSR_MSTATEEN0, CSR_MSTATEEN0H, CSR_MSTATEEN3H - CSR_MSTATEEN0H + 1},
      {CSR_STIMECMP, CSR_STIMECMPH, 1},
      {CSR_CYCLE, CSR_CYCLEH, CSR_HPMCOUNTER31H - CSR_CYCLEH + 1},
      {CSR_MCYCLE, CSR_MCYCLEH, CSR_MHPMCOUNTER31H - CSR_MCYCLEH + 1},
      {CSR_MCYCLECFG, CSR_MCYCLECFGH, CSR_MHPMEVENT31H - CSR_MCYCLECFGH + 1},  // and minstretcfg, mhpmevent3..31
  };
  for (const Pair& p : kPairs) {
    if (num >= p.high && num < p.high + p.count) {
      high = halves = true;
      return static_cast<uint16_t>(p.low + (num - p.high));
    }
    if (num >= p.low && num < p.low + p.count) halves = true;
  }
  return num;
}

}  // namespace

Status access(Hart& h, const Insn& insn, CsrOp op, bool read, bool write, uint64_t src, uint64_t& old) {
  const uint16_t num = static_cast<uint16_t>(insn.imm);
  bool high = false, halves = false;
  const uint16_t reg = h.rv32 ? rv32_register(num, high, halves) : num;
  const Def& d = table()[reg];
  // Address bits 9:8 give the lowest privilege that may access the CSR, bits 11:10 = 3 mark it read-only.
  unsigned min_priv = (num >> 8) & 3;
  bool read_only = (num >> 10) == 3;
  if (!d.read || static_cast<unsigned>(h.priv) < min_priv || (write && (read_only || !d.write)))
    return h.illegal(insn);
  if (d.check) {
    Status st = d.check(h, insn, write);
    if (st != Status::Next) return st;
  }
  const uint64_t full = (read || op != CsrOp::RW || halves) ? d.read(h, reg) : 0;
  // The XLEN bits this CSR is of its register.
  auto part = [&](uint64_t v) { return !h.rv32 ? v : high ? v >> 32 : v & 0xffffffff; };
  if (write) {
    const uint64_t base = part(op != CsrOp::RW && d.rmw_read ? d.rmw_read(h, reg) : full);
    if (h.rv32) src &= 0xffffffff;
    uint64_t next = op == CsrOp::RW ? src : op == CsrOp::RS ? base | src : base & ~src;
    if (halves) next = high ? (full & 0xffffffff) | next << 32 : (full & ~0xffffffffull) | next;
    d.write(h, reg, next);
  }
  old = part(full);
  return Status::Next;
}

void reset(Hart& h) {
  h.priv = Priv::M;
  h.csr.mstatus = mstatus_xl(h);
  h.csr.mie = h.csr.mip = h.csr.mip_hw = 0;
  h.csr.medeleg = h.csr.mideleg = 0;
  h.csr.mcause = 0;
  h.csr.satp = 0;
  h.csr.menvcfg = h.csr.senvcfg = 0;
  h.csr.mcounteren = h.csr.scounteren = 0;
  h.csr.stimecmp = ~0ull;
  for (unsigned n = 0; n < 4; n++) h.csr.mstateen[n] = h.csr.sstateen[n] = h.csr.hstateen[n] = 0;
  h.csr.miselect = h.csr.siselect = 0;
  h.csr.ssr = h.csr.fpmode = 0;
  h.csr.pmu = pmu::State{};
  ctr::reset(h);
  trigger::reset(h);
  h.reservation = ~0ull;
}

void set_isa(Hart& h, const IsaConfig& isa) {
  h.csr.isa = isa;
  h.rv32 = isa.rv32();
  h.ialign_mask = isa.has(Ext::C) ? 1 : 3;
  h.csr.ctr.depths = isa.ctr_depths;
  ctr::reset(h);
  trigger::reset(h);  // tdata1's type field is at XLEN's top
  // The decoder reads the ISA on every decode, and the interpreter keys its decode cache by it;
  // misa is read-only, so nothing cached goes stale.
}

}  // namespace brisk::csr
