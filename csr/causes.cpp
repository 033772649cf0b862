#include "csr/causes.h"

namespace brisk::cause {

const char* name(uint64_t c) {
  switch (c) {
    case kInstructionAddressMisaligned: return "instruction address misaligned";
    case kInstructionAccessFault: return "instruction access fault";
    case kIllegalInstruction: return "illegal instruction";
    case kBreakpoint: return "breakpoint";
    case kLoadAddressMisaligned: return "load address misaligned";
    case kLoadAccessFault: return "load access fault";
    case kStoreAmoAddressMisaligned: return "store/AMO address misaligned";
    case kStoreAmoAccessFault: return "store/AMO access fault";
    case kEcallFromU: return "environment call from U-mode";
    case kEcallFromS: return "environment call from S-mode";
    case kEcallFromVS: return "environment call from VS-mode";
    case kEcallFromM: return "environment call from M-mode";
    case kInstructionPageFault: return "instruction page fault";
    case kLoadPageFault: return "load page fault";
    case kStoreAmoPageFault: return "store/AMO page fault";
    case kSoftwareCheck: return "software check";
    case kHardwareError: return "hardware error";
    case kInstructionGuestPageFault: return "instruction guest-page fault";
    case kLoadGuestPageFault: return "load guest-page fault";
    case kVirtualInstruction: return "virtual instruction";
    case kStoreAmoGuestPageFault: return "store/AMO guest-page fault";
    default: return "reserved exception";
  }
}

}  // namespace brisk::cause
