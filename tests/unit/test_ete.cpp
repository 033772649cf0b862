// The ETE trace unit (devices/ete.h): registers, access rules and the resource logic of seed 004
// and ETE, fed with observations as the hart side makes them.
#include "devices/ete.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "csr/extensions.h"
#include "runtime/error.h"

namespace brisk {
namespace {

using namespace ete;

constexpr uint32_t group_sel(Group g, uint32_t select) { return static_cast<uint32_t>(g) << 16 | select; }

struct RecordingSink : TraceSink {
  std::vector<std::string> log;
  void start(uint32_t, uint32_t, uint32_t) override { log.push_back("start"); }
  void trace_on(uint64_t pc, El, uint32_t, uint32_t) override { log.push_back("on " + std::to_string(pc)); }
  void branch(const Retired& r, uint64_t, bool broadcast) override {
    log.push_back(std::string(r.taken ? "E " : "N ") + std::to_string(r.pc) + (broadcast ? " bb" : ""));
  }
  void exception(uint64_t cause, bool, uint64_t, uint64_t, El) override {
    log.push_back("exc " + std::to_string(cause));
  }
  void context(uint64_t, El el, uint32_t cid, uint32_t) override {
    log.push_back("ctx " + std::to_string(static_cast<int>(el)) + " " + std::to_string(cid));
  }
  void event(unsigned events) override { log.push_back("event " + std::to_string(events)); }
  void timestamp() override { log.push_back("ts"); }
  void stop() override { log.push_back("stop"); }
};

struct EteTest : ::testing::Test {
  Sizes sizes;
  RecordingSink sink;
  EteUnit unit{3, sizes, &sink};

  uint32_t rd(uint64_t off) {
    uint64_t v = ~0ull;
    EXPECT_TRUE(unit.read(off, 4, v)) << "read at " << off;
    return static_cast<uint32_t>(v);
  }
  void wr(uint64_t off, uint64_t v) { EXPECT_TRUE(unit.write(off, 4, v)) << "write at " << off; }
  void wr64(uint64_t off, uint64_t v) { EXPECT_TRUE(unit.write(off, 8, v)) << "write at " << off; }
  void unlock() { wr(TRCOSLAR, 0); }
  void enable() { wr(TRCPRGCTLR, 1); }
  static Retired at(uint64_t pc, uint8_t pe = 0, uint32_t pmu = 0) {
    Retired r;
    r.pc = pc;
    r.next_pc = pc + 4;
    r.pe_comparators = pe;
    r.pmu_events = pmu;
    return r;
  }
};

// ------------------------------------------------------------------------------ registers

TEST_F(EteTest, ResetLeavesTheOsLockSetAndTraceRegistersFault) {
  uint64_t v = 0;
  EXPECT_EQ(rd(TRCOSLSR), 0xau);  // OSLM = 0b10, OSLK
  EXPECT_FALSE(unit.read(TRCPRGCTLR, 4, v));
  EXPECT_FALSE(unit.write(TRCRSCTLR0 + 8, 4, 1));
  EXPECT_FALSE(unit.read(TRCACVR0, 8, v));
  // The ID and management registers answer.
  EXPECT_EQ(rd(TRCDEVARCH), 0x47705a13u);
  EXPECT_EQ(rd(TRCIDR0 + 4 * 4), 0x888f4008u);
  EXPECT_EQ(rd(TRCPDSR), 0x23u);  // POWER, STICKYPD, OSLK
  EXPECT_EQ(rd(TRCPDSR), 0x21u);  // STICKYPD clears on read
  unlock();
  EXPECT_EQ(rd(TRCOSLSR), 0x8u);
  EXPECT_EQ(rd(TRCPRGCTLR), 0u);
  EXPECT_EQ(rd(TRCSTATR), STATR_IDLE | STATR_PMSTABLE);
  wr(TRCOSLAR, 1);
  EXPECT_FALSE(unit.read(TRCSTATR, 4, v));
}

TEST_F(EteTest, IdRegistersReportTheDefaultSizes) {
  EXPECT_EQ(rd(TRCIDR0), 0x28000ca1u);
  EXPECT_EQ(rd(TRCIDR0 + 4), 0x4100fff0u);
  EXPECT_EQ(rd(TRCIDR0 + 8), 0x10001088u);
  EXPECT_EQ(rd(TRCIDR0 + 12), 0x00380004u);
  // NUMACPAIRS 8, NUMPC 4, NUMRSPAIR 15, NUMSSCC 8, NUMCIDC 8, NUMVMIDC 8.
  EXPECT_EQ(rd(TRCIDR0 + 16), 0x888f4008u);
  // NUMEXTIN 32, NUMEXTINSEL 4, TRACEIDSIZE 7, NUMSEQSTATE 4, NUMCNTR 4.
  EXPECT_EQ(rd(TRCIDR0 + 20), 0x48070820u);
  EXPECT_EQ(rd(TRCIDR0 + 24), 0u);
  EXPECT_EQ(rd(TRCIDR8), 0u);
  EXPECT_EQ(rd(TRCDEVTYPE), 0x13u);
  EXPECT_EQ(rd(TRCAUTHSTATUS), 0xccu);
  EXPECT_EQ(rd(TRCDEVAFF), 0x80000003u);
  EXPECT_EQ(rd(TRCCIDR0), 0x0du);
  EXPECT_EQ(rd(TRCCIDR0 + 4), 0x90u);
  EXPECT_EQ(rd(TRCCIDR0 + 8), 0x05u);
  EXPECT_EQ(rd(TRCCIDR0 + 12), 0xb1u);
  EXPECT_EQ(rd(TRCPIDR4), 0x04u);
  EXPECT_EQ(rd(TRCPIDR0 + 4), 0xb0u);
  EXPECT_EQ(rd(TRCPIDR0 + 8), 0x0bu);
  EXPECT_EQ(rd(TRCCLAIMSET), 0xfu);
}

TEST_F(EteTest, ConfiguredSizesShowInTheIdRegisters) {
  IsaConfig isa;
  isa.apply("rv64,ete-rspairs=4,ete-acpairs=2,ete-counters=2,ete-seqstates=0,ete-ssc=1,ete-cidc=0,"
            "ete-vmidc=1,ete-pecomp=0,ete-extinsel=1");
  EteUnit small(0, isa.ete);
  uint64_t v = 0;
  ASSERT_TRUE(small.read(TRCIDR0 + 16, 4, v));
  EXPECT_EQ(v, 0x10130002u);
  ASSERT_TRUE(small.read(TRCIDR0 + 20, 4, v));
  EXPECT_EQ(v, 0x20070220u);
  EXPECT_THROW(isa.apply("rv64,ete-rspairs=17"), Error);
  EXPECT_THROW(isa.apply("rv64,ete-rspairs=0"), Error);
  EXPECT_THROW(isa.apply("rv64,ete-seqstates=3"), Error);
  EXPECT_THROW(isa.apply("rv64,ete-counters=x"), Error);
  EXPECT_THROW(isa.apply("rv64,ete-foo=1"), Error);
}

TEST_F(EteTest, ResourceSelectorsBeyondNumRsPairAreRes0) {
  sizes.rs_pairs = 4;
  EteUnit small(0, sizes);
  ASSERT_TRUE(small.write(TRCOSLAR, 4, 0));
  for (unsigned n = 0; n < 32; n++) ASSERT_TRUE(small.write(TRCRSCTLR0 + 4 * n, 4, group_sel(Group::PeComparator, 1)));
  for (unsigned n = 0; n < 32; n++) {
    uint64_t v = ~0ull;
    ASSERT_TRUE(small.read(TRCRSCTLR0 + 4 * n, 4, v));
    // Present only when (NUMRSPAIR + 1) * 2 > n, and never for the fixed selectors 0 and 1.
    EXPECT_EQ(v, n >= 2 && n < 8 ? group_sel(Group::PeComparator, 1) : 0u) << "TRCRSCTLR" << n;
  }
  // Selecting an absent selector or pair is FALSE.
  EXPECT_TRUE(small.event(0x07, at(0, 1)));
  EXPECT_FALSE(small.event(0x08, at(0, 1)));
  EXPECT_FALSE(small.event(0x84, at(0, 1)));
}

TEST_F(EteTest, RegistersReadBackWhatTheyKeep) {
  unlock();
  struct WriteRead {
    uint64_t offset;
    uint32_t write, read;
  };
  const WriteRead cases[] = {
      {TRCRSCTLR0 + 4 * 2, 0xffffffff, 0x003f0000},  // reserved group: SELECT kept as 0
      {TRCRSCTLR0 + 4 * 3, 0xffffffff, 0x001f0000},  // odd selectors have no PAIRINV
      {TRCRSCTLR0 + 4 * 4, 0x0012ffff, 0x001200ff},  // counters and sequencer: 8 bits
      {TRCRSCTLR0 + 4 * 5, 0x0004ffff, 0x0004ffff},  // single address comparators: 16
      {TRCCONFIGR, 0xffffffff, 0x8d8},
      {TRCCCCTLR, 0xffffffff, 0xfff},
      {TRCBBCTLR, 0xffffffff, 0x1ff},          // MODE, RANGE of the 8 pairs
      {TRCEVENTCTL0R, 0xffffffff, 0x9f9f9f9f},
      {TRCEVENTCTL1R, 0xffffffff, 0xf},
      {TRCVICTLR, 0xffffffff, 0x0038029f},
      {TRCVIIECTLR, 0xffffffff, 0x00ff00ff},
      {TRCVISSCTLR, 0xffffffff, 0xffffffff},
      {TRCVIPCSSCTLR, 0xffffffff, 0x000f000f},
      {TRCSYNCPR, 3, 8},
      {TRCSYNCPR, 0xc, 0xc},
      {TRCSYNCPR, 31, 20},
      {TRCCNTCTLR0, 0xffffffff, 0x19f9f},      // no CNTCHAIN on counter 0
      {TRCCNTCTLR0 + 4, 0xffffffff, 0x39f9f},
      {TRCCNTVR0, 0x12345, 0x2345},
      {TRCSEQEVR0 + 8, 0xffffffff, 0x9f9f},
      {TRCSEQSTR, 0xffffffff, 3},
      {TRCEXTINSELR0 + 12, 0xffffffff, 0xffff},
      {TRCSSCCR0, 0xffffffff, 0x01ffffff},
      {TRCSSCSR0, 0xffffffff, 0xc0000009},
      {TRCSSPCICR0, 0xffffffff, 0xf},
      {TRCACATR0, 0xffffffff, 0x387c},
      {TRCCIDCCTLR1, 0xffffffff, 0x0f0f0f0f},
      {TRCTRACEIDR, 0xffffffff, 0x7f},
      {TRCIDR0, 0, 0x28000ca1},                // read-only
  };
  for (const WriteRead& c : cases) {
    wr(c.offset, c.write);
    EXPECT_EQ(rd(c.offset), c.read) << "offset " << c.offset;
  }
  wr64(TRCACVR0 + 8, 0x123456789abcdef0);
  EXPECT_EQ(rd(TRCACVR0 + 8), 0x9abcdef0u);
  EXPECT_EQ(rd(TRCACVR0 + 12), 0x12345678u);
  wr(TRCCLAIMSET, 0x5);
  EXPECT_EQ(rd(TRCCLAIMCLR), 0x5u);
  wr(TRCCLAIMCLR, 0x1);
  EXPECT_EQ(rd(TRCCLAIMCLR), 0x4u);
  // Only 4-byte accesses, and 8-byte ones to 64-bit registers.
  uint64_t v;
  EXPECT_FALSE(unit.read(TRCCONFIGR, 8, v));
  EXPECT_FALSE(unit.read(TRCCONFIGR, 2, v));
  EXPECT_FALSE(unit.read(TRCCONFIGR + 1, 4, v));
  EXPECT_FALSE(unit.write(TRCCONFIGR, 1, 0));
}

TEST_F(EteTest, WritesOutsideIdleAreIgnored) {
  unlock();
  wr(TRCCONFIGR, CONFIGR_CID);
  wr(TRCCNTVR0, 7);
  enable();
  EXPECT_EQ(rd(TRCSTATR), 0u);
  wr(TRCCONFIGR, CONFIGR_TS);
  wr(TRCCNTVR0, 1);
  wr(TRCRSCTLR0 + 8, group_sel(Group::PeComparator, 1));
  wr(TRCCLAIMSET, 2);  // claim tags and the programming control still work
  EXPECT_EQ(rd(TRCCONFIGR), CONFIGR_CID);
  EXPECT_EQ(rd(TRCCNTVR0), 7u);
  EXPECT_EQ(rd(TRCRSCTLR0 + 8), 0u);
  EXPECT_EQ(rd(TRCCLAIMCLR), 2u);
  wr(TRCPRGCTLR, 0);
  EXPECT_EQ(rd(TRCSTATR), STATR_IDLE | STATR_PMSTABLE);
  wr(TRCCONFIGR, CONFIGR_TS);
  EXPECT_EQ(rd(TRCCONFIGR), CONFIGR_TS);
  EXPECT_EQ(sink.log, (std::vector<std::string>{"start", "stop"}));
}

// ------------------------------------------------------------------------------ pair table

// (A.PAIRINV, A.INV, B.INV) for every row of seed 004's table, over every (A, B). A is PE
// comparator input 0, B input 1; event 0x81 selects pair 1 (selectors 2 and 3).
TEST_F(EteTest, PairTableEveryRowIncludingTheReservedOnes) {
  unlock();
  struct Row {
    unsigned enc;
    bool out[4];  // for (A, B) = (0,0), (0,1), (1,0), (1,1)
  };
  const Row rows[] = {
      {0b000, {false, false, false, true}},  // A and B
      {0b001, {false, false, true, false}},  // reserved: brisk gives A and not(B)
      {0b010, {false, true, false, false}},  // not(A) and B
      {0b011, {true, false, false, false}},  // not(A) and not(B)
      {0b100, {true, true, true, false}},    // not(A) or not(B)
      {0b101, {true, true, false, true}},    // not(A) or B
      {0b110, {true, false, true, true}},    // reserved: brisk gives A or not(B)
      {0b111, {false, true, true, true}},    // A or B
  };
  for (const Row& row : rows) {
    const uint32_t a = group_sel(Group::PeComparator, 1) | (row.enc & 4 ? RSCTLR_PAIRINV : 0) |
                       (row.enc & 2 ? RSCTLR_INV : 0);
    const uint32_t b = group_sel(Group::PeComparator, 2) | (row.enc & 1 ? RSCTLR_INV : 0);
    wr(TRCRSCTLR0 + 8, a);
    wr(TRCRSCTLR0 + 12, b);
    for (unsigned ab = 0; ab < 4; ab++) {
      const uint8_t pe = (ab & 2 ? 1 : 0) | (ab & 1 ? 2 : 0);
      EXPECT_EQ(unit.event(0x81, at(0, pe)), row.out[ab]) << "encoding " << row.enc << " A,B = " << (ab >> 1)
                                                          << "," << (ab & 1);
    }
  }
}

TEST_F(EteTest, FixedSelectorsAndSingleSelectorInversion) {
  unlock();
  EXPECT_FALSE(unit.event(0x00, at(0)));
  EXPECT_TRUE(unit.event(0x01, at(0)));
  EXPECT_FALSE(unit.event(0x80, at(0)));  // pair 0: FALSE and TRUE
  wr(TRCRSCTLR0 + 8, group_sel(Group::PeComparator, 1) | RSCTLR_INV | RSCTLR_PAIRINV);
  // PAIRINV only acts on the pair; INV on the single selector.
  EXPECT_FALSE(unit.event(0x02, at(0, 1)));
  EXPECT_TRUE(unit.event(0x02, at(0, 0)));
  EXPECT_TRUE(unit.selector(2, at(0, 0)));
  EXPECT_TRUE(unit.selector(1, at(0, 0)));
  EXPECT_FALSE(unit.selector(0, at(0, 0)));
}

// ------------------------------------------------------------------------------ resource groups

TEST_F(EteTest, GroupExternalInputs) {
  unlock();
  wr(TRCEXTINSELR0 + 4, 9);  // selector 1 picks PMU event 9 (loads)
  wr(TRCRSCTLR0 + 8, group_sel(Group::ExternalInput, 0b10));
  EXPECT_TRUE(unit.event(0x02, at(0, 0, 1u << 9)));
  EXPECT_FALSE(unit.event(0x02, at(0, 0, 1u << 10)));
  wr(TRCRSCTLR0 + 8, group_sel(Group::ExternalInput, 0b01));  // selector 0 picks event 0: never
  EXPECT_FALSE(unit.event(0x02, at(0, 0, 1u << 9)));
}

TEST_F(EteTest, GroupPeComparatorInputs) {
  unlock();
  wr(TRCRSCTLR0 + 8, group_sel(Group::PeComparator, 0b1010));
  EXPECT_TRUE(unit.event(0x02, at(0, 0b1000)));
  EXPECT_TRUE(unit.event(0x02, at(0, 0b0010)));
  EXPECT_FALSE(unit.event(0x02, at(0, 0b0101)));
}

TEST_F(EteTest, GroupCountersAndSequencer) {
  unlock();
  wr(TRCRSCTLR0 + 8, group_sel(Group::CounterSequencer, 1u << 2));  // counter 2 at zero
  wr(TRCRSCTLR0 + 12, group_sel(Group::CounterSequencer, 1u << 6));  // sequencer state 2
  wr(TRCCNTVR0 + 8, 5);
  EXPECT_FALSE(unit.event(0x02, at(0)));
  wr(TRCCNTVR0 + 8, 0);
  EXPECT_TRUE(unit.event(0x02, at(0)));
  EXPECT_FALSE(unit.event(0x03, at(0)));
  wr(TRCSEQSTR, 2);
  EXPECT_TRUE(unit.event(0x03, at(0)));
}

TEST_F(EteTest, GroupSingleShotAndItsStatus) {
  unlock();
  wr64(TRCACVR0, 0x1000);
  wr(TRCSSCCR0, 1);  // single address comparator 0
  wr(TRCRSCTLR0 + 8, group_sel(Group::SingleShot, 1));
  wr(TRCRSCTLR0 + 12, group_sel(Group::SingleShot, 2));  // control 1: nothing selected
  EXPECT_TRUE(unit.event(0x02, at(0x1000)));
  EXPECT_FALSE(unit.event(0x02, at(0x1002)));
  EXPECT_FALSE(unit.event(0x03, at(0x1000)));
  enable();
  unit.on_retired(at(0x0ffc));
  wr(TRCPRGCTLR, 0);
  EXPECT_EQ(rd(TRCSSCSR0), 0x9u);  // no match yet
  enable();
  unit.on_retired(at(0x1000));
  wr(TRCPRGCTLR, 0);
  EXPECT_EQ(rd(TRCSSCSR0), 0x80000009u);
  // Without RST it fires once, until STATUS is cleared; with RST whenever it matches.
  EXPECT_FALSE(unit.event(0x02, at(0x1000)));
  wr(TRCSSCCR0, 1 | SSCCR_RST);
  EXPECT_TRUE(unit.event(0x02, at(0x1000)));
  wr(TRCSSCCR0, 1);
  wr(TRCSSCSR0, 0);
  EXPECT_TRUE(unit.event(0x02, at(0x1000)));
  // PE comparator inputs through TRCSSPCICR.
  wr(TRCSSPCICR0 + 4, 0b100);
  EXPECT_TRUE(unit.event(0x03, at(0, 0b100)));
}

TEST_F(EteTest, GroupSingleAddressComparatorsWithExceptionLevelAndContext) {
  unlock();
  wr64(TRCACVR0 + 8 * 3, 0x2000);
  wr(TRCRSCTLR0 + 8, group_sel(Group::SingleAddress, 1u << 3));
  EXPECT_TRUE(unit.event(0x02, at(0x2000)));
  EXPECT_FALSE(unit.event(0x02, at(0x2002)));
  // EXLEVEL_NS bit for EL0: no match in U-mode; S (EL1) and M (EL3) still match.
  wr(TRCACATR0 + 8 * 3, 1u << 12);
  unit.on_context(0, El::EL0, 0, 0);
  EXPECT_FALSE(unit.event(0x02, at(0x2000)));
  unit.on_context(0, El::EL1, 0, 0);
  EXPECT_TRUE(unit.event(0x02, at(0x2000)));
  // Context ID comparator 1 must match too.
  wr(TRCCIDCVR0 + 8, 42);
  wr(TRCACATR0 + 8 * 3, 1u << 2 | 1u << 4);
  EXPECT_FALSE(unit.event(0x02, at(0x2000)));
  unit.on_context(0, El::EL1, 42, 0);
  EXPECT_TRUE(unit.event(0x02, at(0x2000)));
}

TEST_F(EteTest, GroupAddressRangeComparators) {
  unlock();
  wr64(TRCACVR0 + 16, 0x1000);
  wr64(TRCACVR0 + 24, 0x2000);
  wr(TRCRSCTLR0 + 8, group_sel(Group::AddressRange, 0b10));
  EXPECT_FALSE(unit.event(0x02, at(0x0ffe)));
  EXPECT_TRUE(unit.event(0x02, at(0x1000)));
  EXPECT_TRUE(unit.event(0x02, at(0x1ffe)));
  EXPECT_FALSE(unit.event(0x02, at(0x2000)));
}

TEST_F(EteTest, GroupContextIdAndVmidComparators) {
  unlock();
  wr64(TRCCIDCVR0 + 8, 0x1234);
  wr64(TRCVMIDCVR0 + 8 * 5, 0x77);
  wr(TRCRSCTLR0 + 8, group_sel(Group::ContextId, 0b10));
  wr(TRCRSCTLR0 + 12, group_sel(Group::Vmid, 1u << 5));
  unit.on_context(0, El::EL1, 0x1234, 0x76);
  EXPECT_TRUE(unit.event(0x02, at(0)));
  EXPECT_FALSE(unit.event(0x03, at(0)));
  unit.on_context(0, El::EL1, 0x1235, 0x77);
  EXPECT_FALSE(unit.event(0x02, at(0)));
  EXPECT_TRUE(unit.event(0x03, at(0)));
  wr(TRCCIDCCTLR0, 1u << 8);  // comparator 1 ignores byte 0
  EXPECT_TRUE(unit.event(0x02, at(0)));
}

TEST_F(EteTest, ReservedGroupsSelectNothing) {
  unlock();
  wr(TRCRSCTLR0 + 8, 8u << 16);
  EXPECT_FALSE(unit.event(0x02, at(0, 0xff, ~0u)));
  wr(TRCRSCTLR0 + 8, 8u << 16 | RSCTLR_INV);
  EXPECT_TRUE(unit.event(0x02, at(0, 0xff, ~0u)));
}

// ------------------------------------------------------------------------------ counters

TEST_F(EteTest, CounterDecrementsAndStopsAtZero) {
  unlock();
  wr(TRCCNTRLDVR0, 3);
  wr(TRCCNTCTLR0, 0x01);  // count always
  wr(TRCCNTVR0, 2);
  enable();
  std::vector<uint32_t> seen;
  for (int i = 0; i < 4; i++) {
    unit.on_retired(at(0));
    wr(TRCPRGCTLR, 0);
    seen.push_back(rd(TRCCNTVR0));
    enable();
  }
  EXPECT_EQ(seen, (std::vector<uint32_t>{1, 0, 0, 0}));
}

TEST_F(EteTest, CounterReloadEventAndRldSelf) {
  unlock();
  wr(TRCRSCTLR0 + 8, group_sel(Group::PeComparator, 1));
  wr(TRCCNTRLDVR0, 3);
  wr(TRCCNTCTLR0, 0x01 | 0x02 << 8);  // count always, reload on selector 2
  wr(TRCCNTVR0, 2);
  wr(TRCCNTRLDVR0 + 4, 2);
  wr(TRCCNTCTLR0 + 4, 0x01 | CNTCTLR_RLDSELF);
  wr(TRCCNTVR0 + 4, 1);
  enable();
  std::vector<uint32_t> c0, c1;
  const uint8_t pe[] = {0, 1, 0, 0, 0, 0};
  for (uint8_t p : pe) {
    unit.on_retired(at(0, p));
    wr(TRCPRGCTLR, 0);
    c0.push_back(rd(TRCCNTVR0));
    c1.push_back(rd(TRCCNTVR0 + 4));
    enable();
  }
  // The reload event wins over the count; RLDSELF reloads at zero when the count event is active.
  EXPECT_EQ(c0, (std::vector<uint32_t>{1, 3, 2, 1, 0, 0}));
  EXPECT_EQ(c1, (std::vector<uint32_t>{0, 2, 1, 0, 2, 1}));
}

TEST_F(EteTest, CounterChainDecrementsOnTheLowerCountersReload) {
  unlock();
  wr(TRCCNTRLDVR0, 1);
  wr(TRCCNTCTLR0, 0x01 | CNTCTLR_RLDSELF);
  wr(TRCCNTVR0, 1);
  wr(TRCCNTCTLR0 + 4, CNTCTLR_CNTCHAIN);  // no event of its own
  wr(TRCCNTVR0 + 4, 5);
  enable();
  std::vector<uint32_t> c1;
  for (int i = 0; i < 6; i++) {
    unit.on_retired(at(0));
    wr(TRCPRGCTLR, 0);
    c1.push_back(rd(TRCCNTVR0 + 4));
    enable();
  }
  // Counter 0: 0, reload, 0, reload, 0, reload.
  EXPECT_EQ(c1, (std::vector<uint32_t>{5, 4, 4, 3, 3, 2}));
}

// ------------------------------------------------------------------------------ sequencer

TEST_F(EteTest, SequencerForwardBackBothAndReset) {
  unlock();
  wr(TRCRSCTLR0 + 8, group_sel(Group::PeComparator, 1));   // selector 2: input 0
  wr(TRCRSCTLR0 + 12, group_sel(Group::PeComparator, 2));  // selector 3: input 1
  wr(TRCRSCTLR0 + 16, group_sel(Group::PeComparator, 4));  // selector 4: input 2
  for (unsigned s = 0; s < 3; s++) wr(TRCSEQEVR0 + 4 * s, 0x02 | 0x03 << 8);  // F = sel 2, B = sel 3
  wr(TRCSEQRSTEVR, 0x04);
  enable();
  std::vector<uint32_t> states;
  const uint8_t pe[] = {1, 1, 3, 2, 1, 1, 1, 1, 4, 2};
  for (uint8_t p : pe) {
    unit.on_retired(at(0, p));
    wr(TRCPRGCTLR, 0);
    states.push_back(rd(TRCSEQSTR));
    enable();
  }
  // Forward twice; both events: stays; back; forward to 3 and stays there; reset; back from 0: none.
  EXPECT_EQ(states, (std::vector<uint32_t>{1, 2, 2, 1, 2, 3, 3, 3, 0, 0}));
}

// ------------------------------------------------------------------------------ ViewInst

TEST_F(EteTest, ViewInstIncludeAndExcludeRanges) {
  unlock();
  wr(TRCVICTLR, 0x01 | VICTLR_SSSTATUS);
  wr64(TRCACVR0, 0x1000);
  wr64(TRCACVR0 + 8, 0x2000);
  wr64(TRCACVR0 + 16, 0x1800);
  wr64(TRCACVR0 + 24, 0x1900);
  EXPECT_TRUE(unit.view_inst(at(0x500)));  // no ranges: everything
  wr(TRCVIIECTLR, 1);                      // include range 0
  EXPECT_FALSE(unit.view_inst(at(0x0ffe)));
  EXPECT_TRUE(unit.view_inst(at(0x1000)));
  EXPECT_TRUE(unit.view_inst(at(0x1800)));
  EXPECT_FALSE(unit.view_inst(at(0x2000)));
  wr(TRCVIIECTLR, 1 | 2u << 16);  // and exclude range 1
  EXPECT_TRUE(unit.view_inst(at(0x17fe)));
  EXPECT_FALSE(unit.view_inst(at(0x1800)));
  EXPECT_FALSE(unit.view_inst(at(0x18fe)));
  EXPECT_TRUE(unit.view_inst(at(0x1900)));
  wr(TRCVIIECTLR, 2u << 16);  // exclude only
  EXPECT_TRUE(unit.view_inst(at(0x500)));
  EXPECT_FALSE(unit.view_inst(at(0x1800)));
  wr(TRCVICTLR, 0x00 | VICTLR_SSSTATUS);  // EVENT never
  EXPECT_FALSE(unit.view_inst(at(0x500)));
}

TEST_F(EteTest, ViewInstStartStopAndSsStatus) {
  unlock();
  wr(TRCVICTLR, 0x01);  // stopped
  wr64(TRCACVR0, 0x1000);
  wr64(TRCACVR0 + 8, 0x1100);
  wr(TRCVISSCTLR, 1 | 2u << 16);  // start at comparator 0, stop at 1
  enable();
  std::vector<bool> traced;
  for (uint64_t pc : {0x0ffc, 0x1000, 0x1004, 0x1100, 0x1104, 0x1000}) {
    unit.on_retired(at(pc));
    traced.push_back(unit.tracing());
  }
  // The instructions at the start and at the stop address are both traced.
  EXPECT_EQ(traced, (std::vector<bool>{false, true, true, true, false, true}));
  wr(TRCPRGCTLR, 0);
  EXPECT_EQ(rd(TRCVICTLR), 0x01u | VICTLR_SSSTATUS);
  EXPECT_EQ(sink.log, (std::vector<std::string>{"start", "on 4096", "on 4096", "stop"}));
}

TEST_F(EteTest, ViewInstExceptionLevelFiltering) {
  unlock();
  wr(TRCVICTLR, 0x01 | VICTLR_SSSTATUS | 1u << 20 | 1u << 19);  // not EL0 (Non-secure), not EL3
  unit.on_context(0, El::EL0, 0, 0);
  EXPECT_FALSE(unit.view_inst(at(0)));
  unit.on_context(0, El::EL1, 0, 0);
  EXPECT_TRUE(unit.view_inst(at(0)));
  unit.on_context(0, El::EL3, 0, 0);
  EXPECT_FALSE(unit.view_inst(at(0)));
  wr(TRCVICTLR, 0x01 | VICTLR_SSSTATUS | 1u << 21);  // not EL1
  EXPECT_TRUE(unit.view_inst(at(0)));
  unit.on_context(0, El::EL1, 0, 0);
  EXPECT_FALSE(unit.view_inst(at(0)));
}

TEST_F(EteTest, TraceElementsFollowViewInst) {
  unlock();
  wr(TRCVICTLR, 0x02 | VICTLR_SSSTATUS);  // ViewInst EVENT: selector 2
  wr(TRCRSCTLR0 + 8, group_sel(Group::PeComparator, 1));
  wr(TRCRSCTLR0 + 12, group_sel(Group::PeComparator, 2));
  wr(TRCEVENTCTL0R, 0x03 << 8);  // EVENT1: selector 3
  wr(TRCEVENTCTL1R, 0b10);
  enable();
  Retired b = at(0x100, 1);
  b.kind = Retired::Branch;
  b.taken = true;
  unit.on_retired(b);
  unit.on_context(0x200, El::EL1, 7, 0);
  unit.on_exception(8, false, 0x204, 0x300, El::EL3);
  b.pc = 0x300;
  b.taken = false;
  b.pe_comparators = 2;  // not traced, but the event fires
  unit.on_retired(b);
  unit.on_exception(3, false, 0x304, 0x300, El::EL3);  // not traced: no packet
  b.pe_comparators = 1;
  unit.on_retired(b);
  EXPECT_EQ(sink.log, (std::vector<std::string>{"start", "on 256", "E 256", "ctx 1 7", "exc 8", "event 2",
                                                "on 768", "N 768"}));
}

TEST_F(EteTest, BranchBroadcastRegion) {
  unlock();
  wr(TRCVICTLR, 0x01 | VICTLR_SSSTATUS);
  wr64(TRCACVR0, 0x1000);
  wr64(TRCACVR0 + 8, 0x2000);
  // Each TRCCONFIGR.BB and TRCBBCTLR, and which of a branch inside range 0 and one outside it
  // broadcast their targets.
  struct Case {
    uint32_t configr, bbctlr;
    std::vector<std::string> log;
  };
  const Case cases[] = {
      {CONFIGR_BB, 0, {"start", "on 4096", "E 4096 bb", "E 12288 bb", "stop"}},             // exclude none: everywhere
      {CONFIGR_BB, BBCTLR_MODE | 1, {"start", "on 4096", "E 4096 bb", "E 12288", "stop"}},  // include range 0
      {CONFIGR_BB, 1, {"start", "on 4096", "E 4096", "E 12288 bb", "stop"}},                // exclude range 0
      {CONFIGR_BB, BBCTLR_MODE, {"start", "on 4096", "E 4096", "E 12288", "stop"}},         // include none: nowhere
      {0, 0, {"start", "on 4096", "E 4096", "E 12288", "stop"}},                            // no BB
  };
  for (const Case& c : cases) {
    sink.log.clear();
    wr(TRCCONFIGR, c.configr);
    wr(TRCBBCTLR, c.bbctlr);
    enable();
    for (uint64_t pc : {0x1000, 0x3000}) {
      Retired b = at(pc);
      b.kind = Retired::Branch;
      b.taken = true;
      unit.on_retired(b);
    }
    wr(TRCPRGCTLR, 0);
    EXPECT_EQ(sink.log, c.log) << "TRCCONFIGR " << c.configr << " TRCBBCTLR " << c.bbctlr;
  }
  // RANGE has a bit for each address range comparator pair that exists.
  sizes.ac_pairs = 2;
  EteUnit small(0, sizes);
  uint64_t v = 0;
  ASSERT_TRUE(small.write(TRCOSLAR, 4, 0));
  ASSERT_TRUE(small.write(TRCBBCTLR, 4, 0xffffffff));
  ASSERT_TRUE(small.read(TRCBBCTLR, 4, v));
  EXPECT_EQ(v, 0x103u);
}

TEST_F(EteTest, TimestampEventNeedsConfigrTs) {
  unlock();
  wr(TRCRSCTLR0 + 8, group_sel(Group::PeComparator, 1));
  wr(TRCTSCTLR, 0x02);
  enable();
  unit.on_retired(at(0, 1));  // TRCCONFIGR.TS clear: no timestamp
  wr(TRCPRGCTLR, 0);
  wr(TRCCONFIGR, CONFIGR_TS);
  enable();
  unit.on_retired(at(0, 0));
  unit.on_retired(at(0, 1));
  EXPECT_EQ(sink.log, (std::vector<std::string>{"start", "stop", "start", "ts"}));
}

TEST_F(EteTest, ObservationsWhileDisabledChangeNothing) {
  unlock();
  wr(TRCCNTCTLR0, 0x01);
  wr(TRCCNTVR0, 5);
  unit.on_retired(at(0));
  EXPECT_EQ(rd(TRCCNTVR0), 5u);
  EXPECT_TRUE(sink.log.empty());
}

}  // namespace
}  // namespace brisk
