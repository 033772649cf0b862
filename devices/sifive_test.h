// SiFive test finisher ("sifive,test0", a syscon) as QEMU's virt machine has it at 0x100000:
// software powers the machine off (with a status) or resets it by writing one register.
#pragma once

#include <cstdint>
#include <functional>

#include "devices/device.h"

namespace brisk {

// Register and values, named as in QEMU's sifive_test.
namespace sifive_test {
constexpr uint64_t FINISHER = 0x0;          // 32-bit: status in bits 15:0, exit code in 31:16
constexpr uint32_t FINISHER_FAIL = 0x3333;
constexpr uint32_t FINISHER_PASS = 0x5555;
constexpr uint32_t FINISHER_RESET = 0x7777;
constexpr uint64_t kWindowSize = 0x1000;
}  // namespace sifive_test

class SifiveTest final : public Device {
 public:
  enum class Event { Pass, Fail, Reset };
  // code: bits 31:16 of the write for Fail, 0 otherwise.
  using Callback = std::function<void(Event, uint16_t code)>;

  explicit SifiveTest(Callback on_event) : on_event_(std::move(on_event)) {}

  const char* name() const override { return "sifive_test"; }
  // Reads return 0. Only 4-byte accesses; writes of other values are ignored.
  bool read(uint64_t offset, unsigned size, uint64_t& value) override;
  bool write(uint64_t offset, unsigned size, uint64_t value) override;

 private:
  Callback on_event_;
};

}  // namespace brisk
