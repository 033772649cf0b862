// Sdtrig's trigger module (docs/architecture.md, "Triggers"): the CSRs and the match rules of
// mcontrol6 (Sdtrig.adoc and hwbp_registers.xml in the debug spec).
#include "csr/trigger.h"

#include <atomic>

#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/table.h"
#include "runtime/hart.h"

namespace brisk::trigger {

namespace {

constexpr uint64_t kVersion1 = 1ull << 24;  // tinfo.version: the ratified Sdtrig 1.0
constexpr uint64_t kInfo = 1ull << kTypeMcontrol6 | 1ull << kTypeDisabled;

// mcontrol6 match values (0 equal, 1 NAPOT, 2 >=, 3 <, 4 mask low, 5 mask high, and 8, 9, 12 and 13
// their negations); the others are reserved.
constexpr uint16_t kMatchSupported = 0b0011'0011'0011'1111;
constexpr unsigned kMatchNegate = 8;

// NAPOT ranges up to 2^(XLEN-1) bytes: with NAPOT selected, a tdata2 of XLEN-1 low ones keeps
// bit XLEN-2 clear.
constexpr unsigned maskmax6(unsigned xlen) { return xlen - 1; }

unsigned xlen(const Hart& h) { return h.csr.isa.xlen; }

// What tdata1 holds after writing v (XLEN bits, as csr::access passes them) to trigger `index`. Any
// configuration brisk does not support disables the trigger rather than matching something else:
// data matches (select), actions other than the breakpoint exception (1 needs Debug Mode, which
// brisk lacks), the reserved size and match values, and every other type. dmode is writable from
// Debug Mode only, so it stays 0; uncertain and uncertainen stay 0 (every access is seen exactly),
// vs and vu 0 (no H), hit1 0 (every trigger fires before its instruction). The last trigger cannot
// chain to a next one.
uint64_t legal_tdata1(unsigned xlen, unsigned index, uint64_t v) {
  if (v >> type_shift(xlen) != kTypeMcontrol6) return disabled(xlen);
  const unsigned match = (v & MC6_MATCH) >> MC6_MATCH_SHIFT;
  const unsigned size = (v & MC6_SIZE) >> MC6_SIZE_SHIFT;
  if ((v & (MC6_SELECT | MC6_ACTION)) || size == 7 || !((kMatchSupported >> match) & 1)) return disabled(xlen);
  uint64_t keep = MC6_HIT0 | MC6_SIZE | MC6_CHAIN | MC6_MATCH | MC6_M | MC6_S | MC6_U | MC6_EXECUTE | MC6_STORE | MC6_LOAD;
  if (index + 1 == kCount) keep &= ~MC6_CHAIN;
  return kTypeMcontrol6 << type_shift(xlen) | (v & keep);
}

bool is_mcontrol6(unsigned xlen, uint64_t tdata1) { return tdata1 >> type_shift(xlen) == kTypeMcontrol6; }

bool is_napot(uint64_t tdata1) { return (((tdata1 & MC6_MATCH) >> MC6_MATCH_SHIFT) & ~kMatchNegate) == 1; }

void update_filters(Hart& h) {
  State& s = h.csr.triggers;
  s.exec = s.memory = 0;
  for (unsigned n = 0; n < kCount; n++) {
    const uint64_t d = s.t[n].tdata1;
    if (!is_mcontrol6(xlen(h), d)) continue;
    if (d & MC6_EXECUTE) s.exec |= 1u << n;
    if (d & (MC6_LOAD | MC6_STORE)) s.memory |= 1u << n;
  }
}

// After software changed the selected trigger from `before`. While an execute trigger is armed, any
// configuration change may change where execute triggers fire (a chain bit, say): translations made
// for the old one must not run again. Hit bits are not configuration.
void changed(Hart& h, const Trigger& before) {
  static std::atomic<uint64_t> next_epoch{1};
  State& s = h.csr.triggers;
  const uint8_t exec_before = s.exec;
  update_filters(h);
  const Trigger& now = s.t[s.tselect];
  const bool configured = ((before.tdata1 ^ now.tdata1) & ~MC6_HIT0) || before.tdata2 != now.tdata2;
  if (configured && (exec_before | s.exec)) s.exec_epoch = next_epoch.fetch_add(1, std::memory_order_relaxed);
}

// Whether mcontrol6 `d` is enabled in the current mode, with the rule that keeps triggers of action 0
// from firing in a trap handler (Sdtrig.adoc, "Native Triggers", the first option): not in M-mode
// while mstatus.MIE is 0, nor in S-mode while sstatus.SIE is 0 if breakpoints are delegated. brisk
// has no tcontrol (the second option would hard-wire medeleg[3] to 0, which Linux's ebreak needs).
bool enabled_in_mode(const Hart& h, uint64_t d) {
  const bool virt = csr::virtual_mode(h);
  uint64_t bit = MC6_U;
  if (virt) bit = h.priv == Priv::U ? MC6_VU : MC6_VS;
  else if (h.priv == Priv::M) bit = MC6_M;
  else if (h.priv == Priv::S) bit = MC6_S;
  if (!(d & bit)) return false;
  if (h.priv == Priv::M) return h.csr.mstatus & csr::MSTATUS_MIE;
  // With H, VS-mode would look at hedeleg[3] and vsstatus.SIE as well.
  if (h.priv == Priv::S && ((h.csr.medeleg >> cause::kBreakpoint) & 1)) return h.csr.mstatus & csr::MSTATUS_SIE;
  return true;
}

// The access sizes mcontrol6.size names, in bytes (0: any size).
bool size_matches(uint64_t d, unsigned size) {
  static constexpr unsigned kBytes[] = {0, 1, 2, 4, 6, 8, 16};
  const unsigned code = (d & MC6_SIZE) >> MC6_SIZE_SHIFT;
  return code == 0 || kBytes[code] == size;
}

// mcontrol6.match against one compare value (tdata2 and v of XLEN bits). The masks take tdata2 as
// XLEN/2 bits of mask over XLEN/2 bits of value, for the low or high half of v.
bool value_matches(unsigned xlen, unsigned match, uint64_t tdata2, uint64_t v) {
  const unsigned half = xlen / 2;
  const uint64_t low = (1ull << half) - 1;
  switch (match) {
    case 0: return v == tdata2;
    case 1: {
      const uint64_t ignored = tdata2 ^ (tdata2 + 1);  // the low bits up to the lowest 0
      return ((v ^ tdata2) & ~ignored) == 0;
    }
    case 2: return v >= tdata2;
    case 3: return v < tdata2;
    case 4: return ((v & low) & (tdata2 >> half)) == (tdata2 & low);
    default: return ((v >> half) & (tdata2 >> half)) == (tdata2 & low);  // 5: mask high
  }
}

// Whether one of the compare values va .. va + n - 1 matches (not negated): at once for the
// ranges the equal, NAPOT, >= and < matches give, value by value for the masks. Addresses wrap at
// 2^XLEN.
bool any_matches(unsigned xlen, unsigned match, uint64_t tdata2, uint64_t va, unsigned n) {
  const uint64_t top = ~0ull >> (64 - xlen);
  const uint64_t last = (va + (n - 1)) & top;
  if (match >= 4 || last < va) {  // a mask, or an access wrapping past the top of the address space
    for (unsigned k = 0; k < n; k++)
      if (value_matches(xlen, match, tdata2, (va + k) & top)) return true;
    return false;
  }
  switch (match) {
    case 0: return tdata2 - va < n;
    case 1: {
      const uint64_t ignored = tdata2 ^ (tdata2 + 1);
      return va <= (tdata2 | ignored) && (tdata2 & ~ignored) <= last;
    }
    case 2: return last >= tdata2;
    default: return va < tdata2;  // 3
  }
}

// Whether trigger t matches an access of `size` bytes at va: its compare values are every byte's
// address (the spec's recommendation), for an execute the pc alone, and a negated match holds
// when the plain one holds for none of them.
bool matches(const Hart& h, const Trigger& t, uint8_t access, uint64_t va, unsigned bytes, unsigned size) {
  const uint64_t d = t.tdata1;
  if (!is_mcontrol6(xlen(h), d) || !(d & access) || !size_matches(d, size) || !enabled_in_mode(h, d)) return false;
  const unsigned match = (d & MC6_MATCH) >> MC6_MATCH_SHIFT;
  return any_matches(xlen(h), match & ~kMatchNegate, t.tdata2, va, bytes) != bool(match & kMatchNegate);
}

// The triggers that fire on an access (bit n: trigger n): each chain fires when all of its triggers
// match this same access, and then they all count as fired.
uint32_t firing(const Hart& h, uint8_t access, uint64_t va, unsigned bytes, unsigned size) {
  const State& s = h.csr.triggers;
  uint32_t fired = 0, chain = 0;
  bool chain_matches = true;
  for (unsigned n = 0; n < kCount; n++) {
    chain |= 1u << n;
    chain_matches = chain_matches && matches(h, s.t[n], access, va, bytes, size);
    if (s.t[n].tdata1 & MC6_CHAIN) continue;
    if (chain_matches) fired |= chain;
    chain = 0;
    chain_matches = true;
  }
  return fired;
}

// Sets hit = 1 ("before") on the triggers that fired, reports them and raises the breakpoint with
// tval = the access's address.
void fire(Hart& h, uint32_t fired, uint8_t access, uint64_t address) {
  State& s = h.csr.triggers;
  for (unsigned n = 0; n < kCount; n++)
    if ((fired >> n) & 1) s.t[n].tdata1 = (s.t[n].tdata1 & ~MC6_HIT1) | MC6_HIT0;
  if (s.observer.on_match) s.observer.on_match(s.observer.ctx, h, {h.pc, address, fired, access});
  h.raise(cause::kBreakpoint, address);
}

Trigger& selected(Hart& h) { return h.csr.triggers.t[h.csr.triggers.tselect]; }

// Without Sdtrig (--cpu ...,sdtrig=off) tselect and tdata1 read 0, "no trigger" (as brisk's CSRs
// were before it, and OpenSBI reads them), and the other trigger CSRs do not exist.
bool sdtrig(const Hart& h) { return h.csr.isa.has(Ext::Sdtrig); }
Status check_sdtrig(Hart& h, const Insn& i, bool) { return sdtrig(h) ? Status::Next : h.illegal(i); }

}  // namespace

void reset(Hart& h) {
  const Observer o = h.csr.triggers.observer;
  h.csr.triggers = State{};
  for (Trigger& t : h.csr.triggers.t) t.tdata1 = disabled(xlen(h));
  h.csr.triggers.observer = o;
}

uint32_t translation_key(const Hart& h) {
  const State& s = h.csr.triggers;
  uint32_t key = 0;
  for (unsigned n = 0; n < kCount; n++) {
    const uint64_t d = s.t[n].tdata1;
    if (!(((s.exec | s.memory) >> n) & 1) || !enabled_in_mode(h, d)) continue;
    if (d & MC6_EXECUTE) key |= kKeyExecute;
    if (d & (MC6_LOAD | MC6_STORE)) key |= kKeyMemory;
  }
  return key;
}

bool fires_on_execute(const Hart& h, uint64_t pc, unsigned len) {
  return h.csr.triggers.exec && firing(h, kExecute, pc, 1, len);
}

bool fire_execute(Hart& h, unsigned len) {
  if (!h.csr.triggers.exec) return false;
  const uint32_t fired = firing(h, kExecute, h.pc, 1, len);
  if (fired) fire(h, fired, kExecute, h.pc);
  return fired;
}

bool check_access(Hart& h, uint64_t va, unsigned size, uint8_t access) {
  const uint32_t fired = firing(h, access, va, size, size);
  if (!fired) return true;
  fire(h, fired, access, va);
  return false;
}

}  // namespace brisk::trigger

namespace brisk::csr {

void define_triggers(Table& t) {
  using trigger::sdtrig;
  using trigger::Trigger;
  t[CSR_TSELECT] = {[](Hart& h, uint16_t) { return sdtrig(h) ? h.csr.triggers.tselect : 0; },
                    [](Hart& h, uint16_t, uint64_t v) {
                      if (sdtrig(h) && v < trigger::kCount) h.csr.triggers.tselect = v;  // WARL: keeps its value
                    }};
  t[CSR_TDATA1] = {[](Hart& h, uint16_t) { return sdtrig(h) ? trigger::selected(h).tdata1 : 0; },
                   [](Hart& h, uint16_t, uint64_t v) {
                     if (!sdtrig(h)) return;
                     const Trigger before = trigger::selected(h);
                     trigger::selected(h).tdata1 =
                         trigger::legal_tdata1(trigger::xlen(h), static_cast<unsigned>(h.csr.triggers.tselect), v);
                     trigger::changed(h, before);
                   }};
  t[CSR_TDATA2] = {[](Hart& h, uint16_t) { return trigger::selected(h).tdata2; },
                   [](Hart& h, uint16_t, uint64_t v) {
                     const Trigger before = trigger::selected(h);
                     const unsigned maskmax = trigger::maskmax6(trigger::xlen(h));
                     const uint64_t low_ones = (1ull << maskmax) - 1;
                     if (trigger::is_napot(before.tdata1) && (v & low_ones) == low_ones) v &= ~(1ull << (maskmax - 1));
                     trigger::selected(h).tdata2 = v;
                     trigger::changed(h, before);
                   },
                   trigger::check_sdtrig};
  // tdata3 is textra64, none of whose conditions brisk implements: every field reads 0 (ignore).
  t[CSR_TDATA3] = {[](Hart&, uint16_t) -> uint64_t { return 0; }, [](Hart&, uint16_t, uint64_t) {}, trigger::check_sdtrig};
  t[CSR_TINFO] = {[](Hart&, uint16_t) { return trigger::kVersion1 | trigger::kInfo; }, [](Hart&, uint16_t, uint64_t) {},
                  trigger::check_sdtrig};
}

}  // namespace brisk::csr
