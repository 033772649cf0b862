// Host faults on guest memory are the guest's only inside guest code (runtime/host_fault.h); a fault
// anywhere else in brisk, including a null pointer, is brisk's own bug and ends the run as an
// internal error. The guest space never starts at host 0, so the two cannot be confused.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "runtime/guest_vm.h"
#include "runtime/hart.h"
#include "runtime/host_fault.h"

namespace brisk {
namespace {

constexpr uint64_t kPc = 0x12344;

void attach(Hart& h, const GuestVm& vm) {
  h.mem_base = vm.base();
  h.mem_limit = GuestVm::kLimit;
  h.pc = kPc;
}

uint8_t read_host(const void* p) { return *static_cast<const volatile uint8_t*>(p); }

TEST(HostFault, GuestSpaceIsAwayFromHostZeroAndInADisplacement) {
  GuestVm vm;
  const auto base = reinterpret_cast<uintptr_t>(vm.base());
  EXPECT_GE(base, uintptr_t(1) << 29);
  EXPECT_LT(base, uintptr_t(1) << 31);
}

TEST(HostFault, GuestCodeTouchingGuestPageZeroIsAGuestPageFault) {
  GuestVm vm;
  Hart h{};
  attach(h, vm);
  HostFaultScope scope(h);
  if (sigsetjmp(scope.resume, 0) == 0) {
    GuestCode guest;
    read_host(vm.base() + 8);
    FAIL() << "guest page 0 is mapped";
  }
  EXPECT_EQ(h.trap.cause, cause::kLoadPageFault);
  EXPECT_EQ(h.trap.tval, 8u);
}

// A read of host address `at`, or of guest address 8 when at is 0, with a HostFaultScope around it.
void fault(bool in_guest_code, uintptr_t at) {
  GuestVm vm;
  Hart h{};
  attach(h, vm);
  HostFaultScope scope(h);
  if (sigsetjmp(scope.resume, 0) == 0) {
    std::optional<GuestCode> guest;
    if (in_guest_code) guest.emplace();
    volatile uintptr_t where = at ? at : reinterpret_cast<uintptr_t>(vm.base() + 8);  // opaque to the compiler
    read_host(reinterpret_cast<const void*>(where));
  }
  _exit(0);
}

// Each death test re-runs the binary, so that brisk's diag stream is the one the test reads. The
// status is the README's 70 (EX_SOFTWARE), written out rather than kInternalErrorStatus.
TEST(HostFaultDeathTest, BriskTouchingGuestMemoryIsAnInternalError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fault(false, 0), ::testing::ExitedWithCode(70),
              "^brisk: internal error: SIGSEGV at host address 0x[0-9a-f]+008, guest pc 0x12344\n$");
}

// A member of a struct at nullptr, inside guest code: still brisk's.
TEST(HostFaultDeathTest, NullPointerInGuestCodeIsAnInternalError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(fault(true, 16), ::testing::ExitedWithCode(70),
              "^brisk: internal error: SIGSEGV at host address 0x10, guest pc 0x12344\n$");
}

}  // namespace
}  // namespace brisk
