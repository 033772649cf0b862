#include "runtime/elf_loader.h"

#include <gelf.h>
#include <sys/mman.h>

#include <array>
#include <map>
#include <vector>

#include "runtime/elf_file.h"
#include "runtime/error.h"

namespace brisk {

namespace {

// Linux riscv64 places a PIE main program at 2/3 of the user address space (ELF_ET_DYN_BASE).
constexpr uint64_t kEtDynBase = (GuestVm::kLimit / 3 * 2) & ~(GuestVm::kPage - 1);

int segment_prot(uint32_t flags) {
  return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) | (flags & PF_X ? PROT_EXEC : 0);
}

}  // namespace

LoadedElf load_elf(GuestVm& vm, const std::string& path, bool interpreter) {
  const ElfFile f(path);
  const GElf_Ehdr& eh = f.header();
  const std::vector<GElf_Phdr>& ph = f.segments();

  LoadedElf out;
  uint64_t lo = ~0ull, hi = 0;
  for (const auto& p : ph) {
    if (p.p_type == PT_INTERP) {
      if (p.p_filesz == 0 || p.p_filesz > 4096) throw Error("{}: corrupt PT_INTERP", path);
      std::string s(p.p_filesz, '\0');
      f.read(p.p_offset, s.data(), s.size());
      out.interp = s.c_str();
    }
    if (p.p_type != PT_LOAD) continue;
    const uint64_t end = p.p_vaddr + p.p_memsz;
    if (end < p.p_vaddr || GuestVm::page_up(end) < end || (p.p_vaddr - p.p_offset) % GuestVm::kPage)
      throw Error("{}: corrupt ELF: misaligned segment at {:#x}", path, p.p_vaddr);
    lo = std::min(lo, GuestVm::page_down(p.p_vaddr));
    hi = std::max(hi, GuestVm::page_up(p.p_vaddr + p.p_memsz));
  }
  if (hi == 0) throw Error("{}: no loadable segments", path);

  if (eh.e_type == ET_DYN) {
    uint64_t at = interpreter ? vm.find_free(hi - lo) : kEtDynBase;
    if (!at) throw Error("{}: no room in the guest address space", path);
    out.bias = at - lo;
  }
  if (hi + out.bias > GuestVm::kLimit || hi + out.bias < hi)
    throw Error("{}: segments at {:#x}..{:#x} do not fit the guest address space", path, lo, hi);

  // Map the span writable, read every segment in, then give each page the union of its segments' rights.
  if (vm.map(lo + out.bias, hi - lo, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) < 0)
    throw Error("{}: cannot map segments at {:#x}", path, lo + out.bias);
  // Sweeping the segments' page-rounded bounds in order, counting the segments open with each of
  // PF_X, PF_W, PF_R and at all (per page, a huge bss would take forever).
  std::map<uint64_t, std::array<int, 4>> bounds;
  for (const auto& p : ph) {
    if (p.p_type != PT_LOAD) continue;
    f.read(p.p_offset, vm.base() + out.bias + p.p_vaddr, p.p_filesz);
    auto& start = bounds[GuestVm::page_down(p.p_vaddr)];
    auto& end = bounds[GuestVm::page_up(p.p_vaddr + p.p_memsz)];
    for (unsigned k = 0; k < 4; k++) {
      const bool has = k == 3 || (p.p_flags >> k & 1);
      start[k] += has;
      end[k] -= has;
    }
    out.end = std::max(out.end, out.bias + p.p_vaddr + p.p_memsz);
  }
  // Pages no segment covers are unmapped, as Linux leaves them.
  std::array<int, 4> open{};
  uint64_t from = lo;
  for (const auto& [at, change] : bounds) {
    if (at > from) {
      const uint32_t flags = (open[0] ? PF_X : 0) | (open[1] ? PF_W : 0) | (open[2] ? PF_R : 0);
      if (open[3] == 0)
        vm.unmap(from + out.bias, at - from);
      else
        vm.protect(from + out.bias, at - from, segment_prot(flags));
    }
    for (unsigned k = 0; k < 4; k++) open[k] += change[k];
    from = at;
  }

  for (const auto& p : ph)
    if (p.p_type == PT_PHDR) out.phdr = out.bias + p.p_vaddr;
  if (!out.phdr)
    for (const auto& p : ph)
      if (p.p_type == PT_LOAD && eh.e_phoff >= p.p_offset && eh.e_phoff < p.p_offset + p.p_filesz)
        out.phdr = out.bias + p.p_vaddr + (eh.e_phoff - p.p_offset);
  out.phent = eh.e_phentsize;
  out.phnum = static_cast<uint16_t>(ph.size());
  out.entry = out.bias + eh.e_entry;
  return out;
}

}  // namespace brisk
