// An InterruptSink (devices/device.h) that remembers the last level of every hart's mip bit.
#pragma once

#include <map>
#include <utility>

#include "devices/device.h"

namespace brisk {

struct FakeSink : InterruptSink {
  std::map<std::pair<unsigned, unsigned>, bool> mip;
  void set_mip(unsigned hart, unsigned bit, bool level) override { mip[{hart, bit}] = level; }
  bool get(unsigned hart, unsigned bit) const {
    auto it = mip.find({hart, bit});
    return it != mip.end() && it->second;
  }
};

}  // namespace brisk
