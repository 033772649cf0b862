// Smcdeleg/Ssccfg: counters M-mode delegates to S, reached through siselect 0x40 + i and sireg*,
// and scountinhibit; with Sscofpmf's scountovf, which the delegation rules also touch.
#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/table.h"
#include "runtime/hart.h"

namespace brisk::csr {

namespace {

constexpr uint64_t kCounterSelect = 0x40;  // siselect of counter 0

bool cde(const Hart& h) { return h.csr.menvcfg & MENVCFG_CDE; }

// Counter i is delegated iff menvcfg.CDE = 1 and mcounteren[i] = 1. CDE is writable only with
// Smcdeleg, so it also says the extensions exist. Bit 1 is time, never delegated: mtime is not a
// supervisor-managed counter, hence the hole at siselect 0x41.
uint32_t delegated(const Hart& h) { return cde(h) ? static_cast<uint32_t>(h.csr.mcounteren) & ~2u : 0; }

// Whether the state behind sireg (ireg 1) or sireg2 (ireg 2) of counter i exists
// (Table "Indirect HPM State Mappings").
bool implemented(const IsaConfig& isa, unsigned i, unsigned ireg) {
  if (i >= pmu::kFirstHpm) return isa.has(Ext::Zihpm);
  return isa.has(ireg == 1 ? Ext::Zicntr : Ext::Smcntrpmf);
}

// sireg and sireg2 (ireg 1, 2) are the counter and its configuration; on RV32 sireg4 and sireg5
// are their bits 63:32 (Table "Indirect HPM State Mappings"), and sireg and sireg2 their low halves.
// The rest are unused.
unsigned low_ireg(const Hart& h, unsigned ireg) { return h.rv32 && (ireg == 4 || ireg == 5) ? ireg - 3 : ireg; }

Status counter_check(Hart& h, const Insn& insn, uint64_t select, unsigned ireg, bool, bool virt) {
  // VS-mode: the hypervisor emulates a vPMU, guest counters are never hardware-delegated.
  if (virt) return cde(h) ? virtual_instruction(h, insn) : h.illegal(insn);
  const unsigned i = static_cast<unsigned>(select - kCounterSelect);
  ireg = low_ireg(h, ireg);
  if (!((delegated(h) >> i) & 1) || (ireg != 1 && ireg != 2) || !implemented(h.csr.isa, i, ireg))
    return h.illegal(insn);
  return Status::Next;
}

// sireg2 is the counter's configuration with MINH, M-mode's own filter, read-only zero.
uint64_t counter_read(Hart& h, uint64_t select, unsigned ireg) {
  const unsigned i = static_cast<unsigned>(select - kCounterSelect);
  const uint64_t v = low_ireg(h, ireg) == 1 ? pmu::counter(h, i) : pmu::config(h, i) & ~pmu::EVENT_MINH;
  return ireg > 3 ? v >> 32 : v;
}

void counter_write(Hart& h, uint64_t select, unsigned ireg, uint64_t v) {
  const unsigned i = static_cast<unsigned>(select - kCounterSelect);
  const bool counter = low_ireg(h, ireg) == 1;
  if (h.rv32) {  // one half of the register; the other stays
    const uint64_t old = counter ? pmu::counter(h, i) : pmu::config(h, i);
    v = ireg > 3 ? (old & 0xffffffff) | v << 32 : (old & ~0xffffffffull) | (v & 0xffffffff);
  }
  if (counter)
    pmu::set_counter(h, i, v);
  else
    pmu::set_config(h, i, (v & ~pmu::EVENT_MINH) | (pmu::config(h, i) & pmu::EVENT_MINH));
}

}  // namespace

const IregDef kCounterDelegationIreg = {counter_check, counter_read, counter_write};

Status check_scountinhibit(Hart& h, const Insn& i, bool, bool virt) {
  if (!cde(h)) return h.illegal(i);
  if (virt) return virtual_instruction(h, i);
  return Status::Next;
}

Status check_scountovf(Hart& h, const Insn& i, bool, bool virt) {
  if (!h.csr.isa.has(Ext::Sscofpmf)) return h.illegal(i);
  // With delegation on, the hypervisor virtualizes overflow for its guests.
  if (virt && cde(h)) return virtual_instruction(h, i);
  return Status::Next;
}

void define_cdeleg(Table& t) {
  // A masked alias of mcountinhibit: the bits of delegated counters, the rest read-only zero.
  t[CSR_SCOUNTINHIBIT] = {[](Hart& h, uint16_t) -> uint64_t { return pmu::inhibit(h) & delegated(h); },
                          [](Hart& h, uint16_t, uint64_t v) {
                            const uint32_t d = delegated(h);
                            pmu::set_inhibit(h, (pmu::inhibit(h) & ~d) | (static_cast<uint32_t>(v) & d));
                          },
                          [](Hart& h, const Insn& i, bool write) {
                            return check_scountinhibit(h, i, write, virtual_mode(h));
                          }};
  // Below M, bit i reads as zero unless mcounteren[i] is set (with H, VS also needs hcounteren[i]).
  t[CSR_SCOUNTOVF] = {[](Hart& h, uint16_t) -> uint64_t {
                        const uint32_t visible = h.priv == Priv::M ? ~0u : static_cast<uint32_t>(h.csr.mcounteren);
                        return pmu::overflow_bits(h) & visible;
                      },
                      nullptr,
                      [](Hart& h, const Insn& i, bool write) { return check_scountovf(h, i, write, virtual_mode(h)); }};
}

}  // namespace brisk::csr
