// Host memory for guest RAM (runtime/bus.cpp, runtime/guest_vm.cpp), translated code
// (jit/x64/code_arena.h) and the heap (runtime/host_heap.cpp).
#include "jit/x64/code_arena.h"
#include "runtime/bus.h"
#include "runtime/guest_vm.h"
#include "runtime/host_heap.h"
#include "runtime/sanitizer.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace brisk {
namespace {

// The VmFlags line of the mapping in /proc/self/smaps that holds `p`.
std::string vm_flags_of(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::string first;
    std::istringstream(line) >> first;
    if (first.back() != ':') {  // a mapping's header, "start-end perms ...", not a "Key: value" line
      unsigned long start = 0, end = 0;
      std::sscanf(first.c_str(), "%lx-%lx", &start, &end);
      inside = at >= start && at < end;
    } else if (inside && first == "VmFlags:") {
      return line;
    }
  }
  return "";
}

TEST(HostMemory, GuestRamStartsOnAHugePageAndAsksForThem) {
  Bus bus(0x80000000, 64 << 20);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bus.ram()) % (2 << 20), 0u);
  EXPECT_EQ(bus.ram_ptr(0x80000000, 1), bus.ram());
  // "hg": MADV_HUGEPAGE (the kernel's proc(5) VmFlags).
  EXPECT_NE(vm_flags_of(bus.ram() + (32 << 20)).find(" hg"), std::string::npos) << vm_flags_of(bus.ram());
  bus.ram()[(64 << 20) - 1] = 1;  // the last byte is RAM
}

TEST(HostMemory, CodeArenaAsksForHugePages) {
  x64::CodeArena arena(16 << 20);
  EXPECT_NE(vm_flags_of(arena.cursor() + (8 << 20)).find(" hg"), std::string::npos) << vm_flags_of(arena.cursor());
}

// User mode's private anonymous memory asks for huge pages, a stack does not, and the guest's own
// advice reaches the host ("nh": MADV_NOHUGEPAGE).
TEST(HostMemory, UserModeMemoryAsksForHugePagesButNotForStacks) {
  GuestVm vm;
  constexpr uint64_t kHeap = 0x10000000, kStack = 0x20000000, kFile = 0x30000000, kLen = 8 << 20;
  ASSERT_EQ(vm.map(kHeap, kLen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
            static_cast<int64_t>(kHeap));
  ASSERT_EQ(vm.map(kStack, kLen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_STACK, -1, 0),
            static_cast<int64_t>(kStack));
  const int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(vm.map(kFile, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0), static_cast<int64_t>(kFile));
  close(fd);
  EXPECT_NE(vm_flags_of(vm.base() + kHeap + (4 << 20)).find(" hg"), std::string::npos);
  EXPECT_EQ(vm_flags_of(vm.base() + kStack + (4 << 20)).find(" hg"), std::string::npos)
      << vm_flags_of(vm.base() + kStack);
  EXPECT_EQ(vm_flags_of(vm.base() + kFile).find(" hg"), std::string::npos) << vm_flags_of(vm.base() + kFile);
  EXPECT_EQ(vm.advise(kHeap, 2 << 20, MADV_NOHUGEPAGE), 0);
  EXPECT_NE(vm_flags_of(vm.base() + kHeap).find(" nh"), std::string::npos) << vm_flags_of(vm.base() + kHeap);
  EXPECT_NE(vm_flags_of(vm.base() + kHeap + (4 << 20)).find(" hg"), std::string::npos);
  EXPECT_EQ(vm.advise(kStack, 2 << 20, MADV_HUGEPAGE), 0);
  EXPECT_NE(vm_flags_of(vm.base() + kStack).find(" hg"), std::string::npos) << vm_flags_of(vm.base() + kStack);
}

TEST(HostMemory, TheReservedHeapAsksForHugePagesAndStays) {
#ifdef BRISK_ASAN
  GTEST_SKIP() << "ASan's allocator has no brk heap; the build without it runs this";
#endif
  constexpr size_t kBytes = 64 << 20;
  ASSERT_TRUE(reserve_huge_heap(kBytes));
  const auto* top = static_cast<const char*>(sbrk(0));
  EXPECT_NE(vm_flags_of(top - 1).find(" hg"), std::string::npos) << vm_flags_of(top - 1);
  EXPECT_NE(vm_flags_of(top - (kBytes - (4 << 20))).find(" hg"), std::string::npos);
  // What is allocated and freed again stays in the heap, reserved.
  std::vector<void*> blocks;
  for (int i = 0; i < 4096; i++) blocks.push_back(malloc(4096));
  for (void* b : blocks) free(b);
  EXPECT_EQ(sbrk(0), top);
  EXPECT_FALSE(reserve_huge_heap(1 << 20));  // less than a huge page's worth
}

}  // namespace
}  // namespace brisk
