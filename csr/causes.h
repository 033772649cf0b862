// mcause/scause exception and interrupt codes (privileged spec, Table "Machine cause register values").
#pragma once

#include <cstdint>

namespace brisk::cause {

constexpr uint64_t kInstructionAddressMisaligned = 0;
constexpr uint64_t kInstructionAccessFault = 1;
constexpr uint64_t kIllegalInstruction = 2;
constexpr uint64_t kBreakpoint = 3;
constexpr uint64_t kLoadAddressMisaligned = 4;
constexpr uint64_t kLoadAccessFault = 5;
constexpr uint64_t kStoreAmoAddressMisaligned = 6;
constexpr uint64_t kStoreAmoAccessFault = 7;
constexpr uint64_t kEcallFromU = 8;
constexpr uint64_t kEcallFromS = 9;
constexpr uint64_t kEcallFromVS = 10;
constexpr uint64_t kEcallFromM = 11;
constexpr uint64_t kInstructionPageFault = 12;
constexpr uint64_t kLoadPageFault = 13;
constexpr uint64_t kStoreAmoPageFault = 15;
constexpr uint64_t kSoftwareCheck = 18;
constexpr uint64_t kHardwareError = 19;
constexpr uint64_t kInstructionGuestPageFault = 20;
constexpr uint64_t kLoadGuestPageFault = 21;
constexpr uint64_t kVirtualInstruction = 22;
constexpr uint64_t kStoreAmoGuestPageFault = 23;

constexpr uint64_t kInterruptBit = 1ull << 63;
constexpr uint64_t kInterruptBit32 = 1ull << 31;  // RV32's

const char* name(uint64_t cause);

}  // namespace brisk::cause
