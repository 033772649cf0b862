// Sdtrig, the trigger module (docs/architecture.md, "Triggers"): tselect, tdata1-3 and tinfo over
// kCount mcontrol6 triggers that match execute, load and store addresses and raise breakpoint
// exceptions (action 0). The CSRs are defined in csr/trigger.cpp; every engine asks the functions
// below, so that the interpreter, translated code and the lockstep checker agree.
#pragma once

#include <cstdint>

namespace brisk {
struct Hart;
}

namespace brisk::trigger {

constexpr unsigned kCount = 4;

// tdata1 as mcontrol6 (hwbp_registers.xml, "Match Control Type 6"): type is the top four bits of
// the hart's XLEN (63:60 or 31:28) and dmode the bit below; the other fields are at the same bits
// on both XLENs. tdata1 and tdata2 hold XLEN bits.
constexpr unsigned type_shift(unsigned xlen) { return xlen - 4; }
constexpr uint64_t kTypeMcontrol6 = 6, kTypeDisabled = 15;
constexpr uint64_t disabled(unsigned xlen) { return kTypeDisabled << type_shift(xlen); }  // tdata1 after writing 0
constexpr uint64_t MC6_HIT1 = 1ull << 25;
constexpr uint64_t MC6_VS = 1ull << 24;
constexpr uint64_t MC6_VU = 1ull << 23;
constexpr uint64_t MC6_HIT0 = 1ull << 22;
constexpr uint64_t MC6_SELECT = 1ull << 21;
constexpr unsigned MC6_SIZE_SHIFT = 16;
constexpr uint64_t MC6_SIZE = 7ull << MC6_SIZE_SHIFT;
constexpr unsigned MC6_ACTION_SHIFT = 12;
constexpr uint64_t MC6_ACTION = 0xfull << MC6_ACTION_SHIFT;
constexpr uint64_t MC6_CHAIN = 1ull << 11;
constexpr unsigned MC6_MATCH_SHIFT = 7;
constexpr uint64_t MC6_MATCH = 0xfull << MC6_MATCH_SHIFT;
constexpr uint64_t MC6_M = 1ull << 6;
constexpr uint64_t MC6_S = 1ull << 4;
constexpr uint64_t MC6_U = 1ull << 3;
constexpr uint64_t MC6_EXECUTE = 1ull << 2;
constexpr uint64_t MC6_STORE = 1ull << 1;
constexpr uint64_t MC6_LOAD = 1ull << 0;

// What an access is, as the mcontrol6 bits that watch it (an AMO is both a load and a store).
enum Access : uint8_t { kLoad = MC6_LOAD, kStore = MC6_STORE, kExecute = MC6_EXECUTE };

// Triggers that fired, as an observer sees them: the ETE trace unit's PE comparator inputs.
struct Match {
  uint64_t pc;        // the instruction they fired on (its breakpoint's xepc)
  uint64_t address;   // the compare value's access: pc for an execute, the lowest byte for a load or store
  uint32_t triggers;  // bit n: trigger n matched (every trigger of each chain that fired)
  uint8_t access;     // Access bits of the access
};

// Called as triggers fire, before the breakpoint exception is taken (the lockstep checker's
// interpreter copy has none, so each firing is reported once).
struct Observer {
  void (*on_match)(void* ctx, const Hart& h, const Match& m) = nullptr;
  void* ctx = nullptr;
};

struct Trigger {
  uint64_t tdata1 = disabled(64);  // until reset lays it out for the hart's XLEN
  uint64_t tdata2 = 0;
};

struct State {
  Trigger t[kCount];
  uint64_t tselect = 0;
  // Bit n: trigger n is an mcontrol6 with execute set (exec), or with load or store set (memory), in
  // any mode. Zero when nothing is armed, which is all the hot paths look at.
  uint8_t exec = 0, memory = 0;
  // The number of the execute configuration, unique across harts: every configuration write while
  // an execute trigger is armed takes a new one. Translations made while an execute trigger may
  // fire are valid for that number only (JitEngine::block_for).
  uint64_t exec_epoch = 0;
  Observer observer;
};

// Every trigger disabled, laid out for the hart's XLEN (csr::set_isa and csr::reset call it).
void reset(Hart& h);

// Bits of the translation key (JitEngine::mode_key): an execute trigger, or a load or store
// trigger, may fire in the current mode.
constexpr uint32_t kKeyExecute = 1, kKeyMemory = 2;
uint32_t translation_key(const Hart& h);

// Whether triggers fire before the instruction at pc of len bytes runs, without side effects: what
// a block plan decides by.
bool fires_on_execute(const Hart& h, uint64_t pc, unsigned len);

// Before the instruction at h.pc of len bytes runs (len 0: its fetch raised h.trap, and only
// triggers of any size can match): if execute triggers fire, sets their hit bits, reports them,
// raises the breakpoint (in place of the fetch's fault, which has lower priority) and returns true.
bool fire_execute(Hart& h, unsigned len);

// Before a load or store of size bytes at va, ahead of its misaligned and page-fault checks: false
// after raising the breakpoint of the triggers that fired.
bool check_access(Hart& h, uint64_t va, unsigned size, uint8_t access);

}  // namespace brisk::trigger
