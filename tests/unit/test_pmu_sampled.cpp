// brisk record's event counting (csr/pmu.h set_sampled): the recorder's events are counted in every
// mode, and the guest's counters cannot tell.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "csr/csr.h"
#include "csr/pmu.h"
#include "runtime/hart.h"

namespace brisk {
namespace {

class PmuSampled : public ::testing::Test {
 protected:
  Hart h;
  void SetUp() override { csr::reset(h); }
  void branches_in(Priv p, unsigned n) {
    h.priv = p;
    pmu::count(h, pmu::kBranches, n);
  }
};

TEST_F(PmuSampled, CountsInEveryModeWithoutACounter) {
  branches_in(Priv::U, 5);
  EXPECT_EQ(pmu::event_total(h, pmu::kBranches), 0u) << "nothing counts branches yet";
  pmu::set_sampled(h, 1u << pmu::kBranches);
  EXPECT_EQ(h.deadline, 0u) << "the translation key changed: translated code must stop";
  branches_in(Priv::U, 5);
  branches_in(Priv::S, 3);
  branches_in(Priv::M, 2);
  EXPECT_EQ(pmu::event_total(h, pmu::kBranches), 10u);
  EXPECT_EQ(pmu::event_total(h, pmu::kLoads), 0u);
}

TEST_F(PmuSampled, GuestCounterSeesOnlyItsOwnModesAndWrites) {
  // hpmcounter3 counts branches in M only, from 100.
  pmu::set_config(h, 3, pmu::kBranches | pmu::EVENT_UINH | pmu::EVENT_SINH);
  pmu::set_counter(h, 3, 100);
  pmu::set_sampled(h, 1u << pmu::kBranches);
  branches_in(Priv::U, 7);
  branches_in(Priv::S, 4);
  EXPECT_EQ(pmu::counter(h, 3), 100u);
  branches_in(Priv::M, 2);
  EXPECT_EQ(pmu::counter(h, 3), 102u);
  EXPECT_EQ(pmu::event_total(h, pmu::kBranches), 13u);
  // A counter the guest sets up later starts from what it wrote, whatever was counted before.
  pmu::set_config(h, 4, pmu::kBranches);
  pmu::set_counter(h, 4, 0);
  branches_in(Priv::U, 1);
  EXPECT_EQ(pmu::counter(h, 4), 1u);
  EXPECT_EQ(pmu::counter(h, 3), 102u);
}

TEST_F(PmuSampled, SamplingSurvivesTheGuestsCounterChanges) {
  pmu::set_sampled(h, 1u << pmu::kCalls);
  pmu::set_config(h, 3, pmu::kLoads);
  pmu::set_inhibit(h, 1u << 3);
  h.priv = Priv::U;
  EXPECT_TRUE(pmu::active_events(h, static_cast<unsigned>(Priv::U)) >> pmu::kCalls & 1);
  EXPECT_TRUE(pmu::active_events(h, static_cast<unsigned>(Priv::M)) >> pmu::kCalls & 1);
}

TEST_F(PmuSampled, InstructionsAndCyclesComeFromInstret) {
  pmu::set_sampled(h, 1u << pmu::kInstructions | 1u << pmu::kCycles);
  EXPECT_EQ(pmu::active_events(h, static_cast<unsigned>(Priv::M)), 0u) << "instret counts them";
  h.instret = 1234;
  EXPECT_EQ(pmu::event_total(h, pmu::kInstructions), 1234u);
  EXPECT_EQ(pmu::event_total(h, pmu::kCycles), 1234u);
}

TEST(PmuEvents, MinInstructionsBoundsEveryEvent) {
  EXPECT_EQ(pmu::min_instructions(pmu::kBranches, 7), 7u);
  EXPECT_EQ(pmu::min_instructions(pmu::kPageWalks, 7), 4u) << "two walks per misaligned access";
  EXPECT_EQ(pmu::min_instructions(pmu::kTlbMisses, 8), 4u);
  EXPECT_EQ(pmu::min_instructions(pmu::kTlbMisses, UINT64_MAX), UINT64_MAX / 2 + 1);
}

TEST(PmuEvents, NamesArePerfsOrBrisksAndUnique) {
  EXPECT_EQ(pmu::event_name(pmu::kNone), nullptr);
  EXPECT_EQ(pmu::event_name(pmu::kEventCount), nullptr);
  EXPECT_STREQ(pmu::event_name(pmu::kInstructions), "instructions");
  EXPECT_STREQ(pmu::event_name(pmu::kBranchMisses), "branch-misses");
  std::set<std::string> names;
  for (unsigned e = 1; e < pmu::kEventCount; e++) {
    ASSERT_NE(pmu::event_name(e), nullptr) << e;
    EXPECT_TRUE(names.insert(pmu::event_name(e)).second) << pmu::event_name(e);
  }
}

}  // namespace
}  // namespace brisk
