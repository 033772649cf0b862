#include "runtime/elf_loader.h"

#include <gelf.h>
#include <sys/mman.h>

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
    if (p.p_vaddr + p.p_memsz < p.p_vaddr || (p.p_vaddr - p.p_offset) % GuestVm::kPage)
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
  std::map<uint64_t, int> page_prot;
  for (const auto& p : ph) {
    if (p.p_type != PT_LOAD) continue;
    f.read(p.p_offset, vm.base() + out.bias + p.p_vaddr, p.p_filesz);
    for (uint64_t pg = GuestVm::page_down(p.p_vaddr); pg < p.p_vaddr + p.p_memsz; pg += GuestVm::kPage)
      page_prot[pg] |= segment_prot(p.p_flags);
    out.end = std::max(out.end, out.bias + p.p_vaddr + p.p_memsz);
  }
  // Apply in runs of equal rights; pages no segment covers are unmapped, as Linux leaves them.
  uint64_t run = lo;
  int run_prot = -1;
  for (uint64_t pg = lo; pg <= hi; pg += GuestVm::kPage) {
    auto it = page_prot.find(pg);
    int prot = pg == hi ? -2 : it == page_prot.end() ? -1 : it->second;
    if (pg != lo && prot == run_prot) continue;
    if (pg != lo) {
      if (run_prot == -1)
        vm.unmap(run + out.bias, pg - run);
      else
        vm.protect(run + out.bias, pg - run, run_prot);
    }
    run = pg;
    run_prot = prot;
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
