#include "csr/pmu.h"

#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/table.h"
#include "runtime/hart.h"

namespace brisk::pmu {

namespace {

bool inhibited(const Hart& h, unsigned i) { return (h.csr.pmu.inhibit >> i) & 1; }

// cycle and instret run from Hart::instret, which every engine keeps exact: value[] holds the offset
// to it while the counter runs, and the frozen count while mcountinhibit stops it.
bool derived(unsigned i) { return i == kCycle || i == kInstret; }

uint64_t implemented_fields(unsigned i) {
  const uint64_t filters = EVENT_MINH | EVENT_SINH | EVENT_UINH | EVENT_VSINH | EVENT_VUINH;
  return i >= kFirstHpm ? EVENT_OF | filters | EVENT_SELECTOR : filters;
}

void store(Hart& h, unsigned i, uint64_t v) {
  h.csr.pmu.value[i] = derived(i) && !inhibited(h, i) ? v - h.instret : v;
}

}  // namespace

uint64_t counter(const Hart& h, unsigned i) {
  if (derived(i) && !inhibited(h, i)) return h.instret + h.csr.pmu.value[i];
  return h.csr.pmu.value[i];
}

void set_counter(Hart& h, unsigned i, uint64_t v) {
  // A CSR write takes effect after its instruction completes: that instruction's own retirement,
  // which the engines count right after, must not show in the written value.
  store(h, i, derived(i) && !inhibited(h, i) ? v - 1 : v);
}

uint64_t config(const Hart& h, unsigned i) { return h.csr.pmu.config[i]; }

void set_config(Hart& h, unsigned i, uint64_t v) {
  h.csr.pmu.config[i] = v & implemented_fields(i);
  h.csr.pmu.generation++;
}

uint32_t inhibit(const Hart& h) { return h.csr.pmu.inhibit; }

void set_inhibit(Hart& h, uint32_t v) {
  v &= ~2u;  // bit 1 would be time, which never stops
  for (unsigned i : {kCycle, kInstret}) {
    const uint64_t now = counter(h, i);
    h.csr.pmu.inhibit = (h.csr.pmu.inhibit & ~(1u << i)) | (v & (1u << i));
    store(h, i, now);
  }
  h.csr.pmu.inhibit = v;
  h.csr.pmu.generation++;
}

uint32_t overflow_bits(const Hart& h) {
  uint32_t bits = 0;
  for (unsigned i = kFirstHpm; i < kNumCounters; i++)
    if (h.csr.pmu.config[i] & EVENT_OF) bits |= 1u << i;
  return bits;
}

}  // namespace brisk::pmu

namespace brisk::csr {

namespace {

// Zicntr/Zihpm reads below M-mode need the counter's bit in mcounteren (and scounteren for U).
Status check_counter(Hart& h, const Insn& i, bool) {
  const unsigned bit = static_cast<unsigned>(i.imm) & 31;
  if (h.priv != Priv::M && !((h.csr.mcounteren >> bit) & 1)) return h.illegal(i);
  if (h.priv == Priv::U && !((h.csr.scounteren >> bit) & 1)) return h.illegal(i);
  return Status::Next;
}

uint64_t read_time(Hart& h, uint16_t) { return h.csr.clock->now(); }

Status check_smcntrpmf(Hart& h, const Insn& i, bool) {
  return h.csr.isa.has(Ext::Smcntrpmf) ? Status::Next : h.illegal(i);
}
uint64_t read_counter(Hart& h, uint16_t n) { return pmu::counter(h, n & 31); }
void write_counter(Hart& h, uint16_t n, uint64_t v) { pmu::set_counter(h, n & 31, v); }

}  // namespace

void define_pmu(Table& t) {
  t[CSR_CYCLE] = {read_counter, nullptr, check_counter};
  t[CSR_TIME] = {read_time, nullptr, check_counter};
  t[CSR_INSTRET] = {read_counter, nullptr, check_counter};
  t[CSR_MCYCLE] = {read_counter, write_counter};
  t[CSR_MINSTRET] = {read_counter, write_counter};
  for (uint16_t n = CSR_HPMCOUNTER3; n <= CSR_HPMCOUNTER31; n++) t[n] = {read_counter, nullptr, check_counter};
  for (uint16_t n = CSR_MHPMCOUNTER3; n <= CSR_MHPMCOUNTER31; n++) t[n] = {read_counter, write_counter};
  for (uint16_t n = CSR_MHPMEVENT3; n <= CSR_MHPMEVENT31; n++)
    t[n] = {[](Hart& h, uint16_t n) { return pmu::config(h, n - CSR_MHPMEVENT3 + pmu::kFirstHpm); },
            [](Hart& h, uint16_t n, uint64_t v) { pmu::set_config(h, n - CSR_MHPMEVENT3 + pmu::kFirstHpm, v); }};
  // Smcntrpmf: the mode filters of cycle and instret.
  for (uint16_t n : {CSR_MCYCLECFG, CSR_MINSTRETCFG})
    t[n] = {[](Hart& h, uint16_t n) { return pmu::config(h, n - CSR_MCYCLECFG); },
            [](Hart& h, uint16_t n, uint64_t v) { pmu::set_config(h, n - CSR_MCYCLECFG, v); }, check_smcntrpmf};
  t[CSR_MCOUNTINHIBIT] = {[](Hart& h, uint16_t) -> uint64_t { return pmu::inhibit(h); },
                          [](Hart& h, uint16_t, uint64_t v) { pmu::set_inhibit(h, static_cast<uint32_t>(v)); }};
}

}  // namespace brisk::csr
