// runtime/block_table.h against std::map, through growth and backward-shift erasure.
#include "runtime/block_table.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <tuple>

namespace brisk {
namespace {

struct FakeBlock {
  BlockKey k;
  BlockKey key() const { return k; }
};

auto tie(const BlockKey& k) { return std::tuple(k.pc, k.pa, k.mode, k.max_insns, k.view); }

TEST(BlockTable, MatchesAMapThroughInsertsAndErases) {
  std::mt19937_64 rng(7);
  std::deque<FakeBlock> blocks;
  std::map<std::tuple<uint64_t, uint64_t, uint64_t, unsigned, uint64_t>, FakeBlock*> ref;
  BlockTable<FakeBlock> table;
  // Few pcs and modes, so that keys share pcs and probe runs are long and wrap.
  auto random_key = [&] {
    const uint64_t pc = 0x80000000 + 2 * (rng() % 3000);
    return BlockKey{pc, pc + 0x1000 * (rng() % 3), rng() % 4, static_cast<unsigned>(rng() % 2), rng() % 2};
  };
  for (int round = 0; round < 60000; round++) {
    const BlockKey k = random_key();
    auto it = ref.find(tie(k));
    if (it == ref.end()) {
      blocks.push_back({k});
      table.insert(&blocks.back());
      ref[tie(k)] = &blocks.back();
    } else if (rng() % 2) {
      table.erase(it->second);
      ref.erase(it);
    }
    if (round % 5000 == 0 || round == 59999) {
      ASSERT_EQ(table.size(), ref.size());
      for (const FakeBlock& b : blocks) {
        auto r = ref.find(tie(b.k));
        FakeBlock* want = r == ref.end() ? nullptr : r->second;
        ASSERT_EQ(table.find(b.k), want) << "pc " << std::hex << b.k.pc << " mode " << b.k.mode;
      }
    }
  }
  EXPECT_GT(ref.size(), 4096u);  // it grew past its first size
}

TEST(BlockTable, ErasingTheWrongBlockOfAKeyLeavesIt) {
  BlockTable<FakeBlock> table;
  FakeBlock a{{0x1000, 0x1000, 0, 0, 0}}, stale{{0x1000, 0x1000, 0, 0, 0}};
  table.insert(&a);
  table.erase(&stale);  // a dropped block of the same key is not in the table
  EXPECT_EQ(table.find(a.k), &a);
  table.erase(&a);
  EXPECT_EQ(table.find(a.k), nullptr);
  EXPECT_EQ(table.size(), 0u);
}

}  // namespace
}  // namespace brisk
