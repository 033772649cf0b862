// Smctr/Ssctr: the recording rules (smctr.adoc, "Behavior") and the CTR CSRs.
#include "csr/ctr.h"

#include <algorithm>

#include "csr/causes.h"
#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/table.h"
#include "runtime/error.h"
#include "runtime/hart.h"

namespace brisk::ctr {

namespace {

constexpr unsigned kU = static_cast<unsigned>(Priv::U), kS = static_cast<unsigned>(Priv::S),
                   kM = static_cast<unsigned>(Priv::M);

Entry& slot(State& c, uint64_t off) { return c.entries[off / sizeof(Entry)]; }

// The control register in charge of the current mode: vsctrctl when V=1, else mctrctl.
uint64_t control(const Hart& h, bool virt) { return virt ? h.csr.ctr.vsctrctl : h.csr.ctr.mctrctl; }

bool mode_enabled(const Hart& h, unsigned priv, bool virt) {
  const uint64_t c = control(h, virt);
  switch (priv) {
    case kU: return c & CTRCTL_U;
    case kS: return c & CTRCTL_S;
    default: return !virt && (c & CTRCTL_M);
  }
}

bool active_in(const Hart& h, unsigned priv, bool virt) {
  return h.csr.isa.has(Ext::Smctr) && !h.csr.ctr.frozen && mode_enabled(h, priv, virt);
}

// CtrCycleCounter (bit 63: the CCV the next record gets) at instret `now`, and its restart from
// zero, valid, after a record: cycle_base holds the counter itself while CTR is inactive.
uint64_t cycle_counter(const State& c, uint64_t now) { return c.active ? now - c.cycle_base : c.cycle_base; }
void restart_cycles(State& c, uint64_t now) { c.cycle_base = c.active ? now ^ kCyclesValid : kCyclesValid; }

// The entry at byte offset `off` gets a record with the cycles counted until instret `now` (CCV
// cleared when `ccv` is false), and the counter restarts. Transfers and traps both come here.
void write_record(State& c, uint64_t off, uint64_t now, uint64_t source, uint64_t target, TransferType type,
                  bool misp, bool ccv) {
  const uint64_t cycles = cycle_counter(c, now);
  slot(c, off) = {.source = source | CTRSOURCE_V,
                  .type = static_cast<uint64_t>(type),
                  .target = target | (misp ? CTRTARGET_MISP : 0),
                  .cycles = ccv ? cycles : cycles & ~kCyclesValid};
  restart_cycles(c, now);
}

// A record at WRPTR, which then advances.
void push(State& c, uint64_t now, uint64_t source, uint64_t target, TransferType type, bool misp, bool ccv = true) {
  write_record(c, c.wrptr_off, now, source, target, type, misp, ccv);
  c.wrptr_off = (c.wrptr_off + sizeof(Entry)) & c.wrptr_mask;
}

// sync_activity at instret `now` (an xRET's own retirement is not yet in Hart::instret).
void sync_at(Hart& h, uint64_t now) {
  sync_ring(h);
  State& c = h.csr.ctr;
  const bool active = active_in(h, static_cast<unsigned>(h.priv), csr::virtual_mode(h));
  // cycle_base = instret - counter while active, the counter itself while not: one formula each way.
  if (active != c.active) c.cycle_base = now - c.cycle_base;
  c.active = active;
}

bool inhibited(uint64_t filters, TransferType type) {
  return (filters >> (CTRCTL_TYPE_SHIFT + static_cast<unsigned>(type))) & 1;
}

// External Trap Enable Requirements (smctr.adoc, "External Traps"): the xTE of the target mode and
// of every intervening mode. A trap only goes up, and an external trap changes mode.
bool external_trap_enabled(const Hart& h, unsigned from, bool from_virt, unsigned to, bool to_virt) {
  const uint64_t m = h.csr.ctr.mctrctl, vs = h.csr.ctr.vsctrctl;
  if (to == kM && !(m & CTRCTL_MTE)) return false;
  // sctrctl.STE: into HS or M from a mode below HS (U, VS or VU).
  if (!to_virt && (from_virt || from == kU) && !(m & CTRCTL_STE)) return false;
  // vsctrctl.STE: out of VU, to VS or anything above.
  if (from_virt && from == kU && !(vs & CTRCTL_STE)) return false;
  return true;
}

// The fields that decide a privilege-changing transfer other than the mode enables and xTE
// (smctr.adoc, "Virtualization Mode Transitions"): vsctrctl's whenever V=1 on either side.
uint64_t transition_filters(const Hart& h, bool from_virt, bool to_virt) {
  return control(h, from_virt || to_virt);
}

}  // namespace

bool is_active(const Hart& h) { return active_in(h, static_cast<unsigned>(h.priv), csr::virtual_mode(h)); }

uint32_t record_mask(const Hart& h) { return record_mask(h, static_cast<unsigned>(h.priv), csr::virtual_mode(h)); }

uint32_t record_mask(const Hart& h, unsigned priv, bool virt) {
  if (!active_in(h, priv, virt)) return 0;
  const uint64_t c = control(h, virt);
  if (c & CTRCTL_RASEMU) {
    return kRasEmu | 1u << unsigned(TransferType::IndirectCall) | 1u << unsigned(TransferType::DirectCall) |
           1u << unsigned(TransferType::CoroutineSwap) | 1u << unsigned(TransferType::Return);
  }
  // Every filter bit inhibits its type except NTBREN, which enables not-taken branches.
  const uint64_t filters = c >> CTRCTL_TYPE_SHIFT, ntbr = 1u << unsigned(TransferType::NotTakenBranch);
  return static_cast<uint32_t>(((~filters & ~ntbr) | (filters & ntbr)) & kFilterTypes);
}

uint32_t SiteTable::intern(const Site& s) {
  auto [it, added] = index_.try_emplace(s.key(), static_cast<uint32_t>(sites_.size()));
  if (added) {
    if (sites_.size() > kMaxSites) throw Error("CTR: more than {} transfer sites translated", kMaxSites);
    sites_.push_back(s);
  }
  return it->second;
}

void SiteTable::clear() {
  sites_.resize(1);
  index_.clear();
}

uint64_t unsynced(const Ring& r) {
  constexpr uint64_t wrap = Ring::kSlots - 1;
  // At least kSlots records when the 0 before `synced` was overwritten: then only how many modulo
  // kSlots, and so modulo the depth, matters.
  return ((r.next - r.synced) & wrap) + (r.site[(r.synced - 1) & wrap] ? Ring::kSlots : 0);
}

void mark_synced(Ring& r) {
  r.synced = r.next;
  r.site[(r.synced - 1) & (Ring::kSlots - 1)] = 0;
}

void sync_ring(Hart& h) {
  if (h.record_transfers) return h.retire_observer->catch_up(h);
  Ring& r = h.ctr_ring;
  const uint64_t n = unsynced(r);
  if (!n) return;
  State& c = h.csr.ctr;
  // The records older than the last depth() would be overwritten: skip them, with WRPTR advanced
  // past them and the cycle counter as the last one restarted it.
  const uint64_t first = n - std::min<uint64_t>(n, depth(c));
  if (first) {
    c.wrptr_off = (c.wrptr_off + first * sizeof(Entry)) & c.wrptr_mask;
    for_each_record(r, first - 1, first, [&](unsigned, const Site&, uint64_t now) { restart_cycles(c, now); });
  }
  for_each_record(r, first, n, [&](unsigned s, const Site& t, uint64_t now) { push_record(h, s, t, now); });
  mark_synced(r);
}

void push_record(Hart& h, unsigned s, const Site& t, uint64_t now) {
  const Ring& r = h.ctr_ring;
  // The counter predicted taken from 2 up (pmu::Gshare::mispredicted); other sites have none, 0.
  const bool misp = ((r.site[s] >> 1) & 1) != (t.type == TransferType::TakenBranch);
  push(h.csr.ctr, now, t.source, t.indirect ? r.target[s] : t.target, t.type, misp);
}

void record(Hart& h, uint64_t source, uint64_t target, TransferType type, bool misp) {
  sync_ring(h);
  State& c = h.csr.ctr;
  const uint64_t now = h.instret;
  if (!(control(h, csr::virtual_mode(h)) & CTRCTL_RASEMU)) return push(c, now, source, target, type, misp);
  if (type == TransferType::Return) {
    c.wrptr_off = (c.wrptr_off - sizeof(Entry)) & c.wrptr_mask;
    slot(c, c.wrptr_off).source &= ~CTRSOURCE_V;
    return;
  }
  // RASEMU: calls and swaps record CCV = 0 (smctr.adoc allows it), as the parent call's count may
  // have been popped; a swap replaces logical entry 0.
  if (type == TransferType::CoroutineSwap)
    return write_record(c, (c.wrptr_off - sizeof(Entry)) & c.wrptr_mask, now, source, target, type, misp, false);
  push(c, now, source, target, type, misp, false);
}

void on_trap(Hart& h, unsigned from_priv, bool from_virt, unsigned to_priv, bool to_virt, uint64_t mcause,
             uint64_t epc, uint64_t handler) {
  sync_ring(h);
  State& c = h.csr.ctr;
  const uint64_t now = h.instret;  // the trapping instruction did not retire
  if (h.csr.isa.has(Ext::Smctr) && !c.frozen) {
    const bool interrupt = mcause & cause::kInterruptBit;
    const uint64_t code = mcause & ~cause::kInterruptBit;
    // Freeze (smctr.adoc, "Freeze"): a breakpoint or an LCOFI trap (every trap goes to M, HS or VS)
    // freezes CTR per the target's control register, vsctrctl for VS, and is itself not recorded.
    const uint64_t freeze = interrupt ? (code == csr::IRQ_LCOF ? CTRCTL_LCOFIFRZ : 0)
                                      : (code == cause::kBreakpoint ? CTRCTL_BPFRZ : 0);
    const uint64_t filters = transition_filters(h, from_virt, to_virt);
    const TransferType type = interrupt ? TransferType::Interrupt : TransferType::Exception;
    const bool from_on = mode_enabled(h, from_priv, from_virt), to_on = mode_enabled(h, to_priv, to_virt);
    if (control(h, to_virt) & freeze) {
      c.frozen = true;
    } else if (filters & CTRCTL_RASEMU) {
      // RAS emulation records only calls, returns and swaps: traps are inhibited, xTE ignored.
    } else if (to_on && !inhibited(filters, type)) {
      push(c, now, from_on ? epc : 0, handler, type, false);
    } else if (from_on && !to_on && external_trap_enabled(h, from_priv, from_virt, to_priv, to_virt)) {
      push(c, now, epc, 0, type, false);  // independent of EXCINH/INTRINH
    }
  }
  sync_at(h, now);
}

void on_trap_return(Hart& h, unsigned from_priv, bool from_virt, unsigned to_priv, bool to_virt, uint64_t source,
                    uint64_t target) {
  sync_ring(h);
  State& c = h.csr.ctr;
  const uint64_t now = h.instret + 1;  // the xRET retires
  const uint64_t filters = transition_filters(h, from_virt, to_virt);
  if (h.csr.isa.has(Ext::Smctr) && !c.frozen && mode_enabled(h, from_priv, from_virt) &&
      !(filters & CTRCTL_RASEMU) && !inhibited(filters, TransferType::TrapReturn))
    push(c, now, source, mode_enabled(h, to_priv, to_virt) ? target : 0, TransferType::TrapReturn, false);
  sync_at(h, now);
}

void sync_activity(Hart& h) { sync_at(h, h.instret); }

uint64_t cycles_since_record(const Hart& h) { return cycle_counter(h.csr.ctr, h.instret) & ~kCyclesValid; }

void reset_cycles(Hart& h) {
  sync_ring(h);
  State& c = h.csr.ctr;
  c.cycle_base = c.active ? h.instret : 0;
}

unsigned depth(const State& c) { return 16u << c.depth_code; }

void reset(Hart& h) {
  sync_ring(h);
  State& c = h.csr.ctr;
  const uint8_t depths = c.depths;
  c = State{};
  c.depths = depths;
  set_depth(h, 31 - static_cast<unsigned>(__builtin_clz(depths)));
}

void set_depth(Hart& h, unsigned code) {
  sync_ring(h);
  State& c = h.csr.ctr;
  c.depth_code = code;
  c.wrptr_mask = (depth(c) - 1) * sizeof(Entry) | (sizeof(Entry) - 1);
  c.wrptr_off &= c.wrptr_mask;
}

void write_ctrctl(Hart& h, uint64_t v, bool virt) {
  sync_ring(h);
  State& c = h.csr.ctr;
  (virt ? c.vsctrctl : c.mctrctl) = v & (virt ? SCTRCTL_MASK : MCTRCTL_MASK);
  sync_activity(h);
  reset_cycles(h);
  h.request_exit();  // record_mask is part of the translation key
}

uint64_t sctrctl(const Hart& h, bool virt) { return control(h, virt) & SCTRCTL_MASK; }

void write_sctrctl(Hart& h, uint64_t v, bool virt) {
  const uint64_t machine_only = virt ? 0 : h.csr.ctr.mctrctl & ~SCTRCTL_MASK;
  write_ctrctl(h, machine_only | (v & SCTRCTL_MASK), virt);
}

uint64_t sctrstatus(Hart& h) {
  sync_ring(h);
  const State& c = h.csr.ctr;
  return c.wrptr_off / sizeof(Entry) | (c.frozen ? SCTRSTATUS_FROZEN : 0);
}

void write_sctrstatus(Hart& h, uint64_t v) {
  sync_ring(h);
  State& c = h.csr.ctr;
  // WRPTR bits at or above the depth are read-only zero.
  c.wrptr_off = (v & SCTRSTATUS_WRPTR) * sizeof(Entry) & c.wrptr_mask;
  c.frozen = v & SCTRSTATUS_FROZEN;
  sync_activity(h);
  h.request_exit();  // FROZEN is in record_mask
}

Record logical_entry(Hart& h, unsigned n) {
  sync_ring(h);
  const State& c = h.csr.ctr;
  if (n >= depth(c)) return {0, 0, 0};
  const Entry& e = physical_entry(c, n);
  const uint64_t ccv = (e.cycles & kCyclesValid) ? CTRDATA_CCV : 0;
  return {e.source, e.target, e.type | ccv | encode_cycles(e.cycles & ~kCyclesValid) << CTRDATA_CC_SHIFT};
}

Status sctrclr(Hart& h, const Insn& i, bool virt) {
  if (Status st = csr::stateen_check(h, i, csr::STATEEN0_CTR, virt); st != Status::Next) return st;
  if (h.priv == Priv::U) return virt ? csr::virtual_instruction(h, i) : h.illegal(i);
  clear(h);
  return Status::Next;
}

void clear(Hart& h) {
  sync_ring(h);
  for (Entry& e : h.csr.ctr.entries) e = {};  // every physical entry, whatever the depth
  reset_cycles(h);
}

}  // namespace brisk::ctr

namespace brisk::csr {

namespace {

// The Ssctr CSRs and the entry window exist with Smctr (csr/extensions.cpp keeps the two together).
Status check_exists(Hart& h, const Insn& i) { return h.csr.isa.has(Ext::Smctr) ? Status::Next : h.illegal(i); }

// Entry registers of logical entry `select - 0x200` (smctr.adoc, "Entry Registers"): sireg, sireg2,
// sireg3 are ctrsource, ctrtarget, ctrdata; sireg4-6 and entries at or beyond the depth are
// read-only zero (writes ignored).
Status entry_check(Hart& h, const Insn& i, uint64_t, unsigned, bool, bool virt) {
  if (Status st = check_exists(h, i); st != Status::Next) return st;
  return stateen_check(h, i, STATEEN0_CTR, virt);
}

uint64_t entry_read(Hart& h, uint64_t select, unsigned ireg) {
  const ctr::Record r = ctr::logical_entry(h, static_cast<unsigned>(select - ctr::kEntrySelectFirst));
  switch (ireg) {
    case 1: return r.source;
    case 2: return r.target;
    case 3: return r.data;
    default: return 0;
  }
}

// The entry registers are MXLEN wide: were XLEN narrower, the written value would be zero-extended
// (brisk's XLEN is always MXLEN, and an RV32 hart's CSR writes are 32 bits zero-extended already:
// csr/csr.cpp, access).
void entry_write(Hart& h, uint64_t select, unsigned ireg, uint64_t v) {
  ctr::sync_ring(h);
  ctr::State& c = h.csr.ctr;
  const unsigned n = static_cast<unsigned>(select - ctr::kEntrySelectFirst), d = ctr::depth(c);
  if (n >= d || ireg > 3) return;
  ctr::Entry& e = ctr::physical_entry(c, n);
  switch (ireg) {
    case 1: e.source = v; break;
    case 2: e.target = v; break;
    default:
      // ctrdata keeps TYPE, and CC/CCV as cycles that read back as written.
      e.type = v & ctr::CTRDATA_TYPE;
      e.cycles = ctr::decode_cycles((v & ctr::CTRDATA_CC) >> ctr::CTRDATA_CC_SHIFT) |
                 ((v & ctr::CTRDATA_CCV) ? ctr::kCyclesValid : 0);
  }
}

}  // namespace

const IregDef kCtrEntryIreg = {entry_check, entry_read, entry_write};

Status check_ctr(Hart& h, const Insn& i, bool virt) {
  if (Status st = check_exists(h, i); st != Status::Next) return st;
  return stateen_check(h, i, STATEEN0_CTR, virt);
}

// VS-mode never sees sctrdepth, so that a hypervisor can restrict guests to the depths every
// platform supports; the stateen check comes first.
Status check_sctrdepth(Hart& h, const Insn& i, bool virt) {
  if (Status st = check_ctr(h, i, false); st != Status::Next) return st;
  return virt ? virtual_instruction(h, i) : Status::Next;
}

void define_ctr(Table& t) {
  // mctrctl is M-level, which no stateen bit restricts. vsctrctl (0x24E) is an H CSR, absent until
  // brisk has H; its V=1 role is sctrctl's `virt` path.
  t[CSR_MCTRCTL] = {[](Hart& h, uint16_t) { return h.csr.ctr.mctrctl; },
                    [](Hart& h, uint16_t, uint64_t v) { ctr::write_ctrctl(h, v, false); },
                    [](Hart& h, const Insn& i, bool) { return check_exists(h, i); }};
  t[CSR_SCTRCTL] = {[](Hart& h, uint16_t) { return ctr::sctrctl(h, virtual_mode(h)); },
                    [](Hart& h, uint16_t, uint64_t v) { ctr::write_sctrctl(h, v, virtual_mode(h)); },
                    [](Hart& h, const Insn& i, bool) { return check_ctr(h, i, virtual_mode(h)); }};
  t[CSR_SCTRSTATUS] = {[](Hart& h, uint16_t) { return ctr::sctrstatus(h); },
                       [](Hart& h, uint16_t, uint64_t v) { ctr::write_sctrstatus(h, v); },
                       [](Hart& h, const Insn& i, bool) { return check_ctr(h, i, virtual_mode(h)); }};
  // DEPTH is WARL over the supported depths: a value beyond the deepest gives the deepest (Linux's
  // CTR driver finds the depth by writing all ones), and any other unsupported one keeps the current.
  t[CSR_SCTRDEPTH] = {[](Hart& h, uint16_t) { return h.csr.ctr.depth_code; },
                      [](Hart& h, uint16_t, uint64_t v) {
                        const unsigned code = static_cast<unsigned>(v & ctr::SCTRDEPTH_DEPTH);
                        const unsigned deepest = 31 - static_cast<unsigned>(__builtin_clz(h.csr.ctr.depths));
                        if (code > deepest) ctr::set_depth(h, deepest);
                        else if ((h.csr.ctr.depths >> code) & 1) ctr::set_depth(h, code);
                      },
                      [](Hart& h, const Insn& i, bool) { return check_sctrdepth(h, i, virtual_mode(h)); }};
}

}  // namespace brisk::csr
