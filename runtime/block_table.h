// The JIT's translations by key: an open-addressing table with linear probing. Each slot holds the
// pc beside the block, so that a probe reads the block only on a likely hit. std::unordered_map's
// node per block, and its chains' cache misses, were 6% of a Linux boot.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace brisk {

// What a translation was made from. A shortened block (max_insns, for the lockstep checker) is
// another translation, and so is one made for another trace view (RetireObserver::view).
struct BlockKey {
  uint64_t pc, pa, mode;
  unsigned max_insns;
  uint64_t view;
  bool operator==(const BlockKey&) const = default;
};

// Holds pointers to T, which has `BlockKey key() const`; at most one per key.
template <typename T>
class BlockTable {
 public:
  T* find(const BlockKey& k) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = hash(k) & mask();; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (!s.block) return nullptr;
      if (s.pc == k.pc && s.block->key() == k) return s.block;
    }
  }

  // b's key is not in the table.
  void insert(T* b) {
    if ((size_ + 1) * 2 > slots_.size()) {  // at most half full
      std::vector<Slot> old(std::max<size_t>(slots_.size() * 2, kMinSlots));
      old.swap(slots_);
      size_ = 0;
      for (const Slot& s : old)
        if (s.block) insert(s.block);
    }
    size_t i = hash(b->key()) & mask();
    while (slots_[i].block) i = (i + 1) & mask();
    slots_[i] = {b->key().pc, b};
    size_++;
  }

  void erase(const T* b) {
    if (slots_.empty()) return;
    size_t i = hash(b->key()) & mask();
    while (slots_[i].block != b) {
      if (!slots_[i].block) return;
      i = (i + 1) & mask();
    }
    size_--;
    // Backward shift: a later slot of the run moves into the hole unless its home lies cyclically
    // after the hole, so that every probe still reaches its block before an empty slot.
    for (size_t j = i;;) {
      slots_[i] = {};
      for (;;) {
        j = (j + 1) & mask();
        if (!slots_[j].block) return;
        const size_t home = hash(slots_[j].block->key()) & mask();
        if (((j - home) & mask()) >= ((j - i) & mask())) break;
      }
      slots_[i] = slots_[j];
      i = j;
    }
  }

  void clear() {
    slots_.clear();
    size_ = 0;
  }
  size_t size() const { return size_; }

  static size_t hash(const BlockKey& k) {
    uint64_t x = k.pc * 0x9e3779b97f4a7c15ull ^ k.pa ^ (k.mode * 0xc2b2ae3d27d4eb4full + k.max_insns) ^
                 k.view * 0x165667b19e3779f9ull;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    return static_cast<size_t>(x ^ x >> 29);
  }

 private:
  static constexpr size_t kMinSlots = 4096;
  struct Slot {
    uint64_t pc = 0;
    T* block = nullptr;  // nullptr: empty
  };
  size_t mask() const { return slots_.size() - 1; }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace brisk
