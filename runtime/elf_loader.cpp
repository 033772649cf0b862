#include "runtime/elf_loader.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include "runtime/error.h"

namespace brisk {

namespace {

// Linux riscv64 places a PIE main program at 2/3 of the user address space (ELF_ET_DYN_BASE).
constexpr uint64_t kEtDynBase = (GuestVm::kLimit / 3 * 2) & ~(GuestVm::kPage - 1);

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

struct ElfHandle {
  Elf* elf;
  ~ElfHandle() { elf_end(elf); }
};

const char* machine_name(unsigned m) {
  switch (m) {
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_AARCH64: return "AArch64";
    case EM_ARM: return "ARM";
    case EM_RISCV: return "RISC-V";
    default: return "another machine";
  }
}

int segment_prot(uint32_t flags) {
  return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) | (flags & PF_X ? PROT_EXEC : 0);
}

}  // namespace

LoadedElf load_elf(GuestVm& vm, const std::string& path, bool interpreter) {
  Fd f{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) throw Error("cannot open {}: {}", path, strerror(errno));
  struct stat st;
  if (fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) throw Error("{} is not a regular file", path);
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);

  elf_version(EV_CURRENT);
  ElfHandle e{elf_begin(f.fd, ELF_C_READ, nullptr)};
  if (!e.elf || elf_kind(e.elf) != ELF_K_ELF) throw Error("{} is not an ELF file", path);
  if (gelf_getclass(e.elf) != ELFCLASS64)
    throw Error("{} is a 32-bit ELF; brisk runs riscv64 (ELFCLASS64) programs", path);
  GElf_Ehdr eh;
  if (!gelf_getehdr(e.elf, &eh)) throw Error("{}: corrupt ELF header: {}", path, elf_errmsg(-1));
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) throw Error("{} is a big-endian ELF; RISC-V is little-endian", path);
  if (eh.e_machine != EM_RISCV)
    throw Error("{} is an ELF for {} (e_machine {}), not RISC-V", path, machine_name(eh.e_machine), eh.e_machine);
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
    throw Error("{} is not an executable (ELF type {})", path, eh.e_type);

  size_t phnum = 0;
  if (elf_getphdrnum(e.elf, &phnum) != 0 || phnum == 0)
    throw Error("{}: corrupt ELF: no program headers ({})", path, elf_errmsg(-1));
  std::vector<GElf_Phdr> ph(phnum);
  for (size_t i = 0; i < phnum; i++)
    if (!gelf_getphdr(e.elf, static_cast<int>(i), &ph[i]))
      throw Error("{}: truncated or corrupt program header {}: {}", path, i, elf_errmsg(-1));

  LoadedElf out;
  uint64_t lo = ~0ull, hi = 0;
  for (const auto& p : ph) {
    if (p.p_type == PT_INTERP) {
      if (p.p_filesz == 0 || p.p_filesz > 4096 || p.p_offset + p.p_filesz > file_size)
        throw Error("{}: corrupt PT_INTERP", path);
      std::string s(p.p_filesz, '\0');
      if (pread(f.fd, s.data(), s.size(), static_cast<off_t>(p.p_offset)) != static_cast<ssize_t>(s.size()))
        throw Error("{}: cannot read PT_INTERP", path);
      out.interp = s.c_str();
    }
    if (p.p_type != PT_LOAD) continue;
    if (p.p_filesz > p.p_memsz || p.p_offset + p.p_filesz < p.p_offset || p.p_offset + p.p_filesz > file_size)
      throw Error("{} is truncated or corrupt: a segment lies outside the file", path);
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
    uint8_t* dst = vm.base() + out.bias + p.p_vaddr;
    if (p.p_filesz && pread(f.fd, dst, p.p_filesz, static_cast<off_t>(p.p_offset)) != static_cast<ssize_t>(p.p_filesz))
      throw Error("{}: cannot read segment at offset {:#x}", path, p.p_offset);
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
  out.phnum = static_cast<uint16_t>(phnum);
  out.entry = out.bias + eh.e_entry;
  return out;
}

}  // namespace brisk
