// ExclusiveGroup (runtime/exclusive.h): while a section runs, no other member runs guest code; a
// member outside guest code (exec_end) does not hold a section up; sections nest.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "runtime/exclusive.h"

namespace brisk {
namespace {

// A member's stand-in for translated code: counts "blocks" and parks at each boundary, as
// on_budget does when its deadline was lowered.
struct Worker {
  Hart hart;
  ExclusiveGroup::Member member;
  std::atomic<uint64_t> blocks{0};
  std::thread host;
};

class ExclusiveTest : public ::testing::Test {
 protected:
  std::mutex mutex;
  std::condition_variable cv;
  ExclusiveGroup group{mutex, cv};
  std::atomic<bool> done{false};

  void run(Worker& w) {
    w.member.hart = &w.hart;
    group.join(w.member);
    while (!done) {
      w.blocks.fetch_add(1, std::memory_order_relaxed);
      if (w.hart.deadline_reached()) {
        w.hart.deadline = UINT64_MAX;
        group.park_if_pending();
      }
    }
    group.leave();
  }
};

TEST_F(ExclusiveTest, OtherMembersStandStillDuringASection) {
  std::vector<Worker> workers(3);
  for (Worker& w : workers) w.host = std::thread([&] { run(w); });
  Worker me;
  me.member.hart = &me.hart;
  group.join(me.member);
  for (int round = 0; round < 50; round++) {
    // Each worker has run since the last section: none is stuck parked.
    std::vector<uint64_t> before;
    for (Worker& w : workers) before.push_back(w.blocks.load());
    for (Worker& w : workers)
      while (w.blocks.load() == before[&w - workers.data()]) std::this_thread::yield();
    ExclusiveGroup::Section outer(&group);
    ExclusiveGroup::Section nested(&group);  // no second wait on itself
    EXPECT_TRUE(group.in_section());
    std::vector<uint64_t> at_start;
    for (Worker& w : workers) at_start.push_back(w.blocks.load());
    for (int spin = 0; spin < 2000; spin++) std::this_thread::yield();
    for (size_t i = 0; i < workers.size(); i++) ASSERT_EQ(at_start[i], workers[i].blocks.load()) << "worker " << i;
  }
  EXPECT_FALSE(group.in_section());
  group.leave();
  done = true;
  for (Worker& w : workers) w.host.join();
}

TEST_F(ExclusiveTest, AMemberOutsideGuestCodeDoesNotHoldASectionUp) {
  Worker sleeper;
  std::atomic<bool> outside{false}, back{false};
  sleeper.host = std::thread([&] {
    sleeper.member.hart = &sleeper.hart;
    group.join(sleeper.member);
    group.exec_end();  // as in WFI or a syscall: it never parks at a block boundary
    outside = true;
    while (!done) std::this_thread::yield();
    group.exec_start();
    back = true;
    group.leave();
  });
  while (!outside) std::this_thread::yield();
  {
    ExclusiveGroup::Section section(&group);  // a non-member may begin one; returns although the sleeper never parks
    EXPECT_TRUE(group.active());
  }
  EXPECT_FALSE(group.active());
  done = true;
  sleeper.host.join();
  EXPECT_TRUE(back);
}

// A thread that never joined (a syscall made outside run(), as the syscall fuzzer makes them) may
// leave and re-enter guest code around a host call: nothing to do, and no member to touch.
TEST_F(ExclusiveTest, ANonMemberLeavesAndReentersGuestCode) {
  group.exec_end();
  group.exec_start();
  ExclusiveGroup::Section section(&group);
  EXPECT_TRUE(group.in_section());
}

}  // namespace
}  // namespace brisk
