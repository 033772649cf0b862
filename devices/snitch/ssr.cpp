#include "devices/snitch/ssr.h"

namespace brisk::snitch {

uint32_t Ssr::read(unsigned word) const {
  switch (word) {
    case kStatus:
      return (ptr_ & kPointerMask) | (active_ ? 0 : kDone) | (write_ ? kWrite : 0) | dims_ << kDimsShift |
             (indir_ ? kIndir : 0);
    case kRepeat: return repeat_;
    case 2: case 3: case 4: case 5: return bounds_[word - kBound0];
    case 6: case 7: case 8: case 9: return strides_[word - kStride0];
    case kIdxCfg: return idx_cfg_;
    case kIdxBase: return idx_base_;
    default: return word >= kIndirStart && word < 32 ? ptr_ : 0;
  }
}

bool Ssr::can_write(unsigned word) const {
  if (word < kIndirStart || word >= kStart) return true;
  return indirect_ && (word & 3) < 2;
}

void Ssr::write(unsigned word, uint32_t value) {
  if (word == kRepeat) {
    repeat_ = value & kRepeatMask;
  } else if (word >= kBound0 && word < kBound0 + 4) {
    bounds_[word - kBound0] = value;
  } else if (word >= kStride0 && word < kStride0 + 4) {
    strides_[word - kStride0] = value & kWordMask;
  } else if (word == kIdxCfg) {
    idx_cfg_ = value & kIdxCfgMask;  // the fields the hardware keeps
  } else if (word == kIdxBase) {
    idx_base_ = value & kWordMask;
  } else if (word >= kIndirStart && word < 32 && can_write(word)) {
    // Start: bit 3 no indirection, bit 2 write, bits 1:0 dims - 1. Only the walk resets: bounds,
    // strides, repeat and the index config keep their values.
    ptr_ = start_ = value;
    indir_ = word < kStart;
    write_ = word & 4;
    dims_ = word & 3;
    rep_ = 0;
    for (uint32_t& i : idx_) i = 0;
    have_word_ = false;
    active_ = true;
  }
  // word 0 (status) is read-only; 12-15 are reserved
}

std::optional<uint32_t> Ssr::index_fetch() const {
  if (!active_ || !indir_ || have_word_) return std::nullopt;
  return (start_ & ~7u) + static_cast<uint32_t>(index_byte(idx_[0]) & ~uint64_t{7});
}

uint32_t Ssr::next() {
  if (indir_) {
    // Element k's index is the k-th index of `size` bytes from the start pointer; its address
    // is idx_base + index * 8 << shift (the hardware's 64-bit words, scaled).
    const uint64_t k = idx_[0];
    const unsigned size = idx_size();
    uint64_t index = word_ >> 8 * (index_byte(k) & 7);
    if (size < 3) index &= (uint64_t{1} << (8u << size)) - 1;
    const uint32_t addr = idx_base_ + (static_cast<uint32_t>(index) << 3 << idx_shift());
    if (!write_ && rep_ < repeat_) {
      rep_++;
      return addr;
    }
    rep_ = 0;
    // Only bound 0 counts (indices - 1); the upper dimensions take no part.
    if (k >= bounds_[0]) {
      active_ = false;  // the last element: done, the pointer stays at its index word
      return addr;
    }
    idx_[0]++;
    const uint64_t word = index_byte(k + 1) >> 3;
    if (word != index_byte(k) >> 3) {
      have_word_ = false;
      ptr_ = start_ + static_cast<uint32_t>(word << 3);
    }
    return addr;
  }
  const uint32_t addr = ptr_;
  if (!write_ && rep_ < repeat_) {
    rep_++;
    return addr;
  }
  rep_ = 0;
  // The lowest dimension not at its bound steps; those below wrap. The strides are relative
  // (the runtime subtracts what the lower dimensions walked), so the pointer only adds.
  for (unsigned d = 0; d <= dims_; d++) {
    if (idx_[d] < bounds_[d]) {
      idx_[d]++;
      ptr_ += strides_[d];
      return addr;
    }
    idx_[d] = 0;
  }
  active_ = false;  // the last element: done
  return addr;
}

}  // namespace brisk::snitch
