// The CSR table: one Def per CSR address. Each extension's file fills in its own CSRs.
#pragma once

#include <array>
#include <cstdint>

namespace brisk {
struct Hart;
struct Insn;
enum class Status : uint32_t;
}  // namespace brisk

namespace brisk::csr {

// How to read a CSR, how to write it (nullptr: read-only), and any access rule beyond the privilege
// level and read-only bits encoded in its address (counteren, stateen, an extension being off ...).
struct Def {
  uint64_t (*read)(Hart& h, uint16_t num) = nullptr;
  void (*write)(Hart& h, uint16_t num, uint64_t v) = nullptr;
  Status (*check)(Hart& h, const Insn& insn, bool write) = nullptr;
  // Where CSRRS/CSRRC start from when it is not what a read returns (mip: the interrupt controller's
  // SEIP line reads as set but is never written back into the software-writable bit).
  uint64_t (*rmw_read)(Hart& h, uint16_t num) = nullptr;
};

using Table = std::array<Def, 4096>;

// Each fills in the CSRs of one area; csr.cpp calls them all once.
void define_pmu(Table& t);       // csr/pmu.cpp: counters, events, inhibit, Sscofpmf, Smcntrpmf
void define_stateen(Table& t);   // csr/stateen.cpp: Smstateen/Ssstateen
void define_indirect(Table& t);  // csr/indirect.cpp: Smcsrind/Sscsrind
void define_cdeleg(Table& t);    // csr/cdeleg.cpp: Smcdeleg/Ssccfg, and Sscofpmf's scountovf
void define_ctr(Table& t);       // csr/ctr.cpp: Smctr/Ssctr
void define_triggers(Table& t);  // csr/trigger.cpp: Sdtrig
void define_snitch(Table& t);    // csr/snitch.cpp: the Snitch cluster's SSR, fpmode and barrier

// The hart's V bit. Always 0 until brisk implements H; access rules that differ for VS/VU take it as
// their `virt` argument.
inline bool virtual_mode(const Hart&) { return false; }

// The virtual-instruction exception (H) for the instruction i, with tval = its encoding.
Status virtual_instruction(Hart& h, const Insn& i);

// Raises the exception the state-enable CSRs give the current mode for touching the state guarded by
// stateen bit `bit` (mstateen<bit / 64> bit bit % 64; see STATEEN0_* in privileged.h), or returns
// Status::Next when they allow it. For a Def's check, and for instructions such as SCTRCLR.
Status stateen_check(Hart& h, const Insn& insn, unsigned bit, bool virt);

// What an extension supplies for its range of xiselect values, like a CSR's Def: check raises the
// exception an access to xireg<ireg> (1..6) gets, before any side effect; read and write are then
// called only for accesses check allowed.
struct IregDef {
  Status (*check)(Hart& h, const Insn& insn, uint64_t select, unsigned ireg, bool write, bool virt);
  uint64_t (*read)(Hart& h, uint64_t select, unsigned ireg);
  void (*write)(Hart& h, uint64_t select, unsigned ireg, uint64_t v);
};
// An inclusive range of select values and what answers there (see the range lists in indirect.cpp).
struct IregRange {
  uint64_t first, last;
  const IregDef* def;
};

extern const IregDef kCounterDelegationIreg;  // csr/cdeleg.cpp: siselect 0x40..0x5F
extern const IregDef kCtrEntryIreg;           // csr/ctr.cpp: siselect 0x200..0x2FF

// Smcdeleg/Ssccfg's scountinhibit and Sscofpmf's scountovf access rules, with V as an input.
Status check_scountinhibit(Hart& h, const Insn& insn, bool write, bool virt);
Status check_scountovf(Hart& h, const Insn& insn, bool write, bool virt);

// Smctr/Ssctr access rules with V as an input: sctrctl and sctrstatus (check_ctr), and sctrdepth,
// which VS-mode may never touch.
Status check_ctr(Hart& h, const Insn& insn, bool virt);
Status check_sctrdepth(Hart& h, const Insn& insn, bool virt);

}  // namespace brisk::csr
