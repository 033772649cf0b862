#include "devices/plic.h"
#include "csr/privileged.h"

#include <bit>

#include "runtime/error.h"

namespace brisk {

using namespace plic;

Plic::Plic(unsigned num_harts, unsigned num_sources, InterruptSink& sink)
    : sink_(sink),
      num_sources_(num_sources),
      num_contexts_(kContextsPerHart * num_harts),
      words_(num_sources / 32 + 1),
      priority_(num_sources + 1, 0),
      pending_(words_, 0),
      level_(words_, 0),
      claimed_(words_, 0),
      enable_(words_ * num_contexts_, 0),
      threshold_(num_contexts_, 0),
      eip_(num_contexts_, false) {
  if (num_sources == 0 || num_sources > kMaxSources) throw Error("PLIC: {} sources (1..{})", num_sources, kMaxSources);
}

void Plic::assign(std::vector<uint32_t>& bits, unsigned i, bool v) {
  const uint32_t m = 1u << (i % 32);
  bits[i / 32] = v ? bits[i / 32] | m : bits[i / 32] & ~m;
}

unsigned Plic::best(unsigned ctx) const {
  unsigned id = 0;
  uint32_t prio = threshold_[ctx];
  const uint32_t* en = enables(ctx);
  for (unsigned w = 0; w < words_; w++) {
    for (uint32_t m = pending_[w] & en[w]; m; m &= m - 1) {
      const unsigned src = 32 * w + std::countr_zero(m);
      if (priority_[src] > prio) {
        prio = priority_[src];
        id = src;
      }
    }
  }
  return id;
}

void Plic::update() {
  for (unsigned ctx = 0; ctx < num_contexts_; ctx++) {
    const bool level = best(ctx) != 0;
    if (level != eip_[ctx]) {
      eip_[ctx] = level;
      sink_.set_mip(ctx / kContextsPerHart, ctx % kContextsPerHart ? csr::IRQ_S_EXT : csr::IRQ_M_EXT, level);
    }
  }
}

void Plic::set_irq(unsigned source, bool level) {
  if (source == 0 || source > num_sources_) return;
  assign(level_, source, level);
  if (!test(claimed_.data(), source)) assign(pending_, source, level);
  update();
}

unsigned Plic::claim(unsigned ctx) {
  const unsigned src = best(ctx);
  if (src) {
    assign(pending_, src, false);
    assign(claimed_, src, true);
    update();
  }
  return src;
}

void Plic::complete(unsigned ctx, uint32_t source) {
  // The spec ignores completions for sources not enabled in the context (Linux relies on it when
  // completing a masked interrupt).
  if (source == 0 || source > num_sources_ || !test(enables(ctx), source)) return;
  assign(claimed_, source, false);
  if (test(level_.data(), source)) assign(pending_, source, true);
}

bool Plic::read(uint64_t offset, unsigned size, uint64_t& value) {
  if (size != 4 || offset % 4) return false;
  value = 0;
  if (offset < PENDING_BASE) {
    const uint64_t src = (offset - PRIORITY_BASE) / 4;
    if (src <= num_sources_) value = priority_[src];
  } else if (offset < ENABLE_BASE) {
    const uint64_t w = (offset - PENDING_BASE) / 4;
    if (w < words_) value = pending_[w];
  } else if (offset < CONTEXT_BASE) {
    const uint64_t ctx = (offset - ENABLE_BASE) / ENABLE_PER_CONTEXT;
    const uint64_t w = (offset - ENABLE_BASE) % ENABLE_PER_CONTEXT / 4;
    if (ctx < num_contexts_ && w < words_) value = enables(ctx)[w];
  } else {
    const uint64_t ctx = (offset - CONTEXT_BASE) / CONTEXT_PER_CONTEXT;
    const uint64_t reg = (offset - CONTEXT_BASE) % CONTEXT_PER_CONTEXT;
    if (ctx >= num_contexts_) return true;
    if (reg == CONTEXT_THRESHOLD) value = threshold_[ctx];
    if (reg == CONTEXT_CLAIM) value = claim(ctx);
  }
  return true;
}

bool Plic::write(uint64_t offset, unsigned size, uint64_t value) {
  if (size != 4 || offset % 4) return false;
  const uint32_t v = static_cast<uint32_t>(value);
  if (offset < PENDING_BASE) {
    const uint64_t src = (offset - PRIORITY_BASE) / 4;
    if (src == 0 || src > num_sources_) return true;
    priority_[src] = v & kPriorityMask;
  } else if (offset < ENABLE_BASE) {
    return true;  // pending bits are read-only
  } else if (offset < CONTEXT_BASE) {
    const uint64_t ctx = (offset - ENABLE_BASE) / ENABLE_PER_CONTEXT;
    const uint64_t w = (offset - ENABLE_BASE) % ENABLE_PER_CONTEXT / 4;
    if (ctx >= num_contexts_ || w >= words_) return true;
    // Source 0 and sources past num_sources do not exist: their enable bits read 0.
    uint32_t valid = w + 1 < words_ ? ~0u : ~0u >> (31 - num_sources_ % 32);
    if (w == 0) valid &= ~1u;
    enable_[ctx * words_ + w] = v & valid;
  } else {
    const uint64_t ctx = (offset - CONTEXT_BASE) / CONTEXT_PER_CONTEXT;
    const uint64_t reg = (offset - CONTEXT_BASE) % CONTEXT_PER_CONTEXT;
    if (ctx >= num_contexts_) return true;
    if (reg == CONTEXT_THRESHOLD) threshold_[ctx] = v & kPriorityMask;
    if (reg == CONTEXT_CLAIM) complete(ctx, v);
  }
  update();
  return true;
}

}  // namespace brisk
