// Programming the ETE trace unit from the host (devices/ete_config.h): register files and Linux's
// AutoFDO strobing, run through the unit's resource logic.
#include "devices/ete_config.h"
#include "devices/ete_packets.h"

#include <gtest/gtest.h>

#include <vector>

#include "runtime/error.h"
#include "runtime/ete_trace.h"

namespace brisk::ete {
namespace {

TEST(EteConfig, RegisterNames) {
  EXPECT_EQ(register_offset("TRCCONFIGR"), 0x010);
  EXPECT_EQ(register_offset("TRCBBCTLR"), 0x03c);
  EXPECT_EQ(register_offset("TRCEVENTCTL1R"), 0x024);
  EXPECT_EQ(register_offset("TRCRSCTLR2"), 0x208);
  EXPECT_EQ(register_offset("TRCRSCTLR31"), 0x27c);
  EXPECT_EQ(register_offset("TRCACVR15"), 0x478);
  EXPECT_EQ(register_offset("TRCVMIDCCTLR1"), 0x68c);
  EXPECT_EQ(register_offset("TRCSEQEVR2"), 0x108);
  for (const char* bad : {"TRCRSCTLR1", "TRCRSCTLR32", "TRCSEQEVR3", "TRCPRGCTLR", "TRCIDR0", "TRCACVR", "trcconfigr"})
    EXPECT_EQ(register_offset(bad), -1) << bad;
}

TEST(EteConfig, ParseConfig) {
  const auto w = parse_config("# ViewInst everywhere\n TRCVICTLR = 0x201\n\nTRCACVR3=0xffffffff80001000 # a range\n"
                              "TRCCNTRLDVR0 = 100\n",
                              "cfg");
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].offset, TRCVICTLR);
  EXPECT_EQ(w[0].value, 0x201u);
  EXPECT_EQ(w[1].offset, TRCACVR0 + 24);
  EXPECT_EQ(w[1].value, 0xffffffff80001000u);
  EXPECT_EQ(w[2].value, 100u);
  auto message = [](const char* text) {
    try {
      parse_config(text, "cfg");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("TRCVICTLR = 1\nTRCFOO = 1\n"), "cfg:2: 'TRCFOO' is no programmable ETE register");
  EXPECT_EQ(message("TRCVICTLR 1\n"), "cfg:1: 'TRCVICTLR 1' is not NAME = VALUE");
  EXPECT_EQ(message("TRCVICTLR = 0x100000000\n"), "cfg:1: TRCVICTLR = '0x100000000' is not a 32-bit number");
  EXPECT_EQ(message("TRCACVR0 = 12z\n"), "cfg:1: TRCACVR0 = '12z' is not a 64-bit number");
  EXPECT_THROW(autofdo_config(0, 10), Error);
  EXPECT_THROW(autofdo_config(10, 0x10000), Error);
}

TEST(EteConfig, ProgramWritesInLinuxOrderAndEnables) {
  EteUnit unit(0, Sizes{});
  program(unit, parse_config("TRCCONFIGR = 0x40\nTRCACVR1 = 0x123456789\n", "cfg"));
  EXPECT_TRUE(unit.enabled());
  EXPECT_EQ(unit.register_value(TRCCONFIGR), 0x40u);
  EXPECT_EQ(unit.register_value(TRCACVR0 + 8), 0x23456789u);
  EXPECT_EQ(unit.register_value(TRCACVR0 + 12), 0x1u);
  EXPECT_EQ(unit.register_value(TRCOSLSR), 0x8u);  // unlocked
}

// Window W, period P: counter 0 counts W..0 and reloads (W + 1 cycles), counter 1 counts those
// down from P, and trace is on while counter 1 is zero: W + 1 of every (W + 1) x (P + 1) cycles.
TEST(EteConfig, AutofdoStrobing) {
  EteUnit unit(0, Sizes{});
  program(unit, autofdo_config(4, 3));
  std::vector<int> traced;
  for (int t = 1; t <= 100; t++) {
    Retired r;
    r.pc = 0x80000000 + 4 * t;
    r.next_pc = r.pc + 4;
    unit.on_retired(r);
    if (unit.tracing()) traced.push_back(t);
  }
  const std::vector<int> expect = {16, 17, 18, 19, 20, 36, 37, 38, 39, 40, 56, 57, 58,
                                   59, 60, 76, 77, 78, 79, 80, 96, 97, 98, 99, 100};
  EXPECT_EQ(traced, expect);
  EXPECT_EQ(unit.register_value(TRCSEQSTR), 1u);  // SEQEVR0.F fired at the first window's end
}


// Step t of a run: a branch every 7 instructions, taken every other time.
Retired branchy_step(uint64_t t) {
  Retired r;
  r.pc = 0x80000000 + 4 * (t % 64);
  r.next_pc = r.pc + 4;
  if (t % 7 == 6) {
    r.kind = Retired::Branch;
    r.taken = t % 14 == 6;
  }
  return r;
}

// Two units programmed alike: `ref` is stepped through every instruction, `fast` takes the
// shortcuts under test. With `evaluated`, ref's configuration also has a resource selector that
// nothing uses look at an address range, so that its steps are not alike (EteUnit::steps_alike)
// and it evaluates every resource at every step, as fast does not.
struct UnitPair {
  PacketEncoder ref_stream, fast_stream;
  EteUnit ref{0, Sizes{}, &ref_stream}, fast{0, Sizes{}, &fast_stream};
  explicit UnitPair(const std::vector<RegisterWrite>& config, bool evaluated = false) {
    std::vector<RegisterWrite> ref_config = config;
    if (evaluated) ref_config.push_back({TRCRSCTLR0 + 4 * 31, 0x50001});
    program(ref, ref_config);
    program(fast, config);
  }
};

// Quiet runs (EteUnit::quiet_steps, advance_quiet) leave the unit exactly as stepping through
// each instruction does, and its stream too, under AutoFDO strobing and under a configuration
// with chained counters, the sequencer and an address range.
TEST(EteQuiet, QuietRunsMatchStepByStep) {
  const std::vector<RegisterWrite> configs[] = {
      autofdo_config(7, 3),
      parse_config("TRCACVR0 = 0x80000000\nTRCACVR1 = 0x80000100\n"
                   "TRCRSCTLR2 = 0x20001\nTRCRSCTLR3 = 0x50001\nTRCRSCTLR4 = 0x20040\n"
                   "TRCCNTRLDVR0 = 5\nTRCCNTVR0 = 9\nTRCCNTCTLR0 = 0x10003\n"  // count in range 0, RLDSELF
                   "TRCCNTRLDVR1 = 2\nTRCCNTVR1 = 2\nTRCCNTCTLR1 = 0x20000\n"  // CNTCHAIN
                   "TRCSEQEVR0 = 0x02\nTRCSEQEVR1 = 0x02\nTRCSEQRSTEVR = 0x04\n"
                   "TRCVICTLR = 0x203\nTRCCONFIGR = 0x10\nTRCCCCTLR = 4\n",  // with cycle counts
                   "test"),
  };
  for (const auto& config : configs) {
    UnitPair pair(config);
    EteUnit &ref = pair.ref, &fast = pair.fast;
    uint64_t shortcuts = 0, quiet_branches = 0, t = 0;
    while (t < 2000) {
      Retired r;
      // Runs of plain instructions inside and outside range 0, and a branch every 50.
      r.pc = (t / 300) % 2 ? 0x80000400 : 0x80000010;
      r.next_pc = r.pc + 4;
      if (t % 50 == 49) {  // a branch: inside a quiet run when it is one
        r.kind = Retired::Branch;
        r.taken = true;
        ref.on_retired(r);
        if (fast.quiet_steps(r, 1) == 1) {
          fast.advance_quiet(r, 1);
          fast.quiet_branch(r);
          quiet_branches++;
        } else {
          fast.on_retired(r);
        }
        t++;
        continue;
      }
      const uint64_t q = fast.quiet_steps(r, 49 - t % 50);
      if (q == 0) {
        ref.on_retired(r);
        fast.on_retired(r);
        t++;
        continue;
      }
      shortcuts += q > 1;
      fast.advance_quiet(r, q);
      for (uint64_t i = 0; i < q; i++) ref.on_retired(r);
      t += q;
      for (uint64_t off : {TRCCNTVR0, TRCCNTVR0 + 4, TRCSEQSTR, TRCVICTLR})
        ASSERT_EQ(fast.register_value(off), ref.register_value(off)) << "offset " << off << " at " << t;
      ASSERT_EQ(fast.tracing(), ref.tracing()) << t;
    }
    EXPECT_GT(shortcuts, 20u);
    EXPECT_GT(quiet_branches, 5u);
    EXPECT_EQ(pair.fast_stream.bytes(), pair.ref_stream.bytes());
    EXPECT_GT(pair.ref_stream.bytes().size(), 40u);  // the configuration traced something
  }
}

// Silent runs (EteUnit::silent_steps, advance), as the JIT's fast path uses them: under AutoFDO
// strobing and a sequencer configuration whose steps are alike, running each silent run at once
// with on_retired for its branches, and stepping exactly where a run stops, leaves the unit and
// its stream exactly as stepping every instruction does; a run never reaches past a Trace On.
TEST(EteQuiet, SilentRunsMatchStepByStep) {
  const std::vector<RegisterWrite> configs[] = {
      autofdo_config(7, 3),
      // Counter 0 counts every instruction and reloads itself; at each reload the sequencer goes
      // from state 0 to 1 or back, and ViewInst traces in state 1, with cycle counts.
      parse_config("TRCRSCTLR2 = 0x20001\nTRCRSCTLR3 = 0x20020\n"
                   "TRCCNTRLDVR0 = 20\nTRCCNTVR0 = 20\nTRCCNTCTLR0 = 0x10001\n"
                   "TRCSEQEVR0 = 0x0202\n"
                   "TRCVICTLR = 0x203\nTRCCONFIGR = 0x10\nTRCCCCTLR = 4\n",
                   "test"),
  };
  for (const auto& config : configs) {
    UnitPair pair(config, true);
    EteUnit &ref = pair.ref, &fast = pair.fast;
    ASSERT_TRUE(fast.steps_alike());
    ASSERT_FALSE(ref.steps_alike());
    auto at = branchy_step;
    uint64_t runs = 0, t = 0;
    while (t < 3000) {
      const uint64_t n = fast.silent_steps(at(t), 3000 - t);
      if (n == 0) {  // stepped exactly
        ref.on_retired(at(t));
        fast.on_retired(at(t));
        t++;
        continue;
      }
      runs += n > 1;
      // The run as the fast path replays it: advance between the branches, on_retired for each.
      Retired like = at(t);
      like.kind = Retired::Plain;
      uint64_t seen = t;
      for (uint64_t i = t; i < t + n; i++) {
        ref.on_retired(at(i));
        if (at(i).kind == Retired::Plain) continue;
        fast.advance(like, i - seen);
        fast.on_retired(at(i));
        seen = i + 1;
      }
      fast.advance(like, t + n - seen);
      t += n;
      for (uint64_t off : {TRCCNTVR0, TRCCNTVR0 + 4, TRCSEQSTR, TRCVICTLR})
        ASSERT_EQ(fast.register_value(off), ref.register_value(off)) << "offset " << off << " at " << t;
      ASSERT_EQ(fast.tracing(), ref.tracing()) << t;
    }
    EXPECT_GT(runs, 20u);
    EXPECT_EQ(pair.fast_stream.bytes(), pair.ref_stream.bytes());
    EXPECT_GT(pair.ref_stream.bytes().size(), 40u);  // the configuration traced something
  }
  // Configurations that look at the address comparators decide by the pc: instructions of one
  // address class have silent runs (pc 4 is in no range and at no comparator), one at a single
  // address comparator (TRCACVR0 is 0) none. Those that look at external or PE comparator inputs
  // have none.
  const struct {
    const char* text;
    bool by_pc;
  } others[] = {
      {"TRCACVR0 = 0x80000000\nTRCACVR1 = 0x80000100\nTRCVIIECTLR = 1\nTRCVICTLR = 0x201\n", true},
      {"TRCRSCTLR2 = 0x50001\nTRCVICTLR = 0x202\n", true},
      {"TRCSSCCR0 = 1\nTRCVICTLR = 0x201\n", true},
      {"TRCVISSCTLR = 1\nTRCVICTLR = 0x01\n", true},
      {"TRCRSCTLR2 = 0x00001\nTRCVICTLR = 0x202\n", false},
      {"TRCVIPCSSCTLR = 1\nTRCVICTLR = 0x01\n", false},
  };
  for (const auto& [text, by_pc] : others) {
    EteUnit u(0, Sizes{});
    program(u, parse_config(text, "test"));
    EXPECT_FALSE(u.steps_alike()) << text;
    EXPECT_EQ(u.steps_by_pc(), by_pc) << text;
    u.on_retired(Retired{.pc = 4});  // a Trace On, if any
    EXPECT_EQ(u.silent_steps(Retired{.pc = 4}, 100), by_pc ? 100u : 0u) << text;
    if (u.address_classes().used & 1) {
      EXPECT_EQ(u.silent_steps(Retired{.pc = 0}, 100), 0u) << text;
    }
  }
}

// silent_steps goes on from where its last look ended while the exception level and context
// leave the steps alike, and looks afresh when they do not: under AutoFDO strobing with EL0
// excluded (EL0 <-> EL1 changes ViewInst, EL1 <-> EL3 and context IDs do not) and under a counter
// that counts in context ID 5 only (context changes matter, exception levels not), with runs of
// varying lengths asked again after every exception and context change (as the exec loop does,
// csr/trap.cpp), the unit and its stream end as a unit that evaluates every resource at every
// step leaves them.
TEST(EteQuiet, SilentRunsAcrossExceptionsAndContextChanges) {
  std::vector<RegisterWrite> no_el0 = autofdo_config(7, 3);
  no_el0.push_back({TRCVICTLR, 0x03 | VICTLR_SSSTATUS | 1u << VICTLR_EXLEVEL_NS});
  const std::vector<RegisterWrite> configs[] = {
      no_el0,
      parse_config("TRCCIDCVR0 = 5\nTRCRSCTLR2 = 0x60001\nTRCRSCTLR3 = 0x20001\n"
                   "TRCCNTRLDVR0 = 9\nTRCCNTVR0 = 9\nTRCCNTCTLR0 = 0x10002\nTRCVICTLR = 0x203\n",
                   "test"),
  };
  constexpr uint64_t kSteps = 4000;
  const El levels[] = {El::EL0, El::EL1, El::EL3, El::EL1};
  for (const auto& config : configs) {
    UnitPair pair(config, true);
    EteUnit &ref = pair.ref, &fast = pair.fast;
    ASSERT_TRUE(fast.steps_alike());
    auto at = branchy_step;
    El el = El::EL3;
    uint32_t context = 7;
    uint64_t end = 0, seen = 0, runs = 0;
    bool in_run = false;
    Retired like;
    for (uint64_t i = 0; i < kSteps; i++) {
      // Before instruction i: an exception every 41, a new context ID every 211.
      const bool trap = i % 41 == 40, new_context = i % 211 == 210;
      if (trap || new_context) {
        if (in_run) fast.advance(like, i - seen);
        in_run = false;
        if (trap) el = levels[(i / 41) % 4];
        if (new_context) context = context == 5 ? 7 : 5;
        for (EteUnit* u : {&ref, &fast}) {
          if (trap) u->on_exception(8, false, at(i).pc, 0x80001000, el);
          if (new_context) u->on_context(at(i).pc, el, context, 0);
        }
      }
      if (in_run && i == end) {
        fast.advance(like, i - seen);
        in_run = false;
      }
      if (!in_run) {
        if (const uint64_t n = fast.silent_steps(at(i), std::min<uint64_t>(kSteps - i, 1 + i % 97))) {
          in_run = true;
          end = i + n;
          seen = i;
          like = at(i);
          like.kind = Retired::Plain;
          runs += n > 1;
        }
      }
      ref.on_retired(at(i));
      if (!in_run) {
        fast.on_retired(at(i));  // stepped exactly
      } else if (at(i).kind != Retired::Plain) {
        fast.advance(like, i - seen);
        fast.on_retired(at(i));
        seen = i + 1;
      }
    }
    if (in_run) fast.advance(like, kSteps - seen);
    for (uint64_t off : {TRCCNTVR0, TRCCNTVR0 + 4, TRCSEQSTR, TRCVICTLR})
      EXPECT_EQ(fast.register_value(off), ref.register_value(off)) << "offset " << off;
    EXPECT_EQ(fast.tracing(), ref.tracing());
    EXPECT_GT(runs, 20u);
    EXPECT_EQ(pair.fast_stream.bytes(), pair.ref_stream.bytes());
    EXPECT_GT(pair.ref_stream.bytes().size(), 40u);  // the configuration traced something
  }
}

// Each comparator configuration has its number, the same whenever it comes back, until a new one
// finds the table full: then numbering starts again, in a new epoch.
TEST(TraceViews, NumbersConfigurationsExactlyPerEpoch) {
  auto range = [](uint64_t end) {
    AddressClasses c;
    c.pairs = 1;
    c.acvr[0] = 0x1000;
    c.acvr[1] = end;
    c.used = 1u << 16;
    return c;
  };
  TraceViews views;
  EXPECT_EQ(views.epoch(), 1u);
  EXPECT_EQ(views.intern(range(0x2000)), 1u);
  EXPECT_EQ(views.intern(range(0x1ffc)), 2u);
  AddressClasses other_use = range(0x2000);
  other_use.used = 1u;  // the same addresses, used as single address comparators
  EXPECT_EQ(views.intern(other_use), 3u);
  EXPECT_EQ(views.intern(range(0x2000)), 1u);
  for (unsigned n = 4; n <= TraceViews::kSize; n++) EXPECT_EQ(views.intern(range(0x3000 + n)), n);
  EXPECT_EQ(views.epoch(), 1u);
  EXPECT_EQ(views.intern(range(0x1ffc)), 2u);
  EXPECT_EQ(views.intern(range(0x4000)), 1u);  // the table was full
  EXPECT_EQ(views.epoch(), 2u);
  EXPECT_EQ(views.intern(range(0x2000)), 2u);
  EXPECT_EQ(views.intern(range(0x4000)), 1u);
}

}  // namespace
}  // namespace brisk::ete
