#include "devices/snitch_periph.h"

namespace brisk {

using namespace snitch_periph;

SnitchPeriph::SnitchPeriph(snitch::PerfCounters& counters, snitch::ICache& icache, InterruptSink& sink)
    : counters_(counters), icache_(icache), sink_(sink) {}

namespace {

bool valid_access(uint64_t offset, unsigned size) { return (size == 8 && offset % 8 == 0) || (size == 4 && offset % 4 == 0); }

}  // namespace

bool SnitchPeriph::read(uint64_t offset, unsigned size, uint64_t& value) {
  value = 0;
  if (offset >= kWindowSize || !valid_access(offset, size)) return false;
  const uint64_t reg = offset & ~uint64_t{7};
  const unsigned i = (reg % 0x80) / 8;
  uint64_t full = 0;
  if (reg < PERF_CNT_SEL) {
    full = counters_.enabled(i);
  } else if (reg < PERF_CNT) {
    full = counters_.select(i);
  } else if (reg < CL_CLINT_SET) {
    full = counters_.value(i);
  }
  // CL_CLINT_SET/CLEAR and ICACHE_PREFETCH_ENABLE are write-only and read 0, as past the registers.
  value = size == 8 ? full : static_cast<uint32_t>(full >> (8 * (offset % 8)));
  return true;
}

bool SnitchPeriph::write(uint64_t offset, unsigned size, uint64_t value) {
  if (offset >= kWindowSize || !valid_access(offset, size)) return false;
  const uint64_t reg = offset & ~uint64_t{7};
  const unsigned i = (reg % 0x80) / 8;
  // A 4-byte write replaces one half of the register and keeps the other.
  auto merge = [&](uint64_t old) {
    if (size == 8) return value;
    const unsigned shift = 8 * (offset % 8);
    return (old & ~(uint64_t{0xffffffff} << shift)) | (static_cast<uint64_t>(static_cast<uint32_t>(value)) << shift);
  };
  if (reg < PERF_CNT_SEL) {
    counters_.set_enabled(i, merge(counters_.enabled(i)) & kEnableMask);
  } else if (reg < PERF_CNT) {
    counters_.set_select(i, merge(counters_.select(i)));
  } else if (reg < CL_CLINT_SET) {
    counters_.set_value(i, merge(counters_.value(i)));
  } else if (reg == CL_CLINT_SET || reg == CL_CLINT_CLEAR) {
    // Write-only: the other half of the register is taken as 0, not read back.
    set_clint(merge(0) & kClintMask, reg == CL_CLINT_SET);
  } else if (reg == ICACHE_PREFETCH_ENABLE) {
    if (size == 8 || offset % 8 == 0) icache_.set_prefetch(value & kPrefetchMask);
  }
  return true;
}

void SnitchPeriph::set_clint(uint64_t bits, bool level) {
  for (unsigned hart = 0; hart < counters_.harts() && hart < 32; hart++) {
    if (bits >> hart & 1) sink_.set_mip(hart, IRQ_MCIP, level);
  }
}

}  // namespace brisk
