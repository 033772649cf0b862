#include "devices/clint.h"
#include "csr/privileged.h"

#include <algorithm>

namespace brisk {

using namespace clint;

namespace {

// A 64-bit register seen through an access of `size` bytes at byte `sub` within it.
bool valid64(uint64_t sub, unsigned size) { return (size == 8 && sub == 0) || (size == 4 && sub % 4 == 0); }

uint64_t read64(uint64_t reg, uint64_t sub, unsigned size) {
  return size == 8 ? reg : static_cast<uint32_t>(reg >> (8 * sub));
}

uint64_t merge64(uint64_t reg, uint64_t sub, unsigned size, uint64_t value) {
  if (size == 8) return value;
  const unsigned shift = 8 * sub;
  return (reg & ~(0xffffffffull << shift)) | (static_cast<uint64_t>(static_cast<uint32_t>(value)) << shift);
}

}  // namespace

Clint::Clint(unsigned num_harts, InterruptSink& sink, Clock& clock)
    : sink_(sink), clock_(clock), msip_(num_harts, 0), mtimecmp_(num_harts, UINT64_MAX), mtip_(num_harts, false) {}

bool Clint::read(uint64_t offset, unsigned size, uint64_t& value) {
  value = 0;
  const uint64_t harts = msip_.size();
  if (offset >= MTIME && offset < MTIME + 8) {
    if (!valid64(offset - MTIME, size)) return false;
    value = read64(clock_.now(), offset - MTIME, size);
  } else if (offset >= MTIMECMP && offset < MTIMECMP + 8 * harts) {
    const uint64_t sub = (offset - MTIMECMP) % 8;
    if (!valid64(sub, size)) return false;
    value = read64(mtimecmp_[(offset - MTIMECMP) / 8], sub, size);
  } else if (offset < MSIP + 4 * harts) {
    if (size != 4 || offset % 4) return false;
    value = msip_[(offset - MSIP) / 4];
  }
  return true;
}

bool Clint::write(uint64_t offset, unsigned size, uint64_t value) {
  const uint64_t harts = msip_.size();
  if (offset >= MTIME && offset < MTIME + 8) {
    if (!valid64(offset - MTIME, size)) return false;
    clock_.set(merge64(clock_.now(), offset - MTIME, size, value));
    for (unsigned hart = 0; hart < harts; hart++) update_mtip(hart, clock_.now());
  } else if (offset >= MTIMECMP && offset < MTIMECMP + 8 * harts) {
    const uint64_t sub = (offset - MTIMECMP) % 8;
    if (!valid64(sub, size)) return false;
    const unsigned hart = (offset - MTIMECMP) / 8;
    mtimecmp_[hart] = merge64(mtimecmp_[hart], sub, size, value);
    update_mtip(hart, clock_.now());
  } else if (offset < MSIP + 4 * harts) {
    if (size != 4 || offset % 4) return false;
    const unsigned hart = (offset - MSIP) / 4;
    msip_[hart] = value & 1;
    sink_.set_mip(hart, csr::IRQ_M_SOFT, msip_[hart]);
  }
  return true;
}

void Clint::update_mtip(unsigned hart, uint64_t now) {
  const bool level = now >= mtimecmp_[hart];
  if (level != mtip_[hart]) {
    mtip_[hart] = level;
    sink_.set_mip(hart, csr::IRQ_M_TIMER, level);
  }
}

uint64_t Clint::poll(uint64_t now) {
  uint64_t next = UINT64_MAX;
  for (unsigned h = 0; h < mtimecmp_.size(); h++) {
    update_mtip(h, now);
    if (mtimecmp_[h] > now) next = std::min(next, mtimecmp_[h]);
  }
  return next;
}

}  // namespace brisk
