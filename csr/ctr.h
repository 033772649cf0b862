// Smctr/Ssctr, Control Transfer Records: the CSR fields, the buffer state, and the one recording
// point every engine uses (docs/architecture.md, "Control transfer records").
//
// The buffer is kept architecturally, entry by entry, so that every read is exact; the lockstep
// checker compares the whole State between engines. Translated code records into a host-side Ring
// of compact records instead, which sync_ring() turns into entries, through record()'s rules, before
// anything reads or changes the buffer (every function below does it first). Under RASEMU, whose
// pops reach entries of any age, translated code stores into the buffer itself, with WRPTR
// (wrptr_off) and cycle_base in host registers (jit/x64/translator.h). Which transfers qualify is
// decided from record_mask(), which is part of the translation key: with CTR inactive nothing is
// emitted.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "jit/transfer.h"

namespace brisk {
struct Hart;
struct Insn;
enum class Status : uint32_t;
}  // namespace brisk

namespace brisk::ctr {

// mctrctl / sctrctl / vsctrctl (smctr.adoc, "Machine Control Transfer Records Control Register")
constexpr uint64_t CTRCTL_U = 1ull << 0;
constexpr uint64_t CTRCTL_S = 1ull << 1;
constexpr uint64_t CTRCTL_M = 1ull << 2;
constexpr uint64_t CTRCTL_RASEMU = 1ull << 7;
constexpr uint64_t CTRCTL_STE = 1ull << 8;
constexpr uint64_t CTRCTL_MTE = 1ull << 9;
constexpr uint64_t CTRCTL_BPFRZ = 1ull << 11;
constexpr uint64_t CTRCTL_LCOFIFRZ = 1ull << 12;
// Transfer type filter: bit 32 + TYPE inhibits TYPE, except NTBREN (TYPE 4), which enables it.
constexpr unsigned CTRCTL_TYPE_SHIFT = 32;
constexpr uint64_t CTRCTL_EXCINH = 1ull << 33;
constexpr uint64_t CTRCTL_INTRINH = 1ull << 34;
constexpr uint64_t CTRCTL_TRETINH = 1ull << 35;
constexpr uint64_t CTRCTL_NTBREN = 1ull << 36;
constexpr uint64_t CTRCTL_TKBRINH = 1ull << 37;
constexpr uint64_t CTRCTL_INDCALLINH = 1ull << 40;
constexpr uint64_t CTRCTL_DIRCALLINH = 1ull << 41;
constexpr uint64_t CTRCTL_INDJMPINH = 1ull << 42;
constexpr uint64_t CTRCTL_DIRJMPINH = 1ull << 43;
constexpr uint64_t CTRCTL_CORSWAPINH = 1ull << 44;
constexpr uint64_t CTRCTL_RETINH = 1ull << 45;
constexpr uint64_t CTRCTL_INDLJMPINH = 1ull << 46;
constexpr uint64_t CTRCTL_DIRLJMPINH = 1ull << 47;
// The transfer types the filter bits (and record_mask) cover: 1..5 and 8..15; 0, 6 and 7 are not
// types CTR records.
constexpr uint64_t kFilterTypes = 0xff3e;
// The writable bits of mctrctl (brisk implements every optional field; Custom[3:0] is read-only 0),
// and those sctrctl and vsctrctl reach (M and MTE are read-only 0 there).
constexpr uint64_t MCTRCTL_MASK = CTRCTL_U | CTRCTL_S | CTRCTL_M | CTRCTL_RASEMU | CTRCTL_STE | CTRCTL_MTE |
                                  CTRCTL_BPFRZ | CTRCTL_LCOFIFRZ | (kFilterTypes << CTRCTL_TYPE_SHIFT);
constexpr uint64_t SCTRCTL_MASK = MCTRCTL_MASK & ~(CTRCTL_M | CTRCTL_MTE);

// sctrdepth: DEPTH[2:0], depth = 16 << DEPTH (0..4; 5..7 reserved).
constexpr uint64_t SCTRDEPTH_DEPTH = 7;
// sctrstatus
constexpr uint64_t SCTRSTATUS_WRPTR = 0xff;
constexpr uint64_t SCTRSTATUS_FROZEN = 1ull << 31;
// ctrsource, ctrtarget, ctrdata
constexpr uint64_t CTRSOURCE_V = 1;
constexpr uint64_t CTRTARGET_MISP = 1;
constexpr uint64_t CTRDATA_TYPE = 0xf;
constexpr uint64_t CTRDATA_CCV = 1ull << 15;
constexpr unsigned CTRDATA_CC_SHIFT = 16;
constexpr uint64_t CTRDATA_CC = 0xffffull << CTRDATA_CC_SHIFT;

constexpr unsigned kMaxDepth = 256;
constexpr unsigned kDepthCodes = 5;  // DEPTH 0..4: 16 .. 256 entries
// siselect values of logical entries 0..255.
constexpr uint64_t kEntrySelectFirst = 0x200, kEntrySelectLast = 0x2ff;
// SCTRCLR: SYSTEM, func12 0x104.
constexpr uint32_t kSctrclrRaw = 0x10400073;

// The largest CtrCycleCounter value CC can express (4 exponent bits): 134201344.
constexpr uint64_t kMaxCycles = ((1ull << 12) + 0xfff) << 14;
// CC (CCE << 12 | CCM) of an elapsed-cycle count: CCE = 0 below 4096, else msb - 11, and CCM the
// 12 bits below the most significant one; saturates at all ones.
constexpr uint64_t encode_cycles(uint64_t n) {
  if (n < 4096) return n;
  if (n >= kMaxCycles) return 0xffff;
  const unsigned msb = 63 - static_cast<unsigned>(__builtin_clzll(n));
  const unsigned cce = msb - 11;
  return uint64_t(cce) << 12 | ((n >> (cce - 1)) & 0xfff);
}
// The inverse, as software computes it.
constexpr uint64_t decode_cycles(uint64_t cc) {
  const uint64_t cce = cc >> 12, ccm = cc & 0xfff;
  return cce == 0 ? ccm : ((1ull << 12) + ccm) << (cce - 1);
}

// One physical entry. `cycles` is the CtrCycleCounter value when the transfer was recorded, with bit
// 63 set when it is valid (CCV): ctrdata's CCV and CC are derived from it on read, so that recording
// is a subtraction and a store, and a zeroed entry reads as zero. A software write of ctrdata sets
// `cycles` so that it reads back the CC and CCV written.
// source and type come first: under RASEMU translated code knows both when it translates a
// transfer, and stores them as one 16-byte constant.
struct Entry {
  uint64_t source = 0;  // ctrsource: PC | V
  uint64_t type = 0;    // ctrdata.TYPE
  uint64_t target = 0;  // ctrtarget: PC | MISP
  uint64_t cycles = 0;
};
constexpr uint64_t kCyclesValid = 1ull << 63;

struct State {
  uint64_t mctrctl = 0;   // sctrctl is a view of it
  uint64_t vsctrctl = 0;  // V=1 (no H yet: written and read only through forced-V unit tests)
  uint64_t depth_code = 4;     // sctrdepth.DEPTH
  // WRPTR as a byte offset into entries (WRPTR * sizeof(Entry)), and the mask that wraps it at the
  // depth ((depth - 1) * sizeof(Entry) | (sizeof(Entry) - 1)): translated code bumps it with an add
  // and an and.
  uint64_t wrptr_off = 0;
  uint64_t wrptr_mask = (kMaxDepth - 1) * sizeof(Entry) | (sizeof(Entry) - 1);
  bool frozen = false;    // sctrstatus.FROZEN
  // The CtrCycleCounter, with bit 63 as the CCV the next record gets (clear from a reset, an xctrctl
  // write or SCTRCLR, until the next record): while CTR is active it is Hart::instret - cycle_base
  // (brisk's cycle model: one cycle per retired instruction); while inactive, cycle_base holds it.
  uint64_t cycle_base = 0;
  bool active = false;    // what cycle_base means now (see sync_activity)
  // Depths (bit DEPTH) sctrdepth accepts: --cpu rv64,ctr-depths=16,32,... (all five by default).
  uint8_t depths = 0x1f;
  Entry entries[kMaxDepth];
};

// What translated code knows of a transfer it records, at translation time: the source pc, the type,
// the target unless `indirect`, and how far instret is past the host register that holds it (r15)
// once the transfer retired; with `shares_instret`, r15 is that of the record before (in the same
// block, with no C++ run in between), and its slot does not hold it.
struct Site {
  uint64_t source = 0;
  uint64_t target = 0;
  TransferType type{};
  bool indirect = false;
  bool shares_instret = false;
  uint32_t instret_offset = 0;
  auto key() const { return std::tuple(source, target, type, indirect, shares_instret, instret_offset); }
};

// The sites of a code cache, each once, numbered in order from 1. Invalidated code leaves them in
// place, as records of any hart that ran it may still name them until sync_ring; the owner clears
// the table when no code and no unsynced record can name a site.
class SiteTable {
 public:
  // Numbers fit a Ring site word, which translated code builds with a signed 32-bit displacement.
  static constexpr uint32_t kMaxSites = (1u << 29) - 1;
  uint32_t intern(const Site& s);
  void clear();
  size_t size() const { return sites_.size() - 1; }
  const Site& operator[](uint32_t n) const { return sites_[n]; }

 private:
  std::vector<Site> sites_ = std::vector<Site>(1);  // number 0 is no site
  std::map<decltype(Site{}.key()), uint32_t> index_;
};

// The records translated code made and sync_ring has not yet pushed into the buffer, oldest first,
// from slot `synced` to the slot before `next`, wrapping at kSlots. A record is the value of r15 when
// it was made (instret less its site's instret_offset) unless its site shares_instret, a site word: its site's number in `sites`
// shifted left by two, with, for a conditional branch, the gshare counter its prediction came from
// (csr/pmu.h) in bits 1:0; and, for indirect sites, its target. Translated code only
// bumps `next` with a wrap, so sync_ring leaves a site word of 0 in the slot before `synced`: while
// it stays, fewer than kSlots records were made. Only the last depth() records become entries, and
// the one before them gives the first its cycle count, and those of their block before them their
// r15: kSlots exceeds kMaxDepth with room for a block's records (jit/block_plan.h).
struct Ring {
  static constexpr unsigned kSlots = 2 * kMaxDepth;
  uint64_t next = 0;    // translated code keeps it in a host register
  uint64_t synced = 0;
  const SiteTable* sites = nullptr;  // the table of the engine that runs the hart
  uint64_t instret[kSlots] = {};
  uint32_t site[kSlots] = {};
  uint64_t target[kSlots] = {};
};

// Pushes the ring's records into the buffer, as record() would have, in order. While the hart has a
// trace unit's fast path recording every transfer (Hart::record_transfers), its RetireObserver takes
// the records instead, and pushes those of the types CTR records with push_record.
void sync_ring(Hart& h);
// Pushes the ring's record in slot s, of site t, retired at instret `now`, into the buffer.
void push_record(Hart& h, unsigned s, const Site& t, uint64_t now);
// What sync_ring and the trace unit's fast path read of the ring: how many records are unsynced (at
// least kSlots when the ring went all the way round), the instret after the transfer in slot s
// retired, and the ring synced once they are taken.
uint64_t unsynced(const Ring& r);
void mark_synced(Ring& r);
// The unsynced records first .. n - 1 (n at most kSlots), oldest first: f(slot, site, instret once
// the transfer retired).
template <typename F>
void for_each_record(const Ring& r, uint64_t first, uint64_t n, F f) {
  constexpr uint64_t wrap = Ring::kSlots - 1;
  auto site = [&](uint64_t s) -> const Site& { return (*r.sites)[r.site[s] >> 2]; };
  // r15 of a record: its own, or that of the one before it in its block that stored it, never
  // before `synced` (C++ ran there).
  uint64_t s = (r.synced + first) & wrap;
  while (site(s).shares_instret) s = (s - 1) & wrap;
  uint64_t r15 = r.instret[s];
  for (uint64_t k = first; k < n; k++) {
    s = (r.synced + k) & wrap;
    const Site& t = site(s);
    if (!t.shares_instret) r15 = r.instret[s];
    f(static_cast<unsigned>(s), t, r15 + t.instret_offset);
  }
}

// Bits of record_mask(): bit TYPE for each transfer type the current mode records, and kRasEmu when
// RASEMU is set (then only calls, returns and co-routine swaps, with their stack rules). Zero when
// CTR is inactive: the mode is not enabled, CTR is frozen, or the hart lacks Smctr.
constexpr uint32_t kRasEmu = 1u << 16;
uint32_t record_mask(const Hart& h);
// The same for privilege `priv` with V = `virt` (the V=1 rules, which brisk cannot reach without H).
uint32_t record_mask(const Hart& h, unsigned priv, bool virt);

// The one recording point for retired branches and jumps (the interpreter calls it; sync_ring pushes
// translated code's records through the same rules, and under RASEMU translated code inlines it): a transfer of `type` from `source` to `target` that record_mask(h) has
// qualified, after the instruction retired (Hart::instret counts it). Without RASEMU: the entry at
// WRPTR gets {source | V, target | MISP, type, CtrCycleCounter}, WRPTR advances, and the counter
// restarts from zero with CCV valid. With RASEMU a call does the same, a return pops (WRPTR goes back
// and that entry's V clears), and a co-routine swap rewrites logical entry 0 in place.
void record(Hart& h, uint64_t source, uint64_t target, TransferType type, bool misp);

// Trap entry and trap return, from csr/trap.cpp after the mode changed, with the privilege (and V)
// before and after: partial records, external traps (STE/MTE), EXCINH/INTRINH/TRETINH and the
// BPFRZ/LCOFIFRZ freezes. `mcause` is mcause's value (bit 63 for interrupts), `epc` the trapping pc,
// `handler` the pc the trap goes to; for xRET, `source` is the xRET's pc and `target` the pc it
// returns to. A trap's record counts the cycles before the trapping instruction (which did not
// retire), an xRET's those up to and including itself. Both call sync_activity.
void on_trap(Hart& h, unsigned from_priv, bool from_virt, unsigned to_priv, bool to_virt, uint64_t mcause,
             uint64_t epc, uint64_t handler);
void on_trap_return(Hart& h, unsigned from_priv, bool from_virt, unsigned to_priv, bool to_virt, uint64_t source,
                    uint64_t target);

// Re-derives `active` after anything that may change it (privilege, FROZEN, xctrctl), converting
// cycle_base between its two meanings so that only active cycles count.
void sync_activity(Hart& h);
// CtrCycleCounter = 0 with CCV clear: on xctrctl writes and SCTRCLR.
void reset_cycles(Hart& h);
// CtrCycleCounter without CCV: the active cycles since the last record (after sync_ring).
uint64_t cycles_since_record(const Hart& h);
// CTR is active: the current mode is enabled for recording and CTR is not frozen.
bool is_active(const Hart& h);
// Hart::instret is about to be set from `from` to `to` (a new thread's hart starts at 0): the cycle
// counter keeps its value.
inline void move_instret(State& c, uint64_t from, uint64_t to) {
  if (c.active) c.cycle_base += to - from;
}

// The CTR CSRs (mctrctl, sctrctl, vsctrctl, sctrdepth, sctrstatus) and the siselect 0x200..0x2FF
// window; SCTRCLR's semantics.
unsigned depth(const State& c);
// The state at reset (everything zero) at the largest depth of State::depths.
void reset(Hart& h);
// sctrdepth.DEPTH = code (a supported one): WRPTR keeps only the bits below the new depth.
void set_depth(Hart& h, unsigned code);
// A write of v to mctrctl (or to vsctrctl when virt): the writable bits, a cycle counter reset, and
// the activity and translation key that may change with it.
void write_ctrctl(Hart& h, uint64_t v, bool virt);
// sctrctl as read and written with V = virt: a view of mctrctl without M and MTE, or vsctrctl.
uint64_t sctrctl(const Hart& h, bool virt);
void write_sctrctl(Hart& h, uint64_t v, bool virt);
// sctrstatus: WRPTR and FROZEN.
uint64_t sctrstatus(Hart& h);
void write_sctrstatus(Hart& h, uint64_t v);
// The physical entry that holds logical entry n (0 = youngest), for n below the depth.
// (After sync_ring: the buffer as it stands.)
inline Entry& physical_entry(State& c, unsigned n) {
  const unsigned wrptr = static_cast<unsigned>(c.wrptr_off / sizeof(Entry));
  return c.entries[(wrptr - n - 1) & ((16u << c.depth_code) - 1)];
}
inline const Entry& physical_entry(const State& c, unsigned n) { return physical_entry(const_cast<State&>(c), n); }
// The cycle count software decodes from an entry's CC (0 when CCV is clear): CC keeps 12 bits.
inline uint64_t recorded_cycles(const Entry& e) {
  return e.cycles & kCyclesValid ? decode_cycles(encode_cycles(e.cycles & ~kCyclesValid)) : 0;
}
// Logical entry n (0 = youngest) as ctrsource, ctrtarget and ctrdata read; all zero at or past the depth.
struct Record {
  uint64_t source, target, data;
};
Record logical_entry(Hart& h, unsigned n);
// SCTRCLR executed with V = virt.
Status sctrclr(Hart& h, const Insn& i, bool virt);
// What SCTRCLR does once its checks pass: every entry zeroed, the cycle counter reset.
void clear(Hart& h);

}  // namespace brisk::ctr
