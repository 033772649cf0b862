// Field positions of the privileged architecture's status and trap CSRs, named as in the spec.
#pragma once

#include <cstdint>

namespace brisk::csr {

// mstatus / sstatus
constexpr uint64_t MSTATUS_SIE = 1ull << 1;
constexpr uint64_t MSTATUS_MIE = 1ull << 3;
constexpr uint64_t MSTATUS_SPIE = 1ull << 5;
constexpr uint64_t MSTATUS_UBE = 1ull << 6;
constexpr uint64_t MSTATUS_MPIE = 1ull << 7;
constexpr uint64_t MSTATUS_SPP = 1ull << 8;
constexpr uint64_t MSTATUS_VS = 3ull << 9;
constexpr uint64_t MSTATUS_MPP = 3ull << 11;
constexpr unsigned MSTATUS_MPP_SHIFT = 11;
constexpr uint64_t MSTATUS_FS = 3ull << 13;
constexpr uint64_t MSTATUS_FS_DIRTY = 3ull << 13;
constexpr uint64_t MSTATUS_XS = 3ull << 15;
constexpr uint64_t MSTATUS_MPRV = 1ull << 17;
constexpr uint64_t MSTATUS_SUM = 1ull << 18;
constexpr uint64_t MSTATUS_MXR = 1ull << 19;
constexpr uint64_t MSTATUS_TVM = 1ull << 20;
constexpr uint64_t MSTATUS_TW = 1ull << 21;
constexpr uint64_t MSTATUS_TSR = 1ull << 22;
constexpr uint64_t MSTATUS_UXL = 3ull << 32;
constexpr uint64_t MSTATUS_SXL = 3ull << 34;
constexpr uint64_t MSTATUS_SD = 1ull << 63;
constexpr uint64_t XLEN_64 = 2;  // UXL/SXL/MXL encoding of XLEN = 64
constexpr uint64_t MSTATUS32_SD = 1ull << 31;  // RV32's mstatus has SD in bit 31 and no UXL/SXL

constexpr uint64_t SSTATUS_MASK = MSTATUS_SIE | MSTATUS_SPIE | MSTATUS_UBE | MSTATUS_SPP | MSTATUS_VS |
                                  MSTATUS_FS | MSTATUS_XS | MSTATUS_SUM | MSTATUS_MXR | MSTATUS_UXL | MSTATUS_SD;

// Interrupt numbers (mip/mie bit positions, mcause codes with the interrupt bit)
constexpr unsigned IRQ_S_SOFT = 1;
constexpr unsigned IRQ_M_SOFT = 3;
constexpr unsigned IRQ_S_TIMER = 5;
constexpr unsigned IRQ_M_TIMER = 7;
constexpr unsigned IRQ_S_EXT = 9;
constexpr unsigned IRQ_M_EXT = 11;
constexpr unsigned IRQ_LCOF = 13;
// The Snitch cluster-local interrupt (CL_CLINT_SET/CLEAR, devices/snitch_periph.h): a platform
// interrupt, mie-writable only on the -M snitch machine's harts.
constexpr unsigned IRQ_M_CLUSTER = 19;
constexpr uint64_t MIP_SSIP = 1ull << IRQ_S_SOFT;
constexpr uint64_t MIP_MSIP = 1ull << IRQ_M_SOFT;
constexpr uint64_t MIP_STIP = 1ull << IRQ_S_TIMER;
constexpr uint64_t MIP_MTIP = 1ull << IRQ_M_TIMER;
constexpr uint64_t MIP_SEIP = 1ull << IRQ_S_EXT;
constexpr uint64_t MIP_MEIP = 1ull << IRQ_M_EXT;
constexpr uint64_t MIP_LCOFIP = 1ull << IRQ_LCOF;
constexpr uint64_t MIP_MCIP = 1ull << IRQ_M_CLUSTER;
// Supervisor-level interrupts: the ones mideleg may delegate.
constexpr uint64_t S_INTERRUPTS = MIP_SSIP | MIP_STIP | MIP_SEIP | MIP_LCOFIP;

// mtvec / stvec
constexpr uint64_t TVEC_MODE = 3;
constexpr uint64_t TVEC_VECTORED = 1;

// menvcfg / senvcfg
constexpr uint64_t ENVCFG_FIOM = 1ull << 0;
constexpr uint64_t ENVCFG_CBIE = 3ull << 4;
constexpr uint64_t ENVCFG_CBIE_FLUSH = 1ull << 4;  // cbo.inval flushes; 3 << 4 invalidates, 2 << 4 is reserved
constexpr uint64_t ENVCFG_CBCFE = 1ull << 6;
constexpr uint64_t ENVCFG_CBZE = 1ull << 7;
constexpr uint64_t MENVCFG_ADUE = 1ull << 61;
constexpr uint64_t MENVCFG_CDE = 1ull << 60;
constexpr uint64_t MENVCFG_STCE = 1ull << 63;

// mstateen0 / sstateen0 bit positions (Smstateen). Bit 63 of every mstateen<n> is its SE<n>, which
// guards sstateen<n>. stateen_check (csr/table.h) takes these, plus 64 * n for mstateen<n>.
constexpr unsigned STATEEN_SE = 63;
constexpr unsigned STATEEN0_ENVCFG = 62;
constexpr unsigned STATEEN0_CSRIND = 60;
constexpr unsigned STATEEN0_CTR = 54;

// satp
constexpr unsigned SATP_MODE_SHIFT = 60;
constexpr uint64_t SATP_MODE_BARE = 0;
constexpr uint64_t SATP_MODE_SV39 = 8;
constexpr uint64_t SATP_MODE_SV48 = 9;
constexpr uint64_t SATP_MODE_SV57 = 10;
constexpr unsigned SATP_ASID_SHIFT = 44;
constexpr uint64_t SATP_ASID_MASK = 0xffffull << SATP_ASID_SHIFT;
constexpr uint64_t SATP_PPN_MASK = (1ull << 44) - 1;
// RV32's satp: MODE is bit 31 (1 = Sv32), ASID bits 30:22, PPN bits 21:0.
constexpr unsigned SATP32_MODE_SHIFT = 31;
constexpr uint64_t SATP32_MODE_SV32 = 1;
constexpr uint64_t SATP32_PPN_MASK = (1ull << 22) - 1;

// Page table entries
constexpr uint64_t PTE_V = 1 << 0;
constexpr uint64_t PTE_R = 1 << 1;
constexpr uint64_t PTE_W = 1 << 2;
constexpr uint64_t PTE_X = 1 << 3;
constexpr uint64_t PTE_U = 1 << 4;
constexpr uint64_t PTE_G = 1 << 5;
constexpr uint64_t PTE_A = 1 << 6;
constexpr uint64_t PTE_D = 1 << 7;
constexpr unsigned PTE_PPN_SHIFT = 10;
constexpr uint64_t PTE_PPN_MASK = ((1ull << 44) - 1) << PTE_PPN_SHIFT;
constexpr uint64_t PTE_N = 1ull << 63;
constexpr uint64_t PTE_PBMT = 3ull << 61;
constexpr uint64_t PTE_RESERVED = ((1ull << 7) - 1) << 54;

// misa
constexpr uint64_t MISA_MXL_64 = 2ull << 62;
constexpr uint64_t MISA_MXL_32 = 1ull << 30;
constexpr uint64_t misa_letter(char c) { return 1ull << (c - 'A'); }

}  // namespace brisk::csr
