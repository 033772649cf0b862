// An Arm Embedded Trace Extension (ETE) trace unit for one RISC-V hart, behind a 4 KiB memory-mapped
// external debug window (docs/ete.md). The unit decides with ETE's resource logic (resource
// selectors, counters, sequencer, single-shot comparators, ViewInst) what to trace, from plain
// observations the hart side feeds it (ete::Retired and the EteUnit::on_* calls), and hands the
// trace elements to an ete::TraceSink (devices/ete_packets.h encodes them as ETE packets). It knows
// nothing of harts or the JIT.
#pragma once

#include <array>
#include <cstdint>

#include "devices/device.h"
#include "devices/ete_sizes.h"

namespace brisk {

namespace ete {

// External debug interface offsets (docs/ete.md has the whole map).
constexpr uint64_t TRCPRGCTLR = 0x004, TRCSTATR = 0x00c, TRCCONFIGR = 0x010, TRCAUXCTLR = 0x018,
                   TRCEVENTCTL0R = 0x020, TRCEVENTCTL1R = 0x024, TRCSTALLCTLR = 0x02c, TRCTSCTLR = 0x030,
                   TRCSYNCPR = 0x034, TRCCCCTLR = 0x038, TRCBBCTLR = 0x03c, TRCTRACEIDR = 0x040,
                   TRCVICTLR = 0x080, TRCVIIECTLR = 0x084, TRCVISSCTLR = 0x088, TRCVIPCSSCTLR = 0x08c,
                   TRCSEQEVR0 = 0x100, TRCSEQRSTEVR = 0x118, TRCSEQSTR = 0x11c, TRCEXTINSELR0 = 0x120,
                   TRCCNTRLDVR0 = 0x140, TRCCNTCTLR0 = 0x150, TRCCNTVR0 = 0x160, TRCIDR8 = 0x180,
                   TRCIDR13 = 0x194, TRCIDR0 = 0x1e0, TRCIDR7 = 0x1fc, TRCRSCTLR0 = 0x200,
                   TRCSSCCR0 = 0x280, TRCSSCSR0 = 0x2a0, TRCSSPCICR0 = 0x2c0, TRCOSLAR = 0x300,
                   TRCOSLSR = 0x304, TRCPDCR = 0x310, TRCPDSR = 0x314, TRCACVR0 = 0x400, TRCACATR0 = 0x480,
                   TRCCIDCVR0 = 0x600, TRCVMIDCVR0 = 0x640, TRCCIDCCTLR0 = 0x680, TRCCIDCCTLR1 = 0x684,
                   TRCVMIDCCTLR0 = 0x688, TRCVMIDCCTLR1 = 0x68c, TRCITCTRL = 0xf00, TRCCLAIMSET = 0xfa0,
                   TRCCLAIMCLR = 0xfa4, TRCDEVAFF = 0xfa8, TRCLAR = 0xfb0, TRCLSR = 0xfb4,
                   TRCAUTHSTATUS = 0xfb8, TRCDEVARCH = 0xfbc, TRCDEVID = 0xfc8, TRCDEVTYPE = 0xfcc,
                   TRCPIDR4 = 0xfd0, TRCPIDR0 = 0xfe0, TRCCIDR0 = 0xff0;
constexpr uint64_t kWindowSize = 0x1000;

// The 64-bit registers, which also take 8-byte accesses: TRCACVR, TRCACATR, TRCCIDCVR,
// TRCVMIDCVR and TRCDEVAFF.
constexpr bool is_64bit_register(uint64_t offset) {
  return (offset >= TRCACVR0 && offset < TRCACATR0 + 8 * 16) ||
         (offset >= TRCCIDCVR0 && offset < TRCVMIDCVR0 + 8 * 8) || offset == TRCDEVAFF;
}

// Field positions used by more than one file.
constexpr uint32_t PRGCTLR_EN = 1u << 0;
constexpr uint32_t STATR_IDLE = 1u << 0, STATR_PMSTABLE = 1u << 1;
constexpr uint32_t CONFIGR_BB = 1u << 3, CONFIGR_CCI = 1u << 4, CONFIGR_CID = 1u << 6, CONFIGR_VMID = 1u << 7, CONFIGR_TS = 1u << 11;
constexpr uint32_t VICTLR_SSSTATUS = 1u << 9;
constexpr uint32_t BBCTLR_MODE = 1u << 8;  // 1: include the selected ranges, 0: exclude them
constexpr unsigned VICTLR_EXLEVEL_S = 16, VICTLR_EXLEVEL_NS = 20;
constexpr uint32_t CNTCTLR_RLDSELF = 1u << 16, CNTCTLR_CNTCHAIN = 1u << 17;
constexpr uint32_t RSCTLR_INV = 1u << 20, RSCTLR_PAIRINV = 1u << 21;
constexpr uint32_t SSCCR_RST = 1u << 24;
constexpr uint32_t SSCSR_STATUS = 1u << 31, SSCSR_PENDING = 1u << 30;
constexpr uint32_t OSLSR_OSLK = 1u << 1;

// TRCRSCTLR.GROUP
enum class Group : uint8_t {
  ExternalInput = 0,
  PeComparator = 1,
  CounterSequencer = 2,
  SingleShot = 3,
  SingleAddress = 4,
  AddressRange = 5,
  ContextId = 6,
  Vmid = 7,
};

// The PE's exception level, as RISC-V privilege maps onto it: U = EL0, S = EL1, M = EL3 (HS = EL2
// once the H extension exists). M-mode is Secure (EL3 always is), U and S are Non-secure.
enum class El : uint8_t { EL0 = 0, EL1 = 1, EL2 = 2, EL3 = 3 };
constexpr bool secure(El el) { return el == El::EL3; }

// One retired instruction, as the hart side reports it. brisk's cycle model (one cycle per retired
// instruction, docs/architecture.md "Control transfer records") makes it one step of the resource
// logic.
struct Retired {
  enum Kind : uint8_t { Plain, Branch, IndirectBranch };  // Branch: direct (conditional or jal)
  uint64_t pc = 0;
  uint64_t next_pc = 0;         // the target when a branch is taken, else pc + length
  Kind kind = Plain;
  bool taken = false;
  uint32_t pmu_events = 0;      // bit e: PMU event e (csr/pmu.h) occurred with it (external inputs)
  uint8_t pe_comparators = 0;   // bit m: Sdtrig trigger m matched it (PE comparator inputs)
};

// The address comparators a configuration looks at, as a translation can see them from the pc
// alone (docs/ete.md, "The engine rule"): at(pc) has bit n when single address comparator n is at
// pc and bit 16 + r when pc is in range r ([TRCACVR<2r>, TRCACVR<2r+1>)), before TRCACATR's
// exception level and context conditions, for the comparators in `used` only.
struct AddressClasses {
  std::array<uint64_t, 16> acvr{};
  unsigned pairs = 0;
  uint32_t used = 0;
  uint32_t at(uint64_t pc) const;
  bool operator==(const AddressClasses&) const = default;
};

// What the unit traces, in stream order; devices/ete_packets.h turns it into packets.
struct TraceSink {
  virtual ~TraceSink() = default;
  // The unit was enabled (TRCPRGCTLR.EN 0 -> 1) with these TRCCONFIGR, TRCSYNCPR and TRCCCCTLR
  // values: the stream starts (A-Sync, Trace Info).
  virtual void start(uint32_t trcconfigr, uint32_t trcsyncpr, uint32_t trcccctlr) = 0;
  // ViewInst turned on at `pc` (Trace On, then the address and context).
  virtual void trace_on(uint64_t pc, El el, uint32_t context_id, uint32_t vmid) = 0;
  // A traced branch: an atom, and for a taken indirect branch the target address. `cycle`: the
  // branch's step since the unit was enabled, from 1 (brisk's cycles: one per instruction).
  // `broadcast`: TRCCONFIGR.BB is set and r.pc is in the branch broadcast region, so a taken
  // direct branch's target goes out too.
  virtual void branch(const Retired& r, uint64_t cycle, bool broadcast) = 0;
  // An exception or interrupt taken while traced: the RISC-V cause and the preferred return address.
  virtual void exception(uint64_t cause, bool interrupt, uint64_t epc, uint64_t handler, El el) = 0;
  // The context changed while traced.
  virtual void context(uint64_t pc, El el, uint32_t context_id, uint32_t vmid) = 0;
  // TRCEVENTCTL0R events that fired with TRCEVENTCTL1R.INSTEN set (bit n = EVENTn).
  virtual void event(unsigned events) = 0;
  // The TRCTSCTLR event fired with TRCCONFIGR.TS set: a timestamp.
  virtual void timestamp() = 0;
  // The unit was disabled: flush what is pending.
  virtual void stop() = 0;
};

}  // namespace ete

class EteUnit final : public Device {
 public:
  // `affinity`: the hart's number (TRCDEVAFF). `sink` may be null (no stream). The unit starts as
  // a cold reset leaves it: OS lock set, disabled, and 0 in the fields ETE leaves UNKNOWN.
  EteUnit(unsigned affinity, const ete::Sizes& sizes, ete::TraceSink* sink = nullptr)
      : affinity_(affinity), sizes_(sizes), sink_(sink) {}

  const char* name() const override { return "ete"; }
  // 4-byte accesses to every register, 8-byte to the 64-bit ones; anything else faults, as does any
  // trace register while the OS lock is set (docs/ete.md, "Access rules").
  bool read(uint64_t offset, unsigned size, uint64_t& value) override;
  bool write(uint64_t offset, unsigned size, uint64_t value) override;

  bool enabled() const { return prgctlr_ & ete::PRGCTLR_EN; }
  // A 32-bit register as the host sees it, whatever the OS lock (--trace's snapshot).
  uint32_t register_value(uint64_t offset) { return read32(offset); }

  // ---- Observations (docs/ete.md, "What the hart feeds"). Ignored while disabled.
  // A retired instruction: one step of the resource logic (counters, sequencer, single-shot,
  // ViewInst, events), and its atom when traced.
  void on_retired(const ete::Retired& r);
  // Quiet runs, for the hart side's fast path (docs/ete.md, "Quiet runs"): how many of the next
  // instructions, each like `like` to the resources (the same pc-dependent matches and inputs),
  // change nothing but counters that count down without reloading (at most `limit`); and
  // advance_quiet applies n <= quiet_steps(like, ...) of them at once, and quiet_branch traces
  // the atom of a branch among them, once advance_quiet went through it (tracing() does not
  // change during a quiet run).
  uint64_t quiet_steps(const ete::Retired& like, uint64_t limit) const;
  // Every instruction is alike to the resources the configuration uses: none selects an address,
  // PE comparator or external input, ViewInst has no ranges and no start or stop points, and no
  // single-shot control can fire (decided when the unit is enabled). Then the resource logic does
  // not depend on the instruction, and the hart side's fast path can run instructions without
  // looking at each (docs/ete.md, "The engine rule"):
  bool steps_alike() const { return alike_; }
  // The resource logic depends on an instruction only through its pc (steps_alike, or the
  // configuration selects no PE comparator or external input, decided when the unit is enabled):
  // instructions with the same address_classes().at(pc) are alike, and silent_steps and advance
  // take runs of them.
  bool steps_by_pc() const { return by_pc_; }
  const ete::AddressClasses& address_classes() const { return classes_; }
  // how many of the next instructions (at most `limit`), each like `like`, emit nothing but the
  // atoms of the branches among them: no Trace On, event or timestamp (0 unless steps_by_pc); and
  // advance applies n <= silent_steps(like, ...) of them, the hart side stepping the branches
  // among them with on_retired in between.
  uint64_t silent_steps(const ete::Retired& like, uint64_t limit) const;
  void advance(const ete::Retired& like, uint64_t n);
  void advance_quiet(const ete::Retired& like, uint64_t n);
  void quiet_branch(const ete::Retired& r) {
    if (enabled() && tracing_ && sink_)
      sink_->branch(r, cycles_, (configr_ & ete::CONFIGR_BB) && broadcast(matches(r.pc)));
  }
  // An exception or interrupt taken at `epc` (its preferred return address) to `handler` at `el`.
  void on_exception(uint64_t cause, bool interrupt, uint64_t epc, uint64_t handler, ete::El el);
  // The exception level or context changed (xRET, a satp.ASID or hgatp.VMID write).
  void on_context(uint64_t pc, ete::El el, uint32_t context_id, uint32_t vmid);

  // ---- The resource logic, exposed for tests and for the hart side's translation-time decisions.
  // Resource selector n (0 FALSE, 1 TRUE) for retired instruction r, in the current state.
  bool selector(unsigned n, const ete::Retired& r) const;
  // An 8-bit event field (TYPE bit 7, SEL 4:0) for r.
  bool event(uint32_t field, const ete::Retired& r) const;
  // Whether ViewInst traces r, without changing the start/stop state.
  bool view_inst(const ete::Retired& r) const;
  bool tracing() const { return tracing_; }

 private:
  struct Matches {
    uint16_t sac = 0;   // single address comparators
    uint8_t arc = 0;    // address range comparators
    uint8_t cid = 0, vmid = 0;
  };
  Matches matches(uint64_t pc) const;
  // The context ID or VMID comparators that match `id` under their byte masks.
  static uint8_t id_matches(uint32_t id, const std::array<uint64_t, 8>& comparators, uint32_t ctlr0,
                            uint32_t ctlr1, unsigned count);
  // TRCACATR<n>'s exception level and context conditions, given the context comparators' matches.
  bool comparator_context_ok(unsigned n, uint8_t cid, uint8_t vmid) const;
  bool group(unsigned n, const ete::Retired& r, const Matches& m) const;
  bool event_of(unsigned n, const ete::Retired& r, const Matches& m) const;  // selector n
  bool pair_of(unsigned p, const ete::Retired& r, const Matches& m) const;   // selector pair p
  bool event_field(uint32_t field, const ete::Retired& r, const Matches& m) const;
  uint8_t single_shot_fires(const ete::Retired& r, const Matches& m) const;
  bool el_traced() const;
  // Branch broadcasting for an instruction with these matches (TRCCONFIGR.BB, TRCBBCTLR).
  bool broadcast(const Matches& m) const;
  // ViewInst for r; `started` is the start/stop state after it.
  bool view_inst(const ete::Retired& r, const Matches& m, bool& started) const;
  // What one step for r would change.
  struct Step {
    std::array<uint32_t, 4> counters;
    uint8_t reloaded = 0, decremented = 0;  // bit i: counter i
    uint32_t seq = 0;
    uint8_t fires = 0;  // single-shot controls
    bool started = false, traced = false;
    unsigned events = 0;  // TRCEVENTCTL0R events with INSTEN
    bool timestamp = false;
  };
  Step plan(const ete::Retired& r, const Matches& m) const;
  Step plan(const ete::Retired& r) const;  // r's matches only when they are needed
  Step counted(const Step& known) const;   // a step looked up, with the counters as they stand
  unsigned alike_index() const;            // which counters are at zero, and the sequencer's state
  uint64_t planned_key(const ete::Retired& r) const;  // what planned_ is for
  Step evaluate(const ete::Retired& r, const Matches& m) const;  // plan, resource by resource
  // Under steps_alike a step depends on nothing but which counters are at zero and the sequencer's
  // state, for the exception level and context as they stand: plan looks its decisions up there,
  // evaluated once per (counters at zero, state) and generation.
  static constexpr unsigned kAlikeSteps = 64;  // 4 counters' zero bits, 2 bits of state
  // After a new exception level or context: a new generation if ViewInst's exception levels or the
  // context comparators' matches (before: `was_traced`, `was`) see it differently.
  void context_changed(bool was_traced, const Matches& was);
  void new_generation();
  bool accessible(uint64_t offset) const;
  uint32_t read32(uint64_t offset);
  void write32(uint64_t offset, uint32_t v);
  uint32_t idr(unsigned n) const;
  bool alike_now() const;  // steps_alike for the configuration as it stands
  bool by_pc_now() const;  // steps_by_pc
  uint32_t used_comparators() const;  // AddressClasses::used
  void match_context();    // context_matches_ for the context and configuration as they stand
  void set_enabled(bool on);

  const unsigned affinity_;
  const ete::Sizes sizes_;
  ete::TraceSink* sink_;

  bool oslock_ = true;
  bool stickypd_ = true;
  uint32_t claim_ = 0;
  uint32_t prgctlr_ = 0, configr_ = 0, eventctl0r_ = 0, eventctl1r_ = 0, tsctlr_ = 0, syncpr_ = 0,
           ccctlr_ = 0, traceidr_ = 0, victlr_ = 0, viiectlr_ = 0, vissctlr_ = 0,
           vipcssctlr_ = 0, seqrstevr_ = 0, seqstr_ = 0, bbctlr_ = 0;
  std::array<uint32_t, 3> seqevr_{};
  std::array<uint32_t, 4> extinselr_{}, cntrldvr_{}, cntctlr_{}, cntvr_{};
  std::array<uint32_t, 32> rsctlr_{};
  std::array<uint32_t, 8> ssccr_{}, sscsr_{}, sspcicr_{};
  std::array<uint64_t, 16> acvr_{}, acatr_{};
  std::array<uint64_t, 8> cidcvr_{}, vmidcvr_{};
  uint32_t cidcctlr0_ = 0, cidcctlr1_ = 0, vmidcctlr0_ = 0, vmidcctlr1_ = 0;

  // The PE state the observations left.
  ete::El el_ = ete::El::EL3;
  uint32_t context_id_ = 0, vmid_ = 0;
  bool tracing_ = false;  // ViewInst traced the last instruction
  bool alike_ = false;    // steps_alike
  bool by_pc_ = false;    // steps_by_pc
  ete::AddressClasses classes_;  // while enabled
  Matches context_matches_;  // the context ID and VMID comparators' (cid, vmid), while enabled
  uint64_t cycles_ = 0;   // steps since the unit was enabled
  // Changes when the steps ahead may no longer be what they were: the unit was enabled, or a new
  // exception level or context changed what the resources see (ViewInst's exception levels, the
  // context comparators). Within one, silent_steps goes on from where its last look ended.
  uint64_t generation_ = 0;
  mutable std::array<Step, kAlikeSteps> alike_steps_;
  // Under steps_by_pc but not alike, the step plan evaluated last, for its generation and key.
  struct Planned {
    uint64_t generation = ~0ull, key = 0;
    Step step;
  };
  mutable Planned planned_;
  mutable uint64_t alike_known_ = 0;  // bit i: alike_steps_[i] is evaluated for this generation
  // How far silent_steps has looked in generation `generation`: the steps up to cycle `until`
  // are silent, and the state after them is `counters`, `seq` and `tracing`; `stopped`: the step
  // after them is not.
  struct Lookahead {
    uint64_t generation = ~0ull, until = 0;
    uint32_t at = 0;  // the address class of the instructions it looked at (steps_by_pc)
    std::array<uint32_t, 4> counters{};
    uint32_t seq = 0;
    bool tracing = false, stopped = false;
  };
  mutable Lookahead ahead_;
};

}  // namespace brisk
