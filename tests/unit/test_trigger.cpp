// Sdtrig's interface to the rest of brisk (csr/trigger.h): what an observer sees when triggers
// fire, the translation key bits, and the execute epoch that drops stale translations.
#include <gtest/gtest.h>

#include <vector>

#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/trigger.h"
#include "csr_harness.h"

namespace brisk::test {
namespace {

using namespace trigger;

class Triggers : public CsrTest {
 protected:
  std::vector<Match> seen;

  void SetUp() override {
    CsrTest::SetUp();
    h.csr.mstatus |= csr::MSTATUS_MIE;  // M-mode triggers need it
    h.csr.triggers.observer = {[](void* ctx, const Hart&, const Match& m) {
                                 static_cast<std::vector<Match>*>(ctx)->push_back(m);
                               },
                               &seen};
  }
  void set(unsigned n, uint64_t tdata1, uint64_t tdata2) {
    m_write(csr::CSR_TSELECT, n);
    m_write(csr::CSR_TDATA1, 0);
    m_write(csr::CSR_TDATA2, tdata2);
    m_write(csr::CSR_TDATA1, tdata1);
  }
};

constexpr uint64_t kMc6 = kTypeMcontrol6 << type_shift(64);

TEST_F(Triggers, ObserverSeesWhichTriggersMatchedWhere) {
  set(1, kMc6 | MC6_M | MC6_STORE | MC6_LOAD | MC6_CHAIN, 0x1000);
  set(2, kMc6 | MC6_M | MC6_STORE | MC6_SIZE, 0x1000);  // size 7 is reserved: disabled
  EXPECT_EQ(h.csr.triggers.t[2].tdata1, disabled(64));
  set(2, kMc6 | MC6_M | MC6_STORE | uint64_t(8) << MC6_MATCH_SHIFT, 0x2000);
  h.pc = 0x8000;
  EXPECT_TRUE(check_access(h, 0x0ffc, 8, trigger::kLoad));  // trigger 1 matches, the chain's end does not
  EXPECT_TRUE(seen.empty());
  EXPECT_FALSE(check_access(h, 0x0ffc, 8, trigger::kStore));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].pc, 0x8000u);
  EXPECT_EQ(seen[0].address, 0x0ffcu);
  EXPECT_EQ(seen[0].triggers, 0b110u);
  EXPECT_EQ(seen[0].access, trigger::kStore);
  EXPECT_EQ(h.trap.cause, cause::kBreakpoint);
  EXPECT_EQ(h.trap.tval, 0x0ffcu);
  EXPECT_TRUE(h.csr.triggers.t[1].tdata1 & MC6_HIT0);
  EXPECT_TRUE(h.csr.triggers.t[2].tdata1 & MC6_HIT0);
  EXPECT_FALSE(h.csr.triggers.t[0].tdata1 & MC6_HIT0);

  set(0, kMc6 | MC6_M | MC6_EXECUTE, 0x8000);
  EXPECT_TRUE(fires_on_execute(h, 0x8000, 4));
  EXPECT_TRUE(seen.size() == 1) << "fires_on_execute has no side effects";
  EXPECT_TRUE(fire_execute(h, 4));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].pc, 0x8000u);
  EXPECT_EQ(seen[1].address, 0x8000u);
  EXPECT_EQ(seen[1].triggers, 0b1u);
  EXPECT_EQ(seen[1].access, trigger::kExecute);
}

TEST_F(Triggers, TranslationKeyFollowsModeAndMie) {
  EXPECT_EQ(translation_key(h), 0u);
  set(0, kMc6 | MC6_M | MC6_EXECUTE, 0x8000);
  EXPECT_EQ(translation_key(h), kKeyExecute);
  set(3, kMc6 | MC6_U | MC6_LOAD, 0x100);
  EXPECT_EQ(translation_key(h), kKeyExecute);
  h.csr.mstatus &= ~csr::MSTATUS_MIE;
  EXPECT_EQ(translation_key(h), 0u);
  h.priv = Priv::U;
  EXPECT_EQ(translation_key(h), kKeyMemory);
  h.priv = Priv::M;
}

TEST_F(Triggers, ExecuteEpochChangesWithConfigurationWhileExecuteTriggersAreArmed) {
  set(1, kMc6 | MC6_M | MC6_LOAD, 0x100);  // no execute trigger: translations do not depend on it
  EXPECT_EQ(h.csr.triggers.exec_epoch, 0u);
  set(0, kMc6 | MC6_M | MC6_EXECUTE, 0x8000);
  const uint64_t e = h.csr.triggers.exec_epoch;
  EXPECT_NE(e, 0u);
  m_write(csr::CSR_TDATA1, kMc6 | MC6_M | MC6_EXECUTE | MC6_HIT0);  // hit bits are not configuration
  EXPECT_EQ(h.csr.triggers.exec_epoch, e);
  // Trigger 1 is no execute trigger, but chaining it to trigger 2 could change where a chain of
  // execute triggers fires.
  m_write(csr::CSR_TSELECT, 1);
  m_write(csr::CSR_TDATA1, kMc6 | MC6_M | MC6_LOAD | MC6_CHAIN);
  const uint64_t e2 = h.csr.triggers.exec_epoch;
  EXPECT_NE(e2, e);
  m_write(csr::CSR_TSELECT, 0);
  m_write(csr::CSR_TDATA2, 0x8004);
  EXPECT_NE(h.csr.triggers.exec_epoch, e2);
  m_write(csr::CSR_TDATA1, 0);  // disarming is a change too
  const uint64_t e3 = h.csr.triggers.exec_epoch;
  EXPECT_NE(e3, e2);
  m_write(csr::CSR_TSELECT, 1);
  m_write(csr::CSR_TDATA2, 0x200);  // and now none is armed
  EXPECT_EQ(h.csr.triggers.exec_epoch, e3);
}

// An RV32 hart (csr::set_isa lays its triggers out again): type at bits 31:28, the CSR path's 32
// bits of a write, and the masks on 16-bit halves, as the interpreter and the block plan ask.
TEST_F(Triggers, Rv32HartsHaveTheRv32Layout) {
  IsaConfig rv32;
  rv32.apply("rv32");
  csr::set_isa(h, rv32);
  for (const Trigger& t : h.csr.triggers.t) EXPECT_EQ(t.tdata1, 0xf000'0000u);
  constexpr uint64_t kMc6Rv32 = kTypeMcontrol6 << type_shift(32);
  // Mask high: 0x8000 in the high half.
  set(0, kMc6Rv32 | MC6_M | MC6_LOAD | 5 << MC6_MATCH_SHIFT, 0xffff'8000);
  EXPECT_EQ(h.csr.triggers.t[0].tdata1, 0x6000'0000u | MC6_M | MC6_LOAD | 5 << MC6_MATCH_SHIFT);
  EXPECT_TRUE(check_access(h, 0x9000'1234, 4, trigger::kLoad));
  EXPECT_TRUE(seen.empty());
  EXPECT_FALSE(check_access(h, 0x8000'1234, 4, trigger::kLoad));
  EXPECT_EQ(h.trap.tval, 0x8000'1234u);
  // Mask low on the pc: 0x0100 with bit 1 ignored.
  set(1, kMc6Rv32 | MC6_M | MC6_EXECUTE | 4 << MC6_MATCH_SHIFT, 0xfffd'0100);
  EXPECT_TRUE(fires_on_execute(h, 0x8000'0102, 2));
  EXPECT_FALSE(fires_on_execute(h, 0x8000'0104, 4));
  // Type 6 at RV64's bits is, in 32 bits, type 0: the trigger is disabled.
  m_write(csr::CSR_TDATA1, kMc6 | MC6_M | MC6_EXECUTE);
  EXPECT_EQ(h.csr.triggers.t[1].tdata1, disabled(32));
  EXPECT_EQ(h.csr.triggers.exec, 0u);
}

TEST_F(Triggers, WithoutSdtrigThereIsNoTrigger) {
  isa("sdtrig=off");
  m_write(csr::CSR_TSELECT, 1);
  EXPECT_EQ(m_read(csr::CSR_TSELECT), 0u);
  m_write(csr::CSR_TDATA1, kMc6 | MC6_M | MC6_EXECUTE);
  EXPECT_EQ(m_read(csr::CSR_TDATA1), 0u);  // type 0: no trigger
  EXPECT_EQ(h.csr.triggers.exec, 0u);
  for (uint16_t n : {csr::CSR_TDATA2, csr::CSR_TDATA3, csr::CSR_TINFO}) {
    EXPECT_TRUE(Illegal(read(n))) << n;
    EXPECT_TRUE(Illegal(write(n, 0))) << n;
  }
}

}  // namespace
}  // namespace brisk::test
