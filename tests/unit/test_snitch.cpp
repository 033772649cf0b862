// The Snitch cluster: the peripheral block's registers (devices/snitch_periph.h) and the timing
// model behind its counters (devices/snitch/, docs/snitch.md), driven with instruction facts as the
// engines describe them.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "devices/snitch_periph.h"
#include "runtime/snitch_facts.h"
#include "devices/snitch/cluster.h"
#include "devices/snitch/ssr.h"
#include "tests/unit/fake_sink.h"

namespace brisk {
namespace {

using namespace snitch_periph;
using snitch::Cluster;
using snitch::Dma;
using snitch::Exec;
using snitch::InsnFacts;
using snitch::Metric;

constexpr unsigned kHarts = 9;
constexpr uint64_t kDram = 0x80000000;
constexpr uint64_t kDramSize = 64 * 1024;

// DRAM and the TCDM as flat bytes; anything else refuses.
struct FakeMemory : snitch::HostMemory {
  std::vector<uint8_t> dram = std::vector<uint8_t>(kDramSize);
  std::vector<uint8_t> tcdm = std::vector<uint8_t>(snitch::kTcdmSize);
  uint8_t* at(uint64_t addr, uint64_t size) override {
    if (addr >= kDram && addr - kDram <= kDramSize - size) return &dram[addr - kDram];
    if (snitch::in_tcdm(addr) && addr - snitch::kTcdmBase <= snitch::kTcdmSize - size) return &tcdm[addr - snitch::kTcdmBase];
    return nullptr;
  }
};

uint32_t sel(Metric m, unsigned hart) { return static_cast<uint32_t>(m) << 16 | hart; }

struct SnitchTest : ::testing::Test {
  FakeMemory memory;
  FakeSink sink;
  Cluster cluster{kHarts, memory};
  SnitchPeriph periph{cluster.counters(), cluster.icache(), sink};

  uint64_t rd(uint64_t off, unsigned size) {
    uint64_t v = ~0ull;
    EXPECT_TRUE(periph.read(off, size, v)) << "read at " << off;
    return v;
  }
  void wr(uint64_t off, uint64_t v, unsigned size) { EXPECT_TRUE(periph.write(off, size, v)) << "write at " << off; }
  // Counter i counts `m` of `hart` from 0.
  void count(unsigned i, Metric m, unsigned hart = 0) {
    wr(PERF_CNT_SEL + 8 * i, sel(m, hart), 4);
    wr(PERF_CNT + 8 * i, 0, 8);
  }
  uint64_t counter(unsigned i) { return rd(PERF_CNT + 8 * i, 8); }
};

// ------------------------------------------------------------------------------- the registers

TEST_F(SnitchTest, ResetValues) {
  constexpr Metric kReset[16] = {Metric::CYCLE,       Metric::RETIRED_INSTR,   Metric::TCDM_ACCESSED,
                                 Metric::ICACHE_MISS, Metric::ICACHE_HIT,      Metric::ICACHE_PREFETCH,
                                 Metric::ICACHE_STALL, Metric::CYCLE,          Metric::CYCLE,
                                 Metric::CYCLE,       Metric::CYCLE,           Metric::CYCLE,
                                 Metric::CYCLE,       Metric::CYCLE,           Metric::CYCLE,
                                 Metric::CYCLE};
  for (unsigned i = 0; i < 16; i++) {
    for (unsigned size : {4u, 8u}) {
      EXPECT_EQ(rd(PERF_CNT_EN + 8 * i, size), 1u) << i;
      EXPECT_EQ(rd(PERF_CNT_SEL + 8 * i, size), sel(kReset[i], 0)) << i;
      EXPECT_EQ(rd(PERF_CNT + 8 * i, size), 0u) << i;
    }
    EXPECT_EQ(rd(PERF_CNT_EN + 8 * i + 4, 4), 0u);
    EXPECT_EQ(rd(PERF_CNT_SEL + 8 * i + 4, 4), 0u);
  }
  for (uint64_t reg : {CL_CLINT_SET, CL_CLINT_CLEAR, ICACHE_PREFETCH_ENABLE}) {
    EXPECT_EQ(rd(reg, 8), 0u);  // write-only
    EXPECT_EQ(rd(reg, 4), 0u);
  }
  EXPECT_TRUE(cluster.icache().prefetch());
  EXPECT_TRUE(sink.mip.empty());
}

TEST_F(SnitchTest, MasksFor64BitWrites) {
  for (unsigned i = 0; i < 16; i++) {
    wr(PERF_CNT_EN + 8 * i, ~0ull, 8);
    wr(PERF_CNT_SEL + 8 * i, ~0ull, 8);
    wr(PERF_CNT + 8 * i, ~0ull, 8);
  }
  for (unsigned i = 0; i < 16; i++) {
    EXPECT_EQ(rd(PERF_CNT_EN + 8 * i, 8), 0x1u);
    EXPECT_EQ(rd(PERF_CNT_SEL + 8 * i, 8), 0xffffffffu);
    EXPECT_EQ(rd(PERF_CNT + 8 * i, 8), 0xffffffffffffu);
    EXPECT_EQ(rd(PERF_CNT + 8 * i + 4, 4), 0xffffu);
  }
  wr(PERF_CNT_EN + 8 * 3, 0x2, 8);  // only ENABLE is writable
  EXPECT_EQ(rd(PERF_CNT_EN + 8 * 3, 8), 0u);
}

TEST_F(SnitchTest, HalvesFor32BitAccesses) {
  wr(PERF_CNT + 8 * 5, 0x123456789abcull, 8);
  EXPECT_EQ(rd(PERF_CNT + 8 * 5, 4), 0x56789abcu);
  EXPECT_EQ(rd(PERF_CNT + 8 * 5 + 4, 4), 0x1234u);
  wr(PERF_CNT + 8 * 5, 0xdeadbeef, 4);
  EXPECT_EQ(rd(PERF_CNT + 8 * 5, 8), 0x1234deadbeefull);
  wr(PERF_CNT + 8 * 5 + 4, 0xffffffff, 4);
  EXPECT_EQ(rd(PERF_CNT + 8 * 5, 8), 0xffffdeadbeefull);
  wr(PERF_CNT_SEL + 8 * 2, sel(Metric::RETIRED_I, 7), 4);
  wr(PERF_CNT_SEL + 8 * 2 + 4, 0xffffffff, 4);  // reserved half
  EXPECT_EQ(rd(PERF_CNT_SEL + 8 * 2, 8), sel(Metric::RETIRED_I, 7));
  wr(PERF_CNT_EN + 8 * 9, 0, 4);
  EXPECT_EQ(rd(PERF_CNT_EN + 8 * 9, 4), 0u);
  wr(PERF_CNT_EN + 8 * 9 + 4, 1, 4);  // ENABLE is in the low half
  EXPECT_EQ(rd(PERF_CNT_EN + 8 * 9, 8), 0u);
}

TEST_F(SnitchTest, OtherSizesAndAlignmentsFault) {
  uint64_t v;
  for (unsigned size : {1u, 2u}) {
    EXPECT_FALSE(periph.read(PERF_CNT, size, v));
    EXPECT_FALSE(periph.write(PERF_CNT, size, 1));
  }
  EXPECT_FALSE(periph.read(PERF_CNT + 4, 8, v));
  EXPECT_FALSE(periph.write(PERF_CNT + 2, 4, 1));
  EXPECT_FALSE(periph.read(kWindowSize, 4, v));
  EXPECT_FALSE(periph.write(kWindowSize + 8, 8, 1));
  EXPECT_EQ(rd(PERF_CNT, 8), 0u);  // nothing was written
  EXPECT_EQ(rd(kRegistersEnd, 8), 0u);
  wr(kRegistersEnd, ~0ull, 8);
  EXPECT_EQ(rd(kRegistersEnd, 8), 0u);
  EXPECT_EQ(rd(kWindowSize - 8, 8), 0u);
}

TEST_F(SnitchTest, ClusterLocalInterruptSetAndClear) {
  wr(CL_CLINT_SET, 0b101, 4);
  EXPECT_TRUE(sink.get(0, IRQ_MCIP));
  EXPECT_FALSE(sink.get(1, IRQ_MCIP));
  EXPECT_TRUE(sink.get(2, IRQ_MCIP));
  EXPECT_EQ(rd(CL_CLINT_SET, 4), 0u);
  wr(CL_CLINT_CLEAR, 0b1, 8);
  EXPECT_FALSE(sink.get(0, IRQ_MCIP));
  EXPECT_TRUE(sink.get(2, IRQ_MCIP));
  // Bits past the cluster's harts, and the reserved upper half, reach no hart.
  sink.mip.clear();
  wr(CL_CLINT_SET, 0xfffffe00ull | 0xffffffffull << 32, 8);
  wr(CL_CLINT_SET + 4, 0xffffffff, 4);
  EXPECT_TRUE(sink.mip.empty());
  wr(CL_CLINT_SET, 1u << 8, 4);  // the DMA core
  EXPECT_TRUE(sink.get(8, IRQ_MCIP));
  EXPECT_EQ(sink.mip.size(), 1u);
}

TEST_F(SnitchTest, PrefetchEnableSwitchesTheICache) {
  wr(ICACHE_PREFETCH_ENABLE, 0x2, 8);
  EXPECT_FALSE(cluster.icache().prefetch());
  wr(ICACHE_PREFETCH_ENABLE, 1, 4);
  EXPECT_TRUE(cluster.icache().prefetch());
  wr(ICACHE_PREFETCH_ENABLE + 4, 0, 4);  // the reserved half
  EXPECT_TRUE(cluster.icache().prefetch());
}

// ---------------------------------------------------------------------------- counting events

InsnFacts alu(uint8_t rd, uint8_t rs1 = InsnFacts::kNone) { return {Exec::Alu, false, rd, {rs1, InsnFacts::kNone, InsnFacts::kNone}}; }
InsnFacts load(uint8_t rd, uint8_t rs1 = 10) { return {Exec::Load, false, rd, {rs1, InsnFacts::kNone, InsnFacts::kNone}}; }
InsnFacts fp(Exec e, uint8_t rd, uint8_t a, uint8_t b) { return {e, true, rd, {a, b, InsnFacts::kNone}}; }
constexpr uint8_t F(unsigned n) { return InsnFacts::kFp + n; }

// A known mix: 3 ALU results to rd != 0, one to x0, a store, 2 loads, a mul, an fadd.d and an fmv.x.d.
std::vector<InsnFacts> mix() {
  return {alu(5),  alu(6),  alu(0),  alu(7), {Exec::Store, false, InsnFacts::kNone, {10, 5, InsnFacts::kNone}},
          load(8), load(9), {Exec::Mul, false, 11, {8, 9, InsnFacts::kNone}, /*accelerator=*/true},
          fp(Exec::FpComp64, F(1), F(2), F(3)), fp(Exec::FpNonComp, 12, F(1), InsnFacts::kNone)};
}

// Counters 0-6 count the retired events of `hart`.
constexpr Metric kRetired[] = {Metric::RETIRED_INSTR,     Metric::RETIRED_I,     Metric::RETIRED_LOAD, Metric::RETIRED_ACC,
                               Metric::ISSUE_CORE_TO_FPU, Metric::ISSUE_FPU_SEQ, Metric::ISSUE_FPU};

TEST_F(SnitchTest, RetiredEventsOfAKnownMix) {
  for (unsigned i = 0; i < std::size(kRetired); i++) count(i, kRetired[i], 4);
  count(7, Metric::RETIRED_INSTR, 3);  // another hart: nothing
  uint64_t pc = kDram;
  for (const InsnFacts& f : mix()) cluster.retire(4, pc += 4, f, kDram + 0x100);
  // An FREP repeating the fadd.d 3 more times.
  for (int i = 0; i < 3; i++) cluster.sequence(4, mix()[8]);
  EXPECT_EQ(counter(0), 10u);
  EXPECT_EQ(counter(1), 3u);
  EXPECT_EQ(counter(2), 2u);
  EXPECT_EQ(counter(3), 2u);
  EXPECT_EQ(counter(4), 2u);
  EXPECT_EQ(counter(5), 5u);
  EXPECT_EQ(counter(6), 5u);
  EXPECT_EQ(counter(7), 0u);
}

TEST_F(SnitchTest, BlockCountsGiveThePerInstructionCounts) {
  for (unsigned i = 0; i < std::size(kRetired); i++) count(i, kRetired[i], 1);
  snitch::BlockCounts block;
  for (const InsnFacts& f : mix()) block.add(f);
  cluster.retire_block(1, block);
  cluster.retire_block(1, block);
  EXPECT_EQ(counter(0), 20u);
  EXPECT_EQ(counter(1), 6u);
  EXPECT_EQ(counter(2), 4u);
  EXPECT_EQ(counter(3), 4u);
  EXPECT_EQ(counter(4), 4u);
  EXPECT_EQ(counter(5), 4u);  // no FREP repeats here
  EXPECT_EQ(counter(6), 4u);
  EXPECT_EQ(cluster.cycle(1), 20u);
}

TEST_F(SnitchTest, HartSelectWrapsAroundTheCluster) {
  count(0, Metric::RETIRED_INSTR, 3 + kHarts);  // hart 3
  count(1, Metric::RETIRED_INSTR, 0xffff);      // 65535 % 9 = 6
  count(2, Metric::RETIRED_INSTR, 6);
  for (int i = 0; i < 5; i++) cluster.retire(3, kDram, alu(5));
  for (int i = 0; i < 7; i++) cluster.retire(6, kDram, alu(5));
  EXPECT_EQ(counter(0), 5u);
  EXPECT_EQ(counter(1), 7u);
  EXPECT_EQ(counter(2), 7u);
}

TEST_F(SnitchTest, ReservedMetricsCountNothing) {
  wr(PERF_CNT_SEL, sel(static_cast<Metric>(snitch::kNumMetrics), 0), 4);
  wr(PERF_CNT_SEL + 8, 0xffff0000, 4);
  for (unsigned i = 2; i < 16; i++) wr(PERF_CNT_EN + 8 * i, 0, 4);
  EXPECT_EQ(cluster.counters().selected(), 0u);
  for (int i = 0; i < 50; i++) cluster.retire(0, kDram + 4 * i, load(5), snitch::kTcdmBase);
  cluster.advance_to(1000);
  EXPECT_EQ(counter(0), 0u);
  EXPECT_EQ(counter(1), 0u);
}

TEST_F(SnitchTest, PayOnlyForWhatIsEnabled) {
  using snitch::bit;
  EXPECT_EQ(cluster.counters().selected(),
            bit(Metric::CYCLE) | bit(Metric::RETIRED_INSTR) | bit(Metric::TCDM_ACCESSED) | bit(Metric::ICACHE_MISS) |
                bit(Metric::ICACHE_HIT) | bit(Metric::ICACHE_PREFETCH) | bit(Metric::ICACHE_STALL));
  // Hart 1 has only the cluster-wide ones: the hart-local counters select hart 0.
  EXPECT_EQ(cluster.counters().selected(1), bit(Metric::CYCLE) | bit(Metric::TCDM_ACCESSED));
  for (unsigned i = 0; i < 16; i++) wr(PERF_CNT_EN + 8 * i, 0, 8);
  EXPECT_EQ(cluster.counters().selected(), 0u);
  wr(PERF_CNT_SEL + 8 * 4, sel(Metric::RETIRED_LOAD, 10), 8);
  wr(PERF_CNT_EN + 8 * 4, 1, 8);
  EXPECT_EQ(cluster.counters().selected(), bit(Metric::RETIRED_LOAD));
  EXPECT_EQ(cluster.counters().selected(1), bit(Metric::RETIRED_LOAD));
  EXPECT_EQ(cluster.counters().selected(0), 0u);
}

TEST_F(SnitchTest, CounterWrapsAt48Bits) {
  count(0, Metric::RETIRED_INSTR, 0);
  wr(PERF_CNT, 0xfffffffffffeull, 8);
  for (int i = 0; i < 3; i++) cluster.retire(0, kDram, alu(1));
  EXPECT_EQ(counter(0), 1u);
}

// Runs per-hart programs in cycle order, as a machine would. An op is an instruction, or the
// barrier CSR access (an ALU instruction followed by Cluster::barrier). Records each op's issue
// time (the cluster's time when it ran).
struct Op {
  uint64_t pc;
  InsnFacts f;
  uint64_t addr = 0;
  bool barrier = false;
};
std::vector<std::vector<uint64_t>> run(Cluster& c, const std::vector<std::vector<Op>>& programs) {
  std::vector<std::vector<uint64_t>> times(programs.size());
  size_t running = 0;
  for (const auto& p : programs) running += !p.empty();
  for (unsigned h = 0; h < c.harts(); h++) {
    if (h >= programs.size() || programs[h].empty()) c.wfi(h);  // nothing to run
  }
  std::vector<size_t> next(programs.size());
  while (running) {
    const unsigned h = c.next_hart();
    EXPECT_NE(h, Cluster::kNoHart);
    if (h == Cluster::kNoHart) break;
    const Op& op = programs[h][next[h]++];
    times[h].push_back(c.now());
    c.retire(h, op.pc, op.f, op.addr);
    if (op.barrier) c.barrier(h);
    if (next[h] == programs[h].size()) {
      running--;
      c.wfi(h);  // done: never runs again
    }
  }
  return times;
}

TEST_F(SnitchTest, CyclesCoverInstructionsAndStalls) {
  count(0, Metric::CYCLE);
  std::vector<std::vector<Op>> p(1);
  for (int i = 0; i < 100; i++) p[0].push_back({kDram + 4 * (i % 16), alu(0)});  // nops in one line
  p[0].push_back({kDram, alu(0)});
  run(cluster, p);
  // 100 nops after a refill from memory; CYCLE is read by the 101st instruction.
  EXPECT_EQ(counter(0), snitch::ICache::kRefillLatency + 100);
  wr(PERF_CNT_EN, 0, 4);
  cluster.advance_to(cluster.now() + 50);
  EXPECT_EQ(counter(0), snitch::ICache::kRefillLatency + 100);
  wr(PERF_CNT_EN, 1, 4);
  cluster.advance_to(cluster.now() + 7);
  EXPECT_EQ(counter(0), snitch::ICache::kRefillLatency + 107);
}

TEST_F(SnitchTest, LoadUseAndFpuLatencyStall) {
  const uint64_t pc = kDram;
  cluster.retire(0, pc, alu(0));  // the line's refill
  cluster.retire(1, pc, alu(0));
  const uint64_t start = cluster.cycle(0);
  ASSERT_EQ(cluster.cycle(1), start);
  // Hart 0: a TCDM load and its use; hart 1: the same load and an independent add.
  cluster.retire(0, pc + 4, load(5), snitch::kTcdmBase);
  cluster.retire(0, pc + 8, alu(6, 5));
  cluster.retire(1, pc + 4, load(5), snitch::kTcdmBase + 8);
  cluster.retire(1, pc + 8, alu(6, 7));
  EXPECT_EQ(cluster.cycle(0), start + 2 + (snitch::kTcdmLatency - 1));
  EXPECT_EQ(cluster.cycle(1), start + 2);
  // fadd.d, then fmv.x.d of its result, then a use of that integer: waits for both latencies
  // (the fmv issues the cycle after the fadd.d, so the use issues latency + latency after it).
  const uint64_t t = cluster.cycle(1);
  cluster.retire(1, pc + 12, fp(Exec::FpComp64, F(1), F(2), F(3)));
  cluster.retire(1, pc + 16, fp(Exec::FpNonComp, 12, F(1), InsnFacts::kNone));
  cluster.retire(1, pc + 20, alu(13, 12));
  EXPECT_EQ(cluster.cycle(1), t + snitch::exec_latency(Exec::FpComp64) + snitch::exec_latency(Exec::FpNonComp) + 1);
}

// Each hart warms its L0 with the code, meets the others at the barrier, then issues `loads`
// back-to-back loads to its bank of `banks`.
std::vector<std::vector<Op>> harts_loading(const std::vector<unsigned>& banks, int loads) {
  std::vector<std::vector<Op>> p(banks.size());
  for (unsigned h = 0; h < banks.size(); h++) {
    const uint64_t addr = snitch::kTcdmBase + 8 * banks[h] + 256 * h;
    for (int i = 0; i < loads; i++) p[h].push_back({kDram + 4 * i, alu(0)});
    p[h].push_back({kDram + 4 * loads, alu(0), 0, true});
    for (int i = 0; i < loads; i++) p[h].push_back({kDram + 4 * i, load(5), addr});
  }
  return p;
}

constexpr int kLoads = 8;

// TCDM_ACCESSED and TCDM_CONGESTED after harts_loading({bank0, bank1}, kLoads).
std::pair<uint64_t, uint64_t> tcdm_counts(snitch::Memory& memory, unsigned bank0, unsigned bank1) {
  Cluster two(2, memory);
  two.counters().set_select(0, sel(Metric::TCDM_ACCESSED, 0));
  two.counters().set_select(1, sel(Metric::TCDM_CONGESTED, 0));
  run(two, harts_loading({bank0, bank1}, kLoads));
  return {two.counters().value(0), two.counters().value(1)};
}

TEST_F(SnitchTest, SameBankConflictsAreExact) {
  // The bank grants one load per cycle: every load but hart 0's first waits one cycle.
  constexpr uint64_t kCongested = 2 * kLoads - 1;
  EXPECT_EQ(tcdm_counts(memory, 3, 3), std::make_pair(2 * kLoads + kCongested, kCongested));
  // Bank = address bits 7:3: 256 bytes apart is the same bank again.
  EXPECT_EQ(tcdm_counts(memory, 3, 3 + 32), std::make_pair(2 * kLoads + kCongested, kCongested));
}

TEST_F(SnitchTest, AThirdRequestWaitsTwoCycles) {
  // One load each from three harts in the same cycle to one bank: stalled 0, 1 and 2 cycles.
  Cluster three(3, memory);
  three.counters().set_select(0, sel(Metric::TCDM_ACCESSED, 0));
  three.counters().set_select(1, sel(Metric::TCDM_CONGESTED, 0));
  run(three, harts_loading({7, 7, 7}, 1));
  EXPECT_EQ(three.counters().value(0), 1u + 2 + 3);
  EXPECT_EQ(three.counters().value(1), 0u + 1 + 2);
}

TEST_F(SnitchTest, DifferentBanksDoNotConflict) {
  EXPECT_EQ(tcdm_counts(memory, 3, 4), std::make_pair(uint64_t{2 * kLoads}, uint64_t{0}));
  EXPECT_EQ(tcdm_counts(memory, 0, 31), std::make_pair(uint64_t{2 * kLoads}, uint64_t{0}));
}

TEST_F(SnitchTest, StreamConflictDelaysTheFpu) {
  Cluster two(2, memory);
  two.counters().set_select(1, sel(Metric::TCDM_CONGESTED, 0));
  for (unsigned h = 0; h < 2; h++) two.retire(h, kDram, alu(0));
  two.advance_to(two.cycle(0));
  // Both harts' SSR 0 reads bank 5 in the same cycle, then an fadd.d consumes the element and its
  // result goes to an integer register that is used: hart 1 ends one cycle behind.
  for (unsigned h = 0; h < 2; h++) {
    two.stream_access(h, snitch::kTcdmBase + 8 * 5);
    two.retire(h, kDram + 4, fp(Exec::FpComp64, F(1), F(0), F(2)));
    two.retire(h, kDram + 8, fp(Exec::FpNonComp, 12, F(1), InsnFacts::kNone));
    two.retire(h, kDram + 12, alu(13, 12));
  }
  EXPECT_EQ(two.counters().value(1), 1u);
  EXPECT_EQ(two.cycle(1), two.cycle(0) + 1);
}

TEST_F(SnitchTest, BarrierReleasesNoHartEarly) {
  std::vector<std::vector<Op>> p(kHarts);
  for (unsigned h = 0; h < kHarts; h++) {
    const int work = 1 + 7 * h;  // the DMA core (8) arrives last
    for (int i = 0; i < work; i++) p[h].push_back({kDram + 4 * (i % 16), alu(5)});
    p[h].push_back({kDram + 64, alu(0), 0, true});
    p[h].push_back({kDram + 68, alu(5)});
  }
  const auto times = run(cluster, p);
  uint64_t last_arrival = 0;
  for (unsigned h = 0; h < kHarts; h++) last_arrival = std::max(last_arrival, times[h][times[h].size() - 2]);
  EXPECT_EQ(last_arrival, times[8][times[8].size() - 2]);
  for (unsigned h = 0; h < kHarts; h++) {
    EXPECT_EQ(times[h].back(), last_arrival + 1) << "hart " << h;  // all leave together, none before
  }
}

TEST_F(SnitchTest, BarrierWaitersAreNotScheduled) {
  Cluster three(3, memory);
  three.retire(0, kDram, alu(0));
  three.barrier(0);
  EXPECT_TRUE(three.waiting(0));
  three.retire(1, kDram, alu(0));
  three.barrier(1);
  for (int i = 0; i < 100; i++) {
    ASSERT_EQ(three.next_hart(), 2u);
    three.retire(2, kDram + 4, alu(5));
  }
  EXPECT_TRUE(three.waiting(0));
  EXPECT_TRUE(three.waiting(1));
  three.barrier(2);  // hart 2's 100 instructions were not the barrier access
  EXPECT_FALSE(three.waiting(0));
  EXPECT_EQ(three.cycle(0), three.cycle(2));
  EXPECT_EQ(three.cycle(1), three.cycle(2));
}

TEST_F(SnitchTest, WfiWaitsForWake) {
  Cluster two(2, memory);
  two.retire(0, kDram, alu(0));
  two.wfi(0);
  for (int i = 0; i < 10; i++) {
    ASSERT_EQ(two.next_hart(), 1u);
    two.retire(1, kDram, alu(0));
  }
  two.wake(0);
  EXPECT_EQ(two.cycle(0), two.now() + 1);
  two.wfi(1);
  EXPECT_EQ(two.next_hart(), 0u);
}

// -------------------------------------------------------------------------------------- the DMA

struct DmaTest : SnitchTest {
  void SetUp() override {
    for (unsigned i = 0; i < 16; i++) count(i, static_cast<Metric>(static_cast<unsigned>(Metric::DMA_AW_STALL) + i));
    for (size_t i = 0; i < memory.dram.size(); i++) memory.dram[i] = static_cast<uint8_t>(i * 7 + 1);
  }
  uint64_t metric(Metric m) { return counter(static_cast<unsigned>(m) - static_cast<unsigned>(Metric::DMA_AW_STALL)); }
  // The handshakes counted so far (a B response per write burst) and the bytes written.
  void expect_handshakes(uint64_t ar, uint64_t aw, uint64_t r, uint64_t w, uint64_t w_bw) {
    EXPECT_EQ(metric(Metric::DMA_AR_DONE), ar);
    EXPECT_EQ(metric(Metric::DMA_AW_DONE), aw);
    EXPECT_EQ(metric(Metric::DMA_B_DONE), aw);
    EXPECT_EQ(metric(Metric::DMA_R_DONE), r);
    EXPECT_EQ(metric(Metric::DMA_W_DONE), w);
    EXPECT_EQ(metric(Metric::DMA_W_BW), w_bw);
  }
  // A 1-D copy issued at the cluster's time, run to completion.
  uint32_t copy(uint64_t dst, uint64_t src, uint32_t size) {
    Dma& dma = cluster.dma();
    dma.set_source(src);
    dma.set_destination(dst);
    const uint32_t id = dma.copy(cluster.now(), size, 0);
    finish();
    return id;
  }
  void finish() {
    while (cluster.dma().status(Dma::kBusy)) cluster.advance_to(cluster.now() + 1);
  }
  bool moved(uint64_t dst, uint64_t src, uint64_t size) {
    return std::memcmp(memory.at(dst, size), memory.at(src, size), size) == 0;
  }
};

TEST_F(DmaTest, AlignedCopyIsOneBurstEachWay) {
  const uint64_t dst = snitch::kTcdmBase + 0x400;
  EXPECT_EQ(copy(dst, kDram + 0x1000, 64), 1u);
  EXPECT_TRUE(moved(dst, kDram + 0x1000, 64));
  expect_handshakes(1, 1, 1, 1, 64);
  EXPECT_EQ(metric(Metric::DMA_AR_BW), 64u);
  // The model's schedule (docs/snitch.md, "DMA"): AR in the cycle after DMCPY, data from DRAM
  // kAxiLatency later, written the cycle after, acknowledged by the TCDM kTcdmLatency later.
  EXPECT_EQ(metric(Metric::DMA_R_STALL), snitch::kAxiLatency);
  EXPECT_EQ(metric(Metric::DMA_BUF_W_STALL), snitch::kAxiLatency + 1);
  EXPECT_EQ(metric(Metric::DMA_BUSY), snitch::kAxiLatency + 2 + snitch::kTcdmLatency);
  for (Metric m : {Metric::DMA_AW_STALL, Metric::DMA_AR_STALL, Metric::DMA_W_STALL, Metric::DMA_BUF_R_STALL}) {
    EXPECT_EQ(metric(m), 0u);
  }
  EXPECT_EQ(cluster.dma().status(Dma::kCompletedId), 1u);
  EXPECT_EQ(cluster.dma().status(Dma::kNextId), 2u);
  EXPECT_EQ(cluster.dma().status(Dma::kWouldBlock), 0u);
  EXPECT_EQ(cluster.dma().status(17), 0u);
}

TEST_F(DmaTest, MisalignedSourceReadsTwoBeats) {
  const uint64_t dst = snitch::kTcdmBase;
  copy(dst, kDram + 32, 64);
  EXPECT_TRUE(moved(dst, kDram + 32, 64));
  expect_handshakes(1, 1, 2, 1, 64);
  EXPECT_EQ(metric(Metric::DMA_R_BW), 128u);
  EXPECT_EQ(metric(Metric::DMA_AR_BW), 128u);
}

TEST_F(DmaTest, BurstsSplitAt4KiB) {
  const uint64_t src = kDram + 0x1000 - 64, dst = snitch::kTcdmBase + 0x2000 - 32;
  copy(dst, src, 256);
  EXPECT_TRUE(moved(dst, src, 256));
  expect_handshakes(2, 2, 4, 5, 256);
}

// The counts NOTES' formulas give, for copies at every mix of alignments.
TEST_F(DmaTest, HandshakesFollowTheFormulas) {
  auto pages = [](uint64_t a, uint64_t n) { return (a + n - 1) / 4096 - a / 4096 + 1; };
  auto beats = [](uint64_t a, uint64_t n) { return (a + n - 1) / 64 - a / 64 + 1; };
  for (uint64_t s : {0ull, 8ull, 63ull, 4090ull}) {
    for (uint64_t d : {0ull, 1ull, 32ull, 4032ull}) {
      for (uint32_t n : {1u, 64u, 100u, 5000u}) {
        for (unsigned i = 0; i < 16; i++) wr(PERF_CNT + 8 * i, 0, 8);
        const uint64_t src = kDram + s, dst = snitch::kTcdmBase + 0x8000 + d;
        copy(dst, src, n);
        SCOPED_TRACE(testing::Message() << "src +" << s << " dst +" << d << " size " << n);
        EXPECT_TRUE(moved(dst, src, n));
        expect_handshakes(pages(src, n), pages(dst, n), beats(src, n), beats(dst, n), n);
      }
    }
  }
}

TEST_F(DmaTest, TwoDimensionalCopyGathersRows) {
  Dma& dma = cluster.dma();
  const uint64_t src = kDram + 0x100, dst = snitch::kTcdmBase + 0x40;
  dma.set_source(src);
  dma.set_destination(dst);
  dma.set_strides(96, 40);
  dma.set_repetitions(5);
  EXPECT_EQ(dma.copy(cluster.now(), 16, Dma::kConfig2d), 1u);
  finish();
  for (int row = 0; row < 5; row++) EXPECT_TRUE(moved(dst + 40 * row, src + 96 * row, 16)) << row;
  EXPECT_EQ(memory.tcdm[0x40 + 16], 0u);  // between the rows: untouched
  expect_handshakes(5, 5, 5, 5 + 1, 80);  // the row at 0x40 + 3 * 40 crosses a beat
}

TEST_F(DmaTest, IdsAndAFullQueueStallTheHart) {
  const unsigned kDmaCore = 8;
  Dma& dma = cluster.dma();
  dma.set_source(kDram);
  dma.set_destination(snitch::kTcdmBase);
  for (unsigned h = 0; h < kDmaCore; h++) cluster.wfi(h);
  for (uint32_t i = 1; i <= Dma::kQueueDepth; i++) {
    ASSERT_EQ(cluster.next_hart(), kDmaCore);
    cluster.retire(kDmaCore, kDram, alu(5));
    EXPECT_EQ(cluster.dma_copy(kDmaCore, 1024, 0), i);
    EXPECT_FALSE(cluster.waiting(kDmaCore));
  }
  EXPECT_EQ(dma.status(Dma::kWouldBlock), 1u);
  cluster.retire(kDmaCore, kDram, alu(5));
  EXPECT_EQ(cluster.dma_copy(kDmaCore, 1024, 0), Dma::kQueueDepth + 1);
  EXPECT_TRUE(cluster.waiting(kDmaCore));
  // Only the DMA's first completion lets the DMA core go on.
  EXPECT_EQ(cluster.next_hart(), kDmaCore);
  EXPECT_EQ(dma.status(Dma::kCompletedId), 1u);
  EXPECT_EQ(cluster.cycle(kDmaCore), cluster.now());
  EXPECT_TRUE(moved(snitch::kTcdmBase, kDram, 1024));
}

TEST_F(DmaTest, HostileTransfersNeitherHangNorEscape) {
  Dma& dma = cluster.dma();
  dma.set_source(~0ull - 100);  // wraps around the address space, into nothing
  dma.set_destination(snitch::kTcdmBase);
  dma.set_strides(~0ull, ~0ull);
  dma.set_repetitions(0xffffffff);
  dma.copy(0, 0xffffffff, Dma::kConfig2d);
  cluster.advance_to(10000);  // runs 10000 cycles of a transfer that never ends
  EXPECT_EQ(dma.status(Dma::kBusy), 1u);
  EXPECT_GT(dma.bus_errors(), 0u);
  EXPECT_EQ(memory.tcdm[0], 0u);  // what failed to read is written as zeros
  EXPECT_LE(metric(Metric::DMA_BUSY), 10000u);
  // An empty transfer completes.
  Dma empty(cluster.counters(), memory);
  empty.copy(0, 0, 0);
  empty.run(5);
  EXPECT_EQ(empty.status(Dma::kCompletedId), 1u);
  EXPECT_EQ(empty.status(Dma::kBusy), 0u);
}

// ---------------------------------------------------------------------------- the icache

struct ICacheTest : SnitchTest {
  void SetUp() override {
    count(0, Metric::ICACHE_MISS);
    count(1, Metric::ICACHE_HIT);
    count(2, Metric::ICACHE_PREFETCH);
    count(3, Metric::ICACHE_DOUBLE_HIT);
    count(4, Metric::ICACHE_STALL);
  }
  // A loop of `lines` cache lines of 4-byte instructions, run `iterations` times by hart 0.
  void loop(unsigned lines, unsigned iterations) {
    for (unsigned it = 0; it < iterations; it++) {
      for (uint64_t pc = kDram; pc < kDram + 64 * lines; pc += 4) cluster.retire(0, pc, alu(5));
    }
  }
};

constexpr uint64_t kRefill = snitch::ICache::kRefillLatency;

TEST_F(ICacheTest, LoopInL0WithoutPrefetch) {
  wr(ICACHE_PREFETCH_ENABLE, 0, 4);
  loop(4, 10);
  EXPECT_EQ(counter(0), 4u);
  EXPECT_EQ(counter(1), 640u - 4);
  EXPECT_EQ(counter(2), 0u);
  EXPECT_EQ(counter(3), 0u);
  EXPECT_EQ(counter(4), 4 * kRefill);  // each line once, from memory
}

TEST_F(ICacheTest, LoopInL0WithPrefetch) {
  loop(4, 10);
  EXPECT_EQ(counter(0), 1u);
  EXPECT_EQ(counter(1), 640u - 1);
  EXPECT_EQ(counter(2), 4u);  // lines 1-3, and line 4 after the loop
  // Line 0 waits for memory; each next line was asked for when its predecessor arrived, and waits
  // for the rest of its refill after the 16 instructions of that line.
  EXPECT_EQ(counter(4), kRefill + 3 * (kRefill - 16));
}

TEST_F(ICacheTest, LoopPastL0WithoutPrefetch) {
  wr(ICACHE_PREFETCH_ENABLE, 0, 4);
  loop(12, 3);
  EXPECT_EQ(counter(0), 36u);  // FIFO over 8 lines: every line misses every time
  EXPECT_EQ(counter(1), 3 * 192u - 36);
  EXPECT_EQ(counter(2), 0u);
  // The first pass refills from memory, the others hit the L1.
  EXPECT_EQ(counter(4), 12 * kRefill + 24 * snitch::ICache::kL1HitLatency);
}

TEST_F(ICacheTest, LoopPastL0WithPrefetch) {
  loop(12, 3);
  EXPECT_EQ(counter(0), 3u);  // only the jump back to the loop's head
  EXPECT_EQ(counter(1), 3 * 192u - 3);
  EXPECT_EQ(counter(2), 36u);
}

TEST_F(ICacheTest, EarlyTagDoubleHit) {
  wr(ICACHE_PREFETCH_ENABLE, 0, 4);
  cluster.retire(0, kDram + 0x40, alu(5));
  cluster.retire(0, kDram + 0x1040, alu(5));  // the same offset in the next page: the early tags match
  EXPECT_EQ(counter(3), 0u);
  cluster.retire(0, kDram + 0x40, alu(5));
  EXPECT_EQ(counter(3), 1u);
  EXPECT_EQ(counter(0), 2u);
  EXPECT_EQ(counter(1), 1u);
  cluster.retire(0, kDram + 0x80, alu(5));  // another early tag
  EXPECT_EQ(counter(3), 1u);
}

TEST_F(ICacheTest, HartsHaveTheirOwnL0) {
  count(5, Metric::ICACHE_MISS, 1);
  wr(ICACHE_PREFETCH_ENABLE, 0, 4);
  cluster.retire(0, kDram, alu(5));
  cluster.retire(1, kDram, alu(5));
  cluster.retire(1, kDram, alu(5));
  EXPECT_EQ(counter(0), 1u);
  EXPECT_EQ(counter(5), 1u);
  // Hart 1's miss found the line hart 0 brought into the L1.
  EXPECT_EQ(counter(4), kRefill);
}

// ------------------------------------------------------------------------------------ SSR walks

// An indirect stream's elements, fetching index words from `mem` (at word address - base) as the
// SSR asks for them; `fetches` collects the index words' addresses.
std::vector<uint32_t> walk(snitch::Ssr& s, const std::vector<uint8_t>& mem, uint32_t base, unsigned n,
                           std::vector<uint32_t>& fetches) {
  std::vector<uint32_t> out;
  for (unsigned i = 0; i < n && s.can(false); i++) {
    if (const auto at = s.index_fetch()) {
      fetches.push_back(*at);
      uint64_t w = 0;
      std::memcpy(&w, &mem[*at - base], 8);
      s.index_word(w);
    }
    out.push_back(s.next());
  }
  return out;
}

TEST(SnitchSsr, IndirectGatherWithIndexSizesAndShift) {
  constexpr uint32_t kIdx = 0x10002000, kData = 0x10001000;
  std::vector<uint8_t> mem(64);
  const uint16_t i16[6] = {5, 0, 63, 7, 7, 12};
  std::memcpy(&mem[0], i16, sizeof i16);
  snitch::Ssr s(true);
  s.write(snitch::Ssr::kIdxCfg, 1);  // 16-bit indices, shift 0
  s.write(snitch::Ssr::kIdxBase, kData);
  s.write(snitch::Ssr::kBound0, 5);
  ASSERT_TRUE(s.can_write(snitch::Ssr::kIndirStart));
  s.write(snitch::Ssr::kIndirStart, kIdx);
  EXPECT_EQ(s.read(0), snitch::Ssr::kIndir | (kIdx & snitch::Ssr::kPointerMask));
  std::vector<uint32_t> fetches;
  const auto got = walk(s, mem, kIdx, 10, fetches);
  ASSERT_EQ(got.size(), 6u);
  for (unsigned k = 0; k < 6; k++) EXPECT_EQ(got[k], kData + 8 * i16[k]) << k;
  // Four 16-bit indices a word: two words, each fetched once.
  EXPECT_EQ(fetches, (std::vector<uint32_t>{kIdx, kIdx + 8}));
  EXPECT_EQ(s.read(0), snitch::Ssr::kDone | snitch::Ssr::kIndir | ((kIdx + 8) & snitch::Ssr::kPointerMask));

  // 8-bit indices from byte 6 of a word, shift 2 (32-byte elements): words 0 and 1.
  const uint8_t i8[4] = {1, 2, 3, 4};
  std::memcpy(&mem[6], i8, 4);
  s.write(snitch::Ssr::kIdxCfg, 0x200);
  s.write(snitch::Ssr::kBound0, 3);
  s.write(snitch::Ssr::kIndirStart, kIdx + 6);
  fetches.clear();
  EXPECT_EQ(walk(s, mem, kIdx, 10, fetches),
            (std::vector<uint32_t>{kData + 32, kData + 64, kData + 96, kData + 128}));
  EXPECT_EQ(fetches, (std::vector<uint32_t>{kIdx, kIdx + 8}));

  // 32-bit indices with repeat 2: each element three times, one fetch per word.
  const uint32_t i32[3] = {9, 1, 100};
  std::memcpy(&mem[16], i32, sizeof i32);
  s.write(snitch::Ssr::kIdxCfg, 2);
  s.write(snitch::Ssr::kRepeat, 2);
  s.write(snitch::Ssr::kBound0, 2);
  s.write(snitch::Ssr::kIndirStart + 1, kIdx + 16);  // 2-D: the same walk, dims 1 in the status
  EXPECT_EQ(s.read(0) >> snitch::Ssr::kDimsShift & 3, 1u);
  fetches.clear();
  EXPECT_EQ(walk(s, mem, kIdx, 20, fetches),
            (std::vector<uint32_t>{kData + 72, kData + 72, kData + 72, kData + 8, kData + 8, kData + 8,
                                   kData + 800, kData + 800, kData + 800}));
  EXPECT_EQ(fetches, (std::vector<uint32_t>{kIdx + 16, kIdx + 24}));
}

TEST(SnitchSsr, IndirectWritesIgnoreRepeat) {
  constexpr uint32_t kIdx = 0x10002000;
  std::vector<uint8_t> mem(16);
  const uint64_t i64[2] = {3, 2};
  std::memcpy(&mem[0], i64, sizeof i64);
  snitch::Ssr s(true);
  s.write(snitch::Ssr::kIdxCfg, 3 | 1 << 8);  // 64-bit indices, 16-byte elements
  s.write(snitch::Ssr::kRepeat, 4);
  s.write(snitch::Ssr::kBound0, 1);
  s.write(snitch::Ssr::kIndirStart + 4, kIdx);
  EXPECT_EQ(s.read(0), snitch::Ssr::kWrite | snitch::Ssr::kIndir | (kIdx & snitch::Ssr::kPointerMask));
  EXPECT_TRUE(s.can(true));
  std::vector<uint32_t> fetches;
  std::vector<uint32_t> got;
  while (s.can(true)) {
    if (const auto at = s.index_fetch()) {
      fetches.push_back(*at);
      uint64_t w;
      std::memcpy(&w, &mem[*at - kIdx], 8);
      s.index_word(w);
    }
    got.push_back(s.next());
  }
  EXPECT_EQ(got, (std::vector<uint32_t>{48, 32}));  // idx_base 0
  EXPECT_EQ(fetches, (std::vector<uint32_t>{kIdx, kIdx + 8}));
}

TEST(SnitchSsr, ConfigWordsAndIllegalStarts) {
  snitch::Ssr gather(true), slave(false);
  gather.write(snitch::Ssr::kIdxCfg, 0xfffffff5);
  EXPECT_EQ(gather.read(snitch::Ssr::kIdxCfg), 0x10701u);  // size 1:0, shift 10:8, merge 16
  gather.write(snitch::Ssr::kIdxBase, 0x1000000f);
  EXPECT_EQ(gather.read(snitch::Ssr::kIdxBase), 0x10000008u);
  EXPECT_EQ(gather.read(0), snitch::Ssr::kDone);  // nothing started
  for (unsigned w = 16; w < 24; w++) {
    EXPECT_EQ(gather.can_write(w), (w & 3) < 2) << w;  // dims 3-4 are the intersector's
    EXPECT_FALSE(slave.can_write(w)) << w;
  }
  for (unsigned w = 24; w < 32; w++) EXPECT_TRUE(slave.can_write(w)) << w;
  // An affine start after an indirect one clears the indirection.
  gather.write(snitch::Ssr::kIndirStart, 0x10000000);
  gather.write(snitch::Ssr::kStart, 0x10000100);
  EXPECT_EQ(gather.read(0), 0x100u);
  EXPECT_FALSE(gather.index_fetch());
}

// ------------------------------------------------------------------- facts of decoded instructions

TEST(SnitchFacts, OfDecodedInstructions) {
  constexpr uint8_t N = InsnFacts::kNone;
  constexpr uint8_t a0 = 10, a1 = 11, a2 = 12, a3 = 13, a4 = 14;
  struct Case {
    uint32_t raw;
    const char* text;
    InsnFacts facts;
  };
  const Case cases[] = {
      {0x00853087, "fld ft1, 8(a0)", {Exec::Load, true, F(1), {a0, N, N}}},
      {0x0025b827, "fsd ft2, 16(a1)", {Exec::Store, true, N, {a1, F(2), N}}},
      {0x6ac5f543, "fmadd.d fa0, fa1, fa2, fa3", {Exec::FpComp64, true, F(10), {F(11), F(12), F(13)}}},
      {0xc205f553, "fcvt.w.d a0, fa1", {Exec::FpConv, true, a0, {F(11), N, N}}},
      {0xa2d625d3, "feq.d a1, fa2, fa3", {Exec::FpNonComp, true, a1, {F(12), F(13), N}}},
      {0xf2060053, "fmv.d.x ft0, a2", {Exec::FpNonComp, true, F(0), {a2, N, N}}},
      {0x5a0170d3, "fsqrt.d ft1, ft2", {Exec::FpDivSqrt, true, F(1), {F(2), N, N}}},
      {0x42058553, "fcvt.d.s fa0, fa1", {Exec::FpConv, true, F(10), {F(11), N, N}}},
      {0x00c5f553, "fadd.s fa0, fa1, fa2", {Exec::FpComp32, true, F(10), {F(11), F(12), N}}},
      {0x02c58533, "mul a0, a1, a2", {Exec::Mul, false, a0, {a1, a2, N}}},
      {0x02c5d533, "divu a0, a1, a2", {Exec::Div, false, a0, {a1, a2, N}}},
      {0x4314, "c.lw a3, 0(a4)", {Exec::Load, false, a3, {a4, N, N}}},
      {0xc354, "c.sw a3, 4(a4)", {Exec::Store, false, N, {a4, a3, N}}},
      {0x00b6252f, "amoadd.w a0, a1, (a2)", {Exec::Load, false, a0, {a2, a1, N}}},
      {0x18b6252f, "sc.w a0, a1, (a2)", {Exec::Load, false, a0, {a2, a1, N}}},
      {0x0001, "c.nop", {Exec::Alu, false, 0, {0, N, N}}},
      {0x008000ef, "jal ra, .+8", {Exec::Alu, false, 1, {N, N, N}}},
      {0x00b50463, "beq a0, a1, .+8", {Exec::Alu, false, N, {a0, a1, N}}},
      {0x7c202573, "csrr a0, 0x7c2", {Exec::Alu, false, a0, {0, N, N}}},
  };
  for (const Case& c : cases) {
    const InsnFacts f = snitch_facts(decode(c.raw, IsaConfig{}));
    EXPECT_EQ(f.exec, c.facts.exec) << c.text;
    EXPECT_EQ(f.fp_subsystem, c.facts.fp_subsystem) << c.text;
    EXPECT_EQ(f.dst, c.facts.dst) << c.text;
    EXPECT_EQ(f.src, c.facts.src) << c.text;
  }
  // What they count: fcvt.w.d and feq.d write GPRs from the FP subsystem, sc.w as a load.
  using snitch::bit;
  EXPECT_EQ(snitch::retired_events(snitch_facts(decode(0xc205f553, IsaConfig{}))),
            bit(Metric::RETIRED_INSTR) | bit(Metric::RETIRED_ACC) | bit(Metric::ISSUE_CORE_TO_FPU) |
                bit(Metric::ISSUE_FPU) | bit(Metric::ISSUE_FPU_SEQ));
  EXPECT_EQ(snitch::retired_events(snitch_facts(decode(0x18b6252f, IsaConfig{}))),
            bit(Metric::RETIRED_INSTR) | bit(Metric::RETIRED_LOAD));
  EXPECT_EQ(snitch::retired_events(snitch_facts(decode(0x0001, IsaConfig{}))), bit(Metric::RETIRED_INSTR));
  // Results over the accelerator interface: MUL/DIV, Xdma's and the SSR configuration's reads.
  IsaConfig cluster;
  for (Ext e : {Ext::Xdma, Ext::Xssr, Ext::Xfrep}) cluster.on.set(static_cast<size_t>(e));
  const uint32_t acc[] = {0x02c58533,   // mul a0, a1, a2
                          0x0425852b,   // dmcpyi a0, a1, 2
                          0x06b5852b,   // dmcpy a0, a1, a1
                          0x0830052b,   // dmstati a0, 3
                          0x0ab0052b,   // dmstat a0, a1
                          0x0200152b,   // scfgri a0, 32
                          0x00b0952b};  // scfgr a0, a1
  for (uint32_t raw : acc) {
    const Insn in = decode(raw, cluster);
    ASSERT_NE(in.op, brisk::Op::ILLEGAL) << std::hex << raw;
    EXPECT_TRUE(snitch_facts(in).accelerator) << std::hex << raw;
    EXPECT_EQ(snitch::retired_events(snitch_facts(in)), bit(Metric::RETIRED_INSTR) | bit(Metric::RETIRED_ACC))
        << std::hex << raw;
  }
  // ... to x0 they count as retired only; dmsrc and scfgwi write no register.
  for (uint32_t raw : {0x0425802bu /* dmcpyi x0, a1, 2 */, 0x00b5002bu /* dmsrc a0, a1 */,
                       0x3ff5202bu /* scfgwi a0, 1023 */})
    EXPECT_EQ(snitch::retired_events(snitch_facts(decode(raw, cluster))), bit(Metric::RETIRED_INSTR)) << std::hex << raw;
}

}  // namespace
}  // namespace brisk
