// SiFive CLINT (core-local interruptor) as QEMU's virt machine has it at 0x2000000: per-hart msip
// (software interrupt, MSIP) and mtimecmp (timer interrupt, MTIP), and the shared mtime.
#pragma once

#include <cstdint>
#include <vector>

#include "devices/device.h"

namespace brisk {

// Register offsets, named as in the SiFive CLINT documentation.
namespace clint {
constexpr uint64_t MSIP = 0x0;        // msip[hart] at MSIP + 4 * hart, 32 bits, bit 0 significant
constexpr uint64_t MTIMECMP = 0x4000;  // mtimecmp[hart] at MTIMECMP + 8 * hart, 64 bits
constexpr uint64_t MTIME = 0xbff8;     // 64 bits
constexpr uint64_t kWindowSize = 0x10000;
}  // namespace clint

class Clint final : public Device {
 public:
  Clint(unsigned num_harts, InterruptSink& sink, Clock& clock);

  const char* name() const override { return "clint"; }
  // msip: 4-byte accesses; mtimecmp and mtime: 8 bytes, or 4 bytes for either half. Other sizes
  // and misaligned accesses fault; offsets that hold no register read 0 and ignore writes.
  // Writes to mtime set the Clock, the one timebase, which the time CSR reads too.
  bool read(uint64_t offset, unsigned size, uint64_t& value) override;
  bool write(uint64_t offset, unsigned size, uint64_t value) override;
  // Re-evaluates MTIP for every hart; returns the earliest mtimecmp still in the future.
  uint64_t poll(uint64_t now) override;

 private:
  void update_mtip(unsigned hart, uint64_t now);

  InterruptSink& sink_;
  Clock& clock_;
  std::vector<uint32_t> msip_;
  std::vector<uint64_t> mtimecmp_;
  std::vector<bool> mtip_;  // the level last driven, so that unchanged levels are not re-sent
};

}  // namespace brisk
