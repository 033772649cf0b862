// Smcsrind/Sscsrind: miselect/siselect and the alias CSRs mireg*/sireg*, which reach the register
// the select value names through a sorted list of select ranges per level.
#include <algorithm>
#include <span>

#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/table.h"
#include "runtime/hart.h"

namespace brisk::csr {

namespace {

// The select values each level implements, sorted and disjoint: registering a range is one line.
// miselect has none yet (Smaia's interrupt registers would go there).
constexpr std::span<const IregRange> kMachineRanges{};
constexpr IregRange kSupervisorRanges[] = {
    {0x40, 0x5F, &kCounterDelegationIreg},  // Smcdeleg/Ssccfg
    {ctr::kEntrySelectFirst, ctr::kEntrySelectLast, &kCtrEntryIreg},  // Smctr/Ssctr
};

constexpr bool sorted_and_disjoint(std::span<const IregRange> ranges) {
  for (size_t k = 0; k < ranges.size(); k++)
    if (ranges[k].first > ranges[k].last || (k > 0 && ranges[k - 1].last >= ranges[k].first)) return false;
  return true;
}
static_assert(sorted_and_disjoint(kMachineRanges) && sorted_and_disjoint(kSupervisorRanges));

const IregRange* find(std::span<const IregRange> ranges, uint64_t select) {
  auto after = std::upper_bound(ranges.begin(), ranges.end(), select,
                                [](uint64_t s, const IregRange& r) { return s < r.first; });
  if (after == ranges.begin() || select > std::prev(after)->last) return nullptr;
  return &*std::prev(after);
}

// One level's select CSR, its ranges, and the extension that provides them.
struct Window {
  Ext ext;
  uint64_t State::*select;
  std::span<const IregRange> ranges;
};
constexpr Window kMachine{Ext::Smcsrind, &State::miselect, kMachineRanges};
constexpr Window kSupervisor{Ext::Sscsrind, &State::siselect, kSupervisorRanges};

// Address bits 9:8 give the level: 0x35x machine, 0x15x supervisor.
const Window& window(uint16_t num) { return ((num >> 8) & 3) == 3 ? kMachine : kSupervisor; }

// xireg<k>: 0x?51..0x?53 are 1..3 and 0x?55..0x?57 are 4..6 (0x?54 is Smaia's xiph).
unsigned ireg_of(uint16_t num) {
  const unsigned k = num & 0xf;
  return k < 4 ? k : k - 1;
}

// Existence, then mstateen0.CSRIND below M (machine CSRs are reached only from M, which no stateen
// bit restricts).
Status check_window(Hart& h, const Insn& i, const Window& w, bool virt) {
  if (!h.csr.isa.has(w.ext)) return h.illegal(i);
  return stateen_check(h, i, STATEEN0_CSRIND, virt);
}

Status check_iselect(Hart& h, const Insn& i, bool) {
  return check_window(h, i, window(static_cast<uint16_t>(i.imm)), virtual_mode(h));
}

Status check_ireg(Hart& h, const Insn& i, bool write) {
  const uint16_t num = static_cast<uint16_t>(i.imm);
  const bool virt = virtual_mode(h);
  const Window& w = window(num);
  if (Status st = check_window(h, i, w, virt); st != Status::Next) return st;
  // With H, V=1 selects through vsiselect instead.
  const uint64_t select = h.csr.*w.select;
  const IregRange* r = find(w.ranges, select);
  // Select values nothing implements (reserved, custom, or another extension's that is absent) are
  // UNSPECIFIED; the spec recommends illegal-instruction, so that M-mode can emulate them.
  if (!r) return h.illegal(i);
  return r->def->check(h, i, select, ireg_of(num), write, virt);
}

// Called only after check_ireg found the range.
uint64_t read_ireg(Hart& h, uint16_t num) {
  const Window& w = window(num);
  const uint64_t select = h.csr.*w.select;
  return find(w.ranges, select)->def->read(h, select, ireg_of(num));
}

void write_ireg(Hart& h, uint16_t num, uint64_t v) {
  const Window& w = window(num);
  const uint64_t select = h.csr.*w.select;
  find(w.ranges, select)->def->write(h, select, ireg_of(num), v);
}

}  // namespace

void define_indirect(Table& t) {
  // xiselect keeps every bit written, so a custom value (bit 63 set) never aliases a standard one.
  for (uint16_t num : {CSR_MISELECT, CSR_SISELECT})
    t[num] = {[](Hart& h, uint16_t num) { return h.csr.*window(num).select; },
              [](Hart& h, uint16_t num, uint64_t v) { h.csr.*window(num).select = v; }, check_iselect};
  for (uint16_t num : {CSR_MIREG, CSR_MIREG2, CSR_MIREG3, CSR_MIREG4, CSR_MIREG5, CSR_MIREG6, CSR_SIREG,
                       CSR_SIREG2, CSR_SIREG3, CSR_SIREG4, CSR_SIREG5, CSR_SIREG6})
    t[num] = {read_ireg, write_ireg, check_ireg};
}

}  // namespace brisk::csr
