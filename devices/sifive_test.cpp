#include "devices/sifive_test.h"

namespace brisk {

using namespace sifive_test;

bool SifiveTest::read(uint64_t offset, unsigned size, uint64_t& value) {
  value = 0;
  return size == 4;
}

bool SifiveTest::write(uint64_t offset, unsigned size, uint64_t value) {
  if (size != 4) return false;
  if (offset != FINISHER) return true;
  const uint32_t status = value & 0xffff;
  const auto code = static_cast<uint16_t>(value >> 16);
  if (status == FINISHER_PASS) {
    on_event_(Event::Pass, 0);
  } else if (status == FINISHER_FAIL) {
    on_event_(Event::Fail, code);
  } else if (status == FINISHER_RESET) {
    on_event_(Event::Reset, 0);
  }
  return true;
}

}  // namespace brisk
