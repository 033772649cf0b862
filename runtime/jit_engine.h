// The JIT engine: block cache, dispatcher, chaining, invalidation and fault recovery around the
// asmjit baseline translator (jit/x64).
#pragma once

#include <array>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "jit/x64/translator.h"
#include "runtime/engine.h"
#include "runtime/host_fault.h"

namespace brisk {

class JitEngine final : public Engine, public HostFaultHooks {
 public:
  explicit JitEngine(const EngineOptions& opt);
  ~JitEngine() override;
  void run(Hart& h, TrapHandler& traps) override;
  void invalidate(Hart& h, uint64_t start, uint64_t end) override;

  // HostFaultHooks
  bool on_code_write(Hart& h, uint64_t va) override;
  bool recover(Hart& h, const ucontext_t& ctx) override;

  // Runs exactly the block at h.pc once, unchained, and returns its JitExit code; for the lockstep
  // checker, which must hold a HostFaultScope with this engine's hooks around it.
  uint32_t run_one_block(Hart& h);
  // How many instructions the block at h.pc holds (translating it if needed); 0 if it cannot be fetched.
  size_t block_length(Hart& h);

  struct Stats {
    uint64_t blocks = 0, links = 0, flushes = 0, invalidated = 0;
  };
  const Stats& stats() const { return stats_; }

 private:
  struct Block {
    x64::BlockCode bc;
    uint64_t key = 0;
    bool valid = true;
    std::vector<std::pair<Block*, unsigned>> incoming;  // (source block, exit index) linked here
  };
  struct Key {
    uint64_t pc, mode;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.pc * 31 + k.mode); }
  };

  // The translation key beyond pc: what changes a block's meaning (DESIGN.md principle 2).
  static uint64_t mode_key(const Hart& h);
  // Finds or translates the block at h.pc; nullptr after raising an instruction fault.
  Block* block_for(Hart& h);
  void link(Block* from, unsigned exit, Block* to);
  void drop(Block* b);
  void flush_all(Hart& h);
  Block* block_at_host(const void* p) const;

  EngineOptions opt_;
  x64::CodeArena arena_;
  x64::Trampolines tramp_;
  uint8_t* arena_start_ = nullptr;  // first byte after the trampolines
  std::unordered_map<Key, Block*, KeyHash> blocks_;
  std::multimap<uint64_t, Block*> by_page_;
  std::map<const uint8_t*, Block*> by_code_;
  std::deque<std::unique_ptr<Block>> all_;  // dropped blocks stay until the arena is reset
  std::array<x64::LookupEntry, x64::kLookupEntries> lookup_{};
  Stats stats_;
  FILE* perf_map_ = nullptr;
};

}  // namespace brisk
