// Smctr/Ssctr: the recording rules (smctr.adoc, "Behavior") and the CTR CSRs.
#include "csr/ctr.h"

#include "csr/table.h"
#include "runtime/hart.h"

namespace brisk::ctr {

namespace {

Entry& slot(State& c, uint64_t off) { return c.entries[off / sizeof(Entry)]; }

// The control register in charge of the current mode: vsctrctl when V=1, else mctrctl.
uint64_t control(const Hart& h, bool virt) { return virt ? h.csr.ctr.vsctrctl : h.csr.ctr.mctrctl; }

bool mode_enabled(const Hart& h, unsigned priv, bool virt) {
  const uint64_t c = control(h, virt);
  switch (priv) {
    case 0: return c & CTRCTL_U;
    case 1: return c & CTRCTL_S;
    default: return !virt && (c & CTRCTL_M);
  }
}

}  // namespace

bool is_active(const Hart& h) {
  const bool virt = csr::virtual_mode(h);
  return h.csr.isa.has(Ext::Smctr) && !h.csr.ctr.frozen && mode_enabled(h, static_cast<unsigned>(h.priv), virt);
}

uint32_t record_mask(const Hart& h) {
  if (!is_active(h)) return 0;
  const uint64_t c = control(h, csr::virtual_mode(h));
  if (c & CTRCTL_RASEMU) {
    return kRasEmu | 1u << unsigned(TransferType::IndirectCall) | 1u << unsigned(TransferType::DirectCall) |
           1u << unsigned(TransferType::CoroutineSwap) | 1u << unsigned(TransferType::Return);
  }
  uint32_t m = 0;
  for (unsigned t = 1; t < 16; t++) {
    if (t == 6 || t == 7) continue;  // reserved
    const bool bit = (c >> (CTRCTL_TYPE_SHIFT + t)) & 1;
    if (t == unsigned(TransferType::NotTakenBranch) ? bit : !bit) m |= 1u << t;
  }
  return m;
}

void record(Hart& h, uint64_t source, uint64_t target, TransferType type, bool misp) {
  State& c = h.csr.ctr;
  const uint64_t now = h.instret;
  const bool rasemu = control(h, csr::virtual_mode(h)) & CTRCTL_RASEMU;
  if (rasemu && type == TransferType::Return) {
    c.wrptr_off = (c.wrptr_off - sizeof(Entry)) & c.wrptr_mask;
    slot(c, c.wrptr_off).source &= ~CTRSOURCE_V;
    return;
  }
  // RASEMU: calls and swaps record CCV = 0 (smctr.adoc allows it), as the parent call's count may
  // have been popped; a swap replaces logical entry 0.
  const bool swap = rasemu && type == TransferType::CoroutineSwap;
  const uint64_t off = swap ? (c.wrptr_off - sizeof(Entry)) & c.wrptr_mask : c.wrptr_off;
  const uint64_t cycles = now - c.cycle_base;
  slot(c, off) = {source | CTRSOURCE_V, target | (misp ? CTRTARGET_MISP : 0), static_cast<uint64_t>(type),
                  rasemu ? cycles & ~kCyclesValid : cycles};
  c.cycle_base = now ^ kCyclesValid;  // the counter restarts at 0, valid
  if (!swap) c.wrptr_off = (c.wrptr_off + sizeof(Entry)) & c.wrptr_mask;
}

void sync_activity(Hart& h) {
  State& c = h.csr.ctr;
  const bool now = is_active(h);
  // cycle_base = instret - counter while active, the counter itself while not: one formula each way.
  if (now != c.active) c.cycle_base = h.instret - c.cycle_base;
  c.active = now;
}

void instret_written(Hart& h, uint64_t from, uint64_t to) {
  if (h.csr.ctr.active) h.csr.ctr.cycle_base += to - from;
}

void reset_cycles(Hart& h) {
  State& c = h.csr.ctr;
  c.cycle_base = c.active ? h.instret : 0;
}

unsigned depth(const State& c) { return 16u << c.depth_code; }

void set_depth(Hart& h, unsigned code) {
  State& c = h.csr.ctr;
  c.depth_code = code;
  c.wrptr_mask = (depth(c) - 1) * sizeof(Entry) | (sizeof(Entry) - 1);
  c.wrptr_off &= c.wrptr_mask;
}

void write_ctrctl(Hart& h, uint64_t v, bool virt) {
  State& c = h.csr.ctr;
  (virt ? c.vsctrctl : c.mctrctl) = v & (virt ? SCTRCTL_MASK : MCTRCTL_MASK);
  sync_activity(h);
  reset_cycles(h);
  h.request_exit();  // record_mask is part of the translation key
}

Record logical_entry(const Hart& h, unsigned n) {
  const State& c = h.csr.ctr;
  const unsigned d = depth(c);
  if (n >= d) return {0, 0, 0};
  const unsigned wrptr = static_cast<unsigned>(c.wrptr_off / sizeof(Entry));
  const Entry& e = c.entries[(wrptr - n - 1) & (d - 1)];
  const uint64_t ccv = (e.cycles & kCyclesValid) ? CTRDATA_CCV : 0;
  return {e.source, e.target, e.type | ccv | encode_cycles(e.cycles & ~kCyclesValid) << CTRDATA_CC_SHIFT};
}

}  // namespace brisk::ctr
