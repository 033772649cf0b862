// Host memory for guest RAM (runtime/bus.cpp, runtime/guest_vm.cpp), translated code
// (jit/x64/code_arena.h) and the heap (runtime/host_heap.cpp).
#include "jit/x64/code_arena.h"
#include "runtime/bus.h"
#include "runtime/elf_loader.h"
#include "runtime/guest_vm.h"
#include "runtime/host_heap.h"
#include "runtime/sanitizer.h"
#include "runtime/zeroed.h"
#include "tests/riscv_elf.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
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

// Tables from a ZeroedPool are zero, in one huge page that asks for huge pages, and a table the
// pool has no room for comes from calloc instead (and is freed as such).
TEST(HostMemory, ZeroedTablesComeFromAHugePageWhileItHasRoom) {
  struct Table {
    std::array<uint64_t, 96 * 1024> words;  // 768 KiB: two fit in a huge page, the third does not
  };
  ZeroedPool pool(kHostHugePage);
  ZeroedPtr<Table> a = make_zeroed<Table>(&pool), b = make_zeroed<Table>(&pool), c = make_zeroed<Table>(&pool);
  EXPECT_TRUE(a.get_deleter().pooled);
  EXPECT_TRUE(b.get_deleter().pooled);
  EXPECT_FALSE(c.get_deleter().pooled);
  const auto at = [](const auto& p) { return reinterpret_cast<uintptr_t>(p.get()); };
  EXPECT_EQ(at(a) % kHostHugePage, 0u);
  EXPECT_EQ(at(b), at(a) + sizeof(Table));
  EXPECT_NE(vm_flags_of(b.get()).find(" hg"), std::string::npos) << vm_flags_of(b.get());
  for (const auto* t : {a.get(), b.get(), c.get()})
    EXPECT_TRUE(std::all_of(t->words.begin(), t->words.end(), [](uint64_t w) { return w == 0; }));
  EXPECT_EQ(pool.take(kHostHugePage / 4 + 1, 1), nullptr);  // 512 KiB are left
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

// The device and inode of the mapping in /proc/self/maps that holds `p` ("00:00 0" for anonymous memory).
std::string mapped_file_of(const void* p) {
  std::ifstream maps("/proc/self/maps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  for (std::string line; std::getline(maps, line);) {
    unsigned long start = 0, end = 0;
    std::string range, perms, offset, dev, inode;
    std::istringstream(line) >> range >> perms >> offset >> dev >> inode;
    std::sscanf(range.c_str(), "%lx-%lx", &start, &end);
    if (at >= start && at < end) return dev + " " + inode;
  }
  return "";
}

// load_elf maps the pages wholly inside a segment's file bytes from the file and copies the
// partial pages at its ends: the guest sees the file's bytes and zeros past them either way.
TEST(HostMemory, LoadedSegmentsMapTheirWholePagesFromTheFile) {
  // Text: the file's first 0x3000 bytes at 0x10000, three whole pages. Data: 0x2200 bytes from
  // offset 0x3100 at 0x14100, a partial page, a whole one and a partial one, then 0xe00 bytes of bss.
  constexpr uint64_t kText = 0x10000, kData = 0x14100, kDataOff = 0x3100, kDataFile = 0x2200, kDataMem = 0x3000;
  const std::vector<Elf64_Phdr> ph = {
      {.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0, .p_vaddr = kText, .p_paddr = kText,
       .p_filesz = 0x3000, .p_memsz = 0x3000, .p_align = 0x1000},
      {.p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = kDataOff, .p_vaddr = kData, .p_paddr = kData,
       .p_filesz = kDataFile, .p_memsz = kDataMem, .p_align = 0x1000},
  };
  std::vector<uint8_t> file = test::riscv_elf(kText + 0x1000, ph, kDataOff + kDataFile);
  for (size_t i = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr) * ph.size(); i < file.size(); i++)
    file[i] = static_cast<uint8_t>(i * 7 + 3);
  char path[] = "/tmp/brisk-elf-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, file.data(), file.size()), static_cast<ssize_t>(file.size()));
  close(fd);
  GuestVm vm;
  const LoadedElf elf = load_elf(vm, path, false);
  unlink(path);
  EXPECT_EQ(elf.entry, kText + 0x1000);
  const uint8_t* g = vm.base();
  EXPECT_EQ(std::memcmp(g + kText, file.data(), 0x3000), 0);
  EXPECT_EQ(std::memcmp(g + kData, file.data() + kDataOff, kDataFile), 0);
  for (uint64_t a = kData + kDataFile; a < kData + kDataMem; a++) ASSERT_EQ(g[a], 0) << std::hex << a;
  const std::string anonymous = "00:00 0";
  for (uint64_t page : {kText, kText + 0x1000, kText + 0x2000, kData + 0xf00})
    EXPECT_NE(mapped_file_of(g + page), anonymous) << std::hex << page;
  for (uint64_t page : {kData - 0x100, kData + 0x1f00, kData + 0x2f00})
    EXPECT_EQ(mapped_file_of(g + page), anonymous) << std::hex << page;
  // Writes stay the guest's own: the data page is private.
  vm.base()[kData + 0xf00] ^= 0xff;
  EXPECT_EQ(g[kData + 0xf00], static_cast<uint8_t>(file[kDataOff + 0xf00] ^ 0xff));
}

}  // namespace
}  // namespace brisk
