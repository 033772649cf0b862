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
};

using Table = std::array<Def, 4096>;

// Each fills in the CSRs of one area; csr.cpp calls them all once.
void define_pmu(Table& t);  // csr/pmu.cpp: counters, events, inhibit, Sscofpmf, Smcntrpmf

}  // namespace brisk::csr
