// F and D extension state helpers shared by the FP semantics (runtime/fp.cpp), the CSRs and the JIT.
#pragma once

#include <array>
#include <cstdint>

#include "csr/privileged.h"
#include "runtime/hart.h"

namespace brisk {

// fcsr.fflags bits (unprivileged spec, "Accrued exception flag encoding").
namespace fflag {
constexpr uint8_t kNX = 1 << 0;  // inexact
constexpr uint8_t kUF = 1 << 1;  // underflow
constexpr uint8_t kOF = 1 << 2;  // overflow
constexpr uint8_t kDZ = 1 << 3;  // divide by zero
constexpr uint8_t kNV = 1 << 4;  // invalid operation
}  // namespace fflag

// Called whenever an instruction writes an f register, fflags or frm: marks mstatus.FS Dirty, so an
// OS knows to save the FP state. User mode starts Dirty, so this is one predictable branch there.
inline void fp_dirty(Hart& h) {
  if ((h.csr.mstatus & csr::MSTATUS_FS) != csr::MSTATUS_FS_DIRTY) [[unlikely]]
    h.csr.mstatus |= csr::MSTATUS_FS_DIRTY;
}

// The host SSE state FP semantics and translated code share while a hart runs: MXCSR in
// round-to-nearest-even with its sticky flag bits holding the hart's accrued fflags. Translated code
// runs FP arithmetic inline and lets the flags accrue there; kMxcsrToFflags maps them back.
extern const std::array<uint8_t, 64> kMxcsrToFflags;
// MXCSR in RNE with the given fflags accrued (translated code writes fflags with it).
extern const std::array<uint32_t, 32> kFflagsToMxcsr;
// MXCSR := RNE with the flags of h.fflags (on entering a hart, and after software writes fflags).
void load_host_flags(const Hart& h);

// The canonical NaN of a double (translated code writes it where an x86 NaN may be, jit/x64/translator.cpp).
constexpr uint64_t kCanonicalNaNDouble = 0x7ff8000000000000ull;

// A single-precision value in a 64-bit f register is NaN-boxed: bits 63:32 all ones.
inline uint64_t nan_box(uint32_t v) { return 0xffffffff00000000ull | v; }

// The single-precision operand held in an f register; an improperly boxed value reads as the canonical NaN.
inline uint32_t nan_unbox(uint64_t v) { return (v >> 32) == 0xffffffffu ? uint32_t(v) : 0x7fc00000u; }

}  // namespace brisk
