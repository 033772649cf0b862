#include "runtime/elf_loader.h"

#include <gelf.h>
#include <sys/mman.h>

#include <vector>

#include "runtime/elf_file.h"
#include "runtime/error.h"
#include "runtime/input_file.h"

namespace brisk {

namespace {

// Linux riscv64 places a PIE main program at 2/3 of the user address space (ELF_ET_DYN_BASE).
constexpr uint64_t kEtDynBase = (GuestVm::kLimit / 3 * 2) & ~(GuestVm::kPage - 1);

int segment_prot(uint32_t flags) {
  return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) | (flags & PF_X ? PROT_EXEC : 0);
}

// The file's bytes [off, off + n) at guest address va, in memory mapped writable: the pages wholly
// inside them as a private mapping of the file, which costs a host fault only where the guest
// touches them (a start-up copied every page), and the partial pages at the ends copied, so that
// what shares their page with another segment or lies beyond the file's bytes is as before.
void load_segment(GuestVm& vm, const ElfFile& f, uint64_t va, uint64_t off, uint64_t n) {
  const uint64_t lo = GuestVm::page_up(va), hi = GuestVm::page_down(va + n);
  if (lo >= hi || !vm.overlay_file(lo, hi - lo, f.fd(), off + (lo - va))) {
    f.read(off, vm.base() + va, n);
    return;
  }
  f.read(off, vm.base() + va, lo - va);
  f.read(off + (hi - va), vm.base() + hi, va + n - hi);
}

}  // namespace

LoadedElf load_elf(GuestVm& vm, const std::string& path, bool interpreter) {
  const ElfFile f(path, interpreter ? "interpreter" : "program");
  const std::string shown = printable(path);
  if (f.xlen() == 32)
    throw Error("{} is a 32-bit (RV32) ELF; brisk run runs riscv64 programs (RV32 is for brisk system --cpu rv32)",
                shown);
  const GElf_Ehdr& eh = f.header();
  const std::vector<GElf_Phdr>& ph = f.segments();

  LoadedElf out;
  uint64_t lo = ~0ull, hi = 0;
  for (const auto& p : ph) {
    if (p.p_type == PT_INTERP) {
      if (p.p_filesz == 0 || p.p_filesz > 4096) throw Error("{}: corrupt PT_INTERP", shown);
      std::string s(p.p_filesz, '\0');
      f.read(p.p_offset, s.data(), s.size());
      out.interp = s.c_str();
    }
    if (p.p_type != PT_LOAD) continue;
    if ((p.p_vaddr - p.p_offset) % GuestVm::kPage)
      throw Error("{}: corrupt ELF: misaligned segment at {:#x}", shown, p.p_vaddr);
    // ElfFile checked that no segment's pages wrap.
    lo = std::min(lo, GuestVm::page_down(p.p_vaddr));
    hi = std::max(hi, GuestVm::page_up(p.p_vaddr + p.p_memsz));
  }
  if (hi == 0) throw Error("{}: no loadable segments", shown);

  uint64_t at = lo;
  if (eh.e_type == ET_DYN) {
    at = interpreter ? vm.find_free(hi - lo) : kEtDynBase;
    if (!at) throw Error("{}: no room in the guest address space", shown);
  }
  if (at > GuestVm::kLimit || hi - lo > GuestVm::kLimit - at)
    throw Error("{}: segments at {:#x}..{:#x} do not fit the guest address space (below {:#x})", shown, lo, hi,
                GuestVm::kLimit);
  out.bias = at - lo;

  // Map the span writable, read every segment in, then give each page the union of its segments'
  // rights. Segments are sorted and disjoint (ElfFile), so only a boundary page can be shared.
  if (vm.map(lo + out.bias, hi - lo, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) < 0)
    throw Error("{}: cannot map {:#x} bytes of segments at {:#x}", shown, hi - lo, lo + out.bias);
  struct Run {
    uint64_t start, end;
    int prot;
  };
  std::vector<Run> runs;
  for (const auto& p : ph) {
    if (p.p_type != PT_LOAD) continue;
    load_segment(vm, f, out.bias + p.p_vaddr, p.p_offset, p.p_filesz);
    uint64_t start = GuestVm::page_down(p.p_vaddr);
    const uint64_t end = GuestVm::page_up(p.p_vaddr + p.p_memsz);
    const int prot = segment_prot(p.p_flags);
    if (!runs.empty() && start < runs.back().end) {  // the previous segment's last page
      const int shared = runs.back().prot | prot;
      runs.back().end = start;
      if (runs.back().start == start) runs.pop_back();
      runs.push_back({start, start + GuestVm::kPage, shared});
      start += GuestVm::kPage;
    }
    if (start < end) runs.push_back({start, end, prot});
    if (prot & PROT_EXEC)
      out.code.push_back({out.bias + GuestVm::page_down(p.p_vaddr), end - GuestVm::page_down(p.p_vaddr),
                          GuestVm::page_down(p.p_offset)});
    out.end = std::max(out.end, out.bias + p.p_vaddr + p.p_memsz);
  }
  // Pages no segment covers are unmapped, as Linux leaves them.
  uint64_t next = lo;
  for (const Run& r : runs) {
    if (r.start > next) vm.unmap(next + out.bias, r.start - next);
    vm.protect(r.start + out.bias, r.end - r.start, r.prot);
    next = r.end;
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
