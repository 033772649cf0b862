// SiFive PLIC (platform-level interrupt controller) as QEMU's virt machine has it at 0xc000000.
// Two contexts per hart: context 2h is hart h's M mode (MEIP), context 2h+1 its S mode (SEIP).
#pragma once

#include <cstdint>
#include <vector>

#include "devices/device.h"

namespace brisk {

// Register offsets, named as in the RISC-V PLIC specification.
namespace plic {
constexpr uint64_t PRIORITY_BASE = 0x0;         // priority[source] at + 4 * source
constexpr uint64_t PENDING_BASE = 0x1000;       // pending bits, 32 sources a word
constexpr uint64_t ENABLE_BASE = 0x2000;        // enable bits of a context, 32 sources a word
constexpr uint64_t ENABLE_PER_CONTEXT = 0x80;
constexpr uint64_t CONTEXT_BASE = 0x200000;     // threshold and claim/complete of a context
constexpr uint64_t CONTEXT_PER_CONTEXT = 0x1000;
constexpr uint64_t CONTEXT_THRESHOLD = 0x0;
constexpr uint64_t CONTEXT_CLAIM = 0x4;

constexpr uint32_t kPriorityMask = 0x7;  // QEMU virt implements 3 priority bits
constexpr unsigned kMaxSources = 1023;
constexpr unsigned kContextsPerHart = 2;

constexpr uint64_t window_size(unsigned num_harts) {
  return CONTEXT_BASE + CONTEXT_PER_CONTEXT * kContextsPerHart * num_harts;
}
}  // namespace plic

class Plic final : public Device, public IrqLine {
 public:
  // Sources 1..num_sources (the DT's riscv,ndev).
  Plic(unsigned num_harts, unsigned num_sources, InterruptSink& sink);

  const char* name() const override { return "plic"; }
  // 4-byte aligned accesses only; offsets that hold no register read 0 and ignore writes.
  bool read(uint64_t offset, unsigned size, uint64_t& value) override;
  bool write(uint64_t offset, unsigned size, uint64_t value) override;

  // Level-triggered: while a source is high and not claimed it is pending; if it is still high
  // when completed, it becomes pending again. A source that drops before being claimed stops
  // pending (as in QEMU), so the guest sees no spurious claims.
  void set_irq(unsigned source, bool level) override;

 private:
  static bool test(const uint32_t* bits, unsigned i) { return bits[i / 32] >> (i % 32) & 1; }
  static void assign(std::vector<uint32_t>& bits, unsigned i, bool v);
  const uint32_t* enables(unsigned ctx) const { return &enable_[ctx * words_]; }
  // The source a claim by `ctx` would return: highest priority above the threshold, ties to the lowest id.
  unsigned best(unsigned ctx) const;
  unsigned claim(unsigned ctx);
  void complete(unsigned ctx, uint32_t source);
  void update();

  InterruptSink& sink_;
  unsigned num_sources_, num_contexts_, words_;
  std::vector<uint32_t> priority_;   // by source; [0] stays 0
  std::vector<uint32_t> pending_;    // bitmaps by source
  std::vector<uint32_t> level_;
  std::vector<uint32_t> claimed_;
  std::vector<uint32_t> enable_;     // words_ words per context
  std::vector<uint32_t> threshold_;  // by context
  std::vector<bool> eip_;            // the MEIP/SEIP level last driven, by context
};

}  // namespace brisk
