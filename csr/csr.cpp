#include "csr/csr.h"

#include <array>

#include "csr/csr_numbers.h"
#include "runtime/fp.h"
#include "runtime/hart.h"

namespace brisk::csr {

namespace {

// One CSR: how to read it, how to write it (nullptr: read-only), and any access rule beyond the
// privilege level and read-only bits encoded in its address.
struct Def {
  uint64_t (*read)(Hart& h, uint16_t num) = nullptr;
  void (*write)(Hart& h, uint16_t num, uint64_t v) = nullptr;
  Status (*check)(Hart& h, const Insn& insn, bool write) = nullptr;
};

using Table = std::array<Def, 4096>;

constexpr uint64_t kFflagsMask = 0x1f;

void define_fp(Table& t) {
  t[CSR_FFLAGS] = {[](Hart& h, uint16_t) -> uint64_t { return h.fflags; },
                   [](Hart& h, uint16_t, uint64_t v) {
                     h.fflags = v & kFflagsMask;
                     fp_dirty(h);
                   }};
  t[CSR_FRM] = {[](Hart& h, uint16_t) -> uint64_t { return h.frm; },
                [](Hart& h, uint16_t, uint64_t v) {
                  h.frm = v & 7;
                  fp_dirty(h);
                }};
  t[CSR_FCSR] = {[](Hart& h, uint16_t) -> uint64_t { return uint64_t(h.frm) << 5 | h.fflags; },
                 [](Hart& h, uint16_t, uint64_t v) {
                   h.frm = (v >> 5) & 7;
                   h.fflags = v & kFflagsMask;
                   fp_dirty(h);
                 }};
}

void define_counters(Table& t) {
  // Zicntr: brisk's cycle model is one cycle per retired instruction.
  t[CSR_CYCLE] = {[](Hart& h, uint16_t) { return h.instret; }};
  t[CSR_INSTRET] = {[](Hart& h, uint16_t) { return h.instret; }};
  t[CSR_TIME] = {[](Hart& h, uint16_t) { return h.csr.read_time(h); }};
}

Table build() {
  Table t{};
  define_fp(t);
  define_counters(t);
  return t;
}

const Table& table() {
  static const Table t = build();
  return t;
}

}  // namespace

Status access(Hart& h, const Insn& insn, CsrOp op, bool read, bool write, uint64_t src, uint64_t& old) {
  uint16_t num = static_cast<uint16_t>(insn.imm);
  const Def& d = table()[num];
  // Address bits 9:8 give the lowest privilege that may access the CSR, bits 11:10 = 3 mark it read-only.
  unsigned min_priv = (num >> 8) & 3;
  bool read_only = (num >> 10) == 3;
  if (!d.read || static_cast<unsigned>(h.priv) < min_priv || (write && (read_only || !d.write)))
    return h.illegal(insn);
  if (d.check) {
    Status st = d.check(h, insn, write);
    if (st != Status::Next) return st;
  }
  uint64_t value = (read || op != CsrOp::RW) ? d.read(h, num) : 0;
  if (write) {
    uint64_t next = op == CsrOp::RW ? src : op == CsrOp::RS ? value | src : value & ~src;
    d.write(h, num, next);
  }
  old = value;
  return Status::Next;
}

}  // namespace brisk::csr
