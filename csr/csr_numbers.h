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

}  // namespace brisk::csr
