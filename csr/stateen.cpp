// Smstateen/Ssstateen: mstateen0-3 and sstateen0-3, and the gate that CSRs and instructions guarded
// by a stateen bit call (stateen_check).
#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/table.h"
#include "runtime/hart.h"

namespace brisk::csr {

namespace {

constexpr uint64_t bit(unsigned b) { return 1ull << b; }

// sstateen bits brisk implements: none, as it has none of the user-level state they guard (custom
// state, fcsr under Zfinx, Zcmt's jvt).
constexpr uint64_t kSstateenImplemented = 0;

// Writable mstateen<n> bits: only those guarding state the hart has. The rest are read-only zero,
// among them CONTEXT (no Sdtrig scontext), AIA and IMSIC (no Smaia), P1P13 (no H), SRMCFG (no Ssqosid).
uint64_t mstateen_writable(const Hart& h, unsigned n) {
  uint64_t m = h.csr.isa.has(Ext::Ssstateen) ? bit(STATEEN_SE) : 0;
  if (n == 0) {
    m |= bit(STATEEN0_ENVCFG);
    if (h.csr.isa.has(Ext::Smctr)) m |= bit(STATEEN0_CTR);
    if (h.csr.isa.has(Ext::Sscsrind)) m |= bit(STATEEN0_CSRIND);
  }
  return m;
}

// An sstateen bit is read-only zero while the matching mstateen bit is zero.
uint64_t sstateen_writable(const Hart& h, unsigned n) {
  return kSstateenImplemented & (h.csr.isa.has(Ext::Smstateen) ? h.csr.mstateen[n] : ~0ull);
}

Status check_mstateen(Hart& h, const Insn& i, bool) {
  return h.csr.isa.has(Ext::Smstateen) ? Status::Next : h.illegal(i);
}

// sstateen<n> is guarded by SE<n>, bit 63 of mstateen<n>.
Status check_sstateen(Hart& h, const Insn& i, bool) {
  if (!h.csr.isa.has(Ext::Ssstateen)) return h.illegal(i);
  return stateen_check(h, i, 64 * static_cast<unsigned>(i.imm - CSR_SSTATEEN0) + STATEEN_SE, virtual_mode(h));
}

}  // namespace

Status virtual_instruction(Hart& h, const Insn& i) { return h.raise(cause::kVirtualInstruction, i.raw); }

Status stateen_check(Hart& h, const Insn& i, unsigned b, bool virt) {
  if (h.priv == Priv::M) return Status::Next;
  const unsigned n = b / 64;
  const uint64_t mask = bit(b % 64);
  if (h.csr.isa.has(Ext::Smstateen) && !(h.csr.mstateen[n] & mask)) return h.illegal(i);
  if (virt && !(h.csr.hstateen[n] & mask)) return virtual_instruction(h, i);
  // The low 32 bits also exist in sstateen<n>, where S grants them to U (and VU).
  if (h.priv == Priv::U && b % 64 < 32 && h.csr.isa.has(Ext::Ssstateen) && !(h.csr.sstateen[n] & mask))
    return h.illegal(i);
  return Status::Next;
}

void define_stateen(Table& t) {
  for (uint16_t num = CSR_MSTATEEN0; num <= CSR_MSTATEEN3; num++)
    t[num] = {[](Hart& h, uint16_t num) { return h.csr.mstateen[num - CSR_MSTATEEN0]; },
              [](Hart& h, uint16_t num, uint64_t v) {
                const unsigned n = num - CSR_MSTATEEN0;
                h.csr.mstateen[n] = v & mstateen_writable(h, n);
              },
              check_mstateen};
  for (uint16_t num = CSR_SSTATEEN0; num <= CSR_SSTATEEN3; num++)
    t[num] = {[](Hart& h, uint16_t num) {
                const unsigned n = num - CSR_SSTATEEN0;
                return h.csr.sstateen[n] & sstateen_writable(h, n);
              },
              [](Hart& h, uint16_t num, uint64_t v) {
                const unsigned n = num - CSR_SSTATEEN0;
                h.csr.sstateen[n] = v & sstateen_writable(h, n);
              },
              check_sstateen};
}

}  // namespace brisk::csr
