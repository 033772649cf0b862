// The Snitch cluster peripheral block (docs/snitch.md, "The peripheral block"), in the 2024-08 layout
// of the cluster's register description: 16 performance counters (PERF_CNT_EN, PERF_CNT_SEL,
// PERF_CNT), the cluster-local interrupt (CL_CLINT_SET/CLEAR) and ICACHE_PREFETCH_ENABLE. The
// counters live in snitch::PerfCounters, the timing model's; this is their MMIO view.
#pragma once

#include <cstdint>

#include "csr/privileged.h"
#include "devices/device.h"
#include "devices/snitch/icache.h"
#include "devices/snitch/perf_counters.h"

namespace brisk {

namespace snitch_periph {
constexpr uint64_t PERF_CNT_EN = 0x000;   // PERF_CNT_EN[i] at PERF_CNT_EN + 8 * i
constexpr uint64_t PERF_CNT_SEL = 0x080;  // PERF_CNT_SEL[i] at PERF_CNT_SEL + 8 * i
constexpr uint64_t PERF_CNT = 0x100;      // PERF_CNT[i] at PERF_CNT + 8 * i
constexpr uint64_t CL_CLINT_SET = 0x180;
constexpr uint64_t CL_CLINT_CLEAR = 0x188;
constexpr uint64_t ICACHE_PREFETCH_ENABLE = 0x190;
constexpr uint64_t kRegistersEnd = 0x198;
constexpr uint64_t kWindowSize = 0x10000;  // 0x10020000 up to the zero memory at 0x10030000
constexpr uint64_t kEnableMask = 0x1;
constexpr uint64_t kClintMask = 0xffffffff;
constexpr uint64_t kPrefetchMask = 0x1;
// The cluster-local interrupt: mip/mie bit 19 (MCIP), mcause 0x80000013 on RV32.
constexpr unsigned IRQ_MCIP = csr::IRQ_M_CLUSTER;
}  // namespace snitch_periph

class SnitchPeriph final : public Device {
 public:
  // The interrupt lines go to harts 0 .. counters.harts()-1 of `sink`.
  SnitchPeriph(snitch::PerfCounters& counters, snitch::ICache& icache, InterruptSink& sink);

  const char* name() const override { return "snitch-periph"; }
  // Every register is 64 bits at an 8-byte stride: 8-byte accesses at offset 8n, or 4-byte accesses
  // at 8n (bits 31:0) or 8n + 4 (bits 63:32). Other sizes and alignments fault. Offsets in the window
  // past the last register read 0 and ignore writes. Reserved bits read 0 and ignore writes; the
  // write-only registers (CL_CLINT_SET/CLEAR, ICACHE_PREFETCH_ENABLE) read 0.
  bool read(uint64_t offset, unsigned size, uint64_t& value) override;
  bool write(uint64_t offset, unsigned size, uint64_t value) override;

 private:
  void set_clint(uint64_t bits, bool level);

  snitch::PerfCounters& counters_;
  snitch::ICache& icache_;
  InterruptSink& sink_;
};

}  // namespace brisk
