// One stream semantic register of a Snitch compute core (docs/snitch.md, "SSRs"): its config
// words and the address walk of its affine and indirect streams. The machine moves the elements
// (runtime/snitch_machine.cpp); this class only says where they are and which index words an
// indirect stream needs. Addresses are 32-bit, as on the RV32 cores.
#pragma once

#include <cstdint>
#include <optional>

namespace brisk::snitch {

class Ssr {
 public:
  // Config words.
  static constexpr unsigned kStatus = 0, kRepeat = 1, kBound0 = 2, kStride0 = 6, kIdxCfg = 10, kIdxBase = 11;
  static constexpr unsigned kIndirStart = 16, kStart = 24;  // + (write << 2) + dims - 1
  // Status word 0's upper bits; the pointer's bits 26:0 are below them.
  static constexpr uint32_t kDone = 1u << 31, kWrite = 1u << 30, kIndir = 1u << 27, kPointerMask = 0x07ffffffu;
  static constexpr unsigned kDimsShift = 28;
  // idx_cfg: size 1:0 (index bytes = 1 << size), shift 10:8, merge flag 16 (the default cluster's
  // 2-bit size, 3-bit shift and one flag; the other bits read 0).
  static constexpr uint32_t kIdxCfgMask = 0x3u | 0x7u << 8 | 1u << 16;
  // The default cluster's repeat counter has 4 bits; strides, like idx_base, are word addresses.
  static constexpr uint32_t kRepeatMask = 0xf, kWordMask = ~7u;

  // `indirect`: whether the SSR runs indirect streams of its own (the default cluster's SSRs 0
  // and 1; SSR 2's indirector serves only the intersector, which brisk does not model).
  explicit Ssr(bool indirect = false) : indirect_(indirect) {}

  uint32_t read(unsigned word) const;
  // Whether a write of `word` is legal here: false for the start of an indirect stream this SSR
  // cannot run (no indirection, or dims 3-4, which select the intersector).
  bool can_write(unsigned word) const;
  void write(unsigned word, uint32_t value);

  // Whether the SSR has an active stream of that direction (read: pop, write: push).
  bool can(bool write) const { return active_ && write_ == write; }
  bool indirect_stream() const { return indir_; }
  // The 8-byte-aligned address of the index word the next element's index lies in, when an
  // indirect stream has not fetched that word yet; give it with index_word() before next().
  std::optional<uint32_t> index_fetch() const;
  void index_word(uint64_t value) {
    word_ = value;
    have_word_ = true;
  }
  // The next element's address; advances the walk. A read stream gives each element repeat + 1
  // times; write streams ignore repeat.
  uint32_t next();

 private:
  // Byte offset of index k from the index word of the start pointer.
  uint64_t index_byte(uint64_t k) const { return (start_ & 7u) + (k << idx_size()); }
  unsigned idx_size() const { return idx_cfg_ & 3u; }
  unsigned idx_shift() const { return (idx_cfg_ >> 8) & 7u; }

  bool indirect_;
  uint32_t repeat_ = 0, bounds_[4] = {}, strides_[4] = {}, idx_cfg_ = 0, idx_base_ = 0;
  uint32_t ptr_ = 0, start_ = 0, idx_[4] = {}, rep_ = 0, dims_ = 0;
  bool active_ = false, write_ = false, indir_ = false;
  // Indirect: the index word in the SSR and whether it is the one the next element needs.
  uint64_t word_ = 0;
  bool have_word_ = false;
};

}  // namespace brisk::snitch
