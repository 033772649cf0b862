// CSR addresses, named as in the RISC-V specifications.
#pragma once

#include <cstdint>

namespace brisk::csr {

// Unprivileged floating-point CSRs (F extension)
constexpr uint16_t CSR_FFLAGS = 0x001;
constexpr uint16_t CSR_FRM = 0x002;
constexpr uint16_t CSR_FCSR = 0x003;

// Zicntr / Zihpm user counters
constexpr uint16_t CSR_CYCLE = 0xC00;
constexpr uint16_t CSR_TIME = 0xC01;
constexpr uint16_t CSR_INSTRET = 0xC02;
constexpr uint16_t CSR_HPMCOUNTER3 = 0xC03;
constexpr uint16_t CSR_HPMCOUNTER31 = 0xC1F;

// Supervisor
constexpr uint16_t CSR_SSTATUS = 0x100;
constexpr uint16_t CSR_SIE = 0x104;
constexpr uint16_t CSR_STVEC = 0x105;
constexpr uint16_t CSR_SCOUNTEREN = 0x106;
constexpr uint16_t CSR_SENVCFG = 0x10A;
constexpr uint16_t CSR_SSTATEEN0 = 0x10C;
constexpr uint16_t CSR_SSTATEEN1 = 0x10D;
constexpr uint16_t CSR_SSTATEEN2 = 0x10E;
constexpr uint16_t CSR_SSTATEEN3 = 0x10F;
constexpr uint16_t CSR_SCOUNTINHIBIT = 0x120;
constexpr uint16_t CSR_SSCRATCH = 0x140;
constexpr uint16_t CSR_SEPC = 0x141;
constexpr uint16_t CSR_SCAUSE = 0x142;
constexpr uint16_t CSR_STVAL = 0x143;
constexpr uint16_t CSR_SIP = 0x144;
constexpr uint16_t CSR_STIMECMP = 0x14D;
constexpr uint16_t CSR_SCTRCTL = 0x14E;
constexpr uint16_t CSR_SCTRSTATUS = 0x14F;
constexpr uint16_t CSR_SISELECT = 0x150;
constexpr uint16_t CSR_SIREG = 0x151;
constexpr uint16_t CSR_SIREG2 = 0x152;
constexpr uint16_t CSR_SIREG3 = 0x153;
constexpr uint16_t CSR_SIREG4 = 0x155;
constexpr uint16_t CSR_SIREG5 = 0x156;
constexpr uint16_t CSR_SIREG6 = 0x157;
constexpr uint16_t CSR_SCTRDEPTH = 0x15F;
constexpr uint16_t CSR_SATP = 0x180;
constexpr uint16_t CSR_SCOUNTOVF = 0xDA0;

// Hypervisor (H): VS-mode's own copies of supervisor CSRs
constexpr uint16_t CSR_VSCTRCTL = 0x24E;

// Machine
constexpr uint16_t CSR_MVENDORID = 0xF11;
constexpr uint16_t CSR_MARCHID = 0xF12;
constexpr uint16_t CSR_MIMPID = 0xF13;
constexpr uint16_t CSR_MHARTID = 0xF14;
constexpr uint16_t CSR_MCONFIGPTR = 0xF15;
constexpr uint16_t CSR_MSTATUS = 0x300;
constexpr uint16_t CSR_MISA = 0x301;
constexpr uint16_t CSR_MEDELEG = 0x302;
constexpr uint16_t CSR_MIDELEG = 0x303;
constexpr uint16_t CSR_MIE = 0x304;
constexpr uint16_t CSR_MTVEC = 0x305;
constexpr uint16_t CSR_MCOUNTEREN = 0x306;
constexpr uint16_t CSR_MENVCFG = 0x30A;
constexpr uint16_t CSR_MSTATEEN0 = 0x30C;
constexpr uint16_t CSR_MSTATEEN1 = 0x30D;
constexpr uint16_t CSR_MSTATEEN2 = 0x30E;
constexpr uint16_t CSR_MSTATEEN3 = 0x30F;
constexpr uint16_t CSR_MCOUNTINHIBIT = 0x320;
constexpr uint16_t CSR_MCYCLECFG = 0x321;
constexpr uint16_t CSR_MINSTRETCFG = 0x322;
constexpr uint16_t CSR_MSCRATCH = 0x340;
constexpr uint16_t CSR_MEPC = 0x341;
constexpr uint16_t CSR_MCAUSE = 0x342;
constexpr uint16_t CSR_MTVAL = 0x343;
constexpr uint16_t CSR_MIP = 0x344;
constexpr uint16_t CSR_MCTRCTL = 0x34E;
constexpr uint16_t CSR_MISELECT = 0x350;
constexpr uint16_t CSR_MIREG = 0x351;
constexpr uint16_t CSR_MIREG2 = 0x352;
constexpr uint16_t CSR_MIREG3 = 0x353;
constexpr uint16_t CSR_MIREG4 = 0x355;
constexpr uint16_t CSR_MIREG5 = 0x356;
constexpr uint16_t CSR_MIREG6 = 0x357;
constexpr uint16_t CSR_PMPCFG0 = 0x3A0;
constexpr uint16_t CSR_PMPCFG15 = 0x3AF;
constexpr uint16_t CSR_PMPADDR0 = 0x3B0;
constexpr uint16_t CSR_PMPADDR63 = 0x3EF;
constexpr uint16_t CSR_MSECCFG = 0x747;
constexpr uint16_t CSR_MCYCLE = 0xB00;
constexpr uint16_t CSR_MINSTRET = 0xB02;
constexpr uint16_t CSR_MHPMCOUNTER3 = 0xB03;
constexpr uint16_t CSR_MHPMCOUNTER31 = 0xB1F;
constexpr uint16_t CSR_MHPMEVENT3 = 0x323;
constexpr uint16_t CSR_MHPMEVENT31 = 0x33F;

// RV32 only: bits 63:32 of the 64-bit registers (csr.cpp, rv32_register)
constexpr uint16_t CSR_MSTATUSH = 0x310;
constexpr uint16_t CSR_MEDELEGH = 0x312;
constexpr uint16_t CSR_MENVCFGH = 0x31A;
constexpr uint16_t CSR_MSTATEEN0H = 0x31C;
constexpr uint16_t CSR_MSTATEEN3H = 0x31F;
constexpr uint16_t CSR_STIMECMPH = 0x15D;
constexpr uint16_t CSR_CYCLEH = 0xC80;
constexpr uint16_t CSR_HPMCOUNTER31H = 0xC9F;
constexpr uint16_t CSR_MCYCLEH = 0xB80;
constexpr uint16_t CSR_MHPMCOUNTER31H = 0xB9F;
constexpr uint16_t CSR_MCYCLECFGH = 0x721;
constexpr uint16_t CSR_MHPMEVENT31H = 0x73F;

// Debug/trace trigger CSRs (Sdtrig, csr/trigger.cpp).
constexpr uint16_t CSR_TSELECT = 0x7A0;
constexpr uint16_t CSR_TDATA1 = 0x7A1;
constexpr uint16_t CSR_TDATA2 = 0x7A2;
constexpr uint16_t CSR_TDATA3 = 0x7A3;
constexpr uint16_t CSR_TINFO = 0x7A4;

// The Snitch cluster's custom CSRs (csr/snitch.cpp), on the -M snitch machine's harts only.
constexpr uint16_t CSR_SSR = 0x7C0;      // SSR enable, bit 0
constexpr uint16_t CSR_FPMODE = 0x7C1;
constexpr uint16_t CSR_BARRIER = 0x7C2;  // any access waits for every hart of the cluster

}  // namespace brisk::csr
