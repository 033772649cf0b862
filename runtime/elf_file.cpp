#include "runtime/elf_file.h"

#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "runtime/error.h"
#include "runtime/input_file.h"

namespace brisk {

namespace {

constexpr uint64_t kPage = 4096;

const char* machine_name(unsigned m) {
  switch (m) {
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_AARCH64: return "AArch64";
    case EM_ARM: return "ARM";
    default: return "another machine";
  }
}

}  // namespace

bool ElfFile::looks_like_elf(const std::string& path, const char* what) {
  uint64_t size = 0;
  const int fd = open_input(path, what, size);
  char magic[SELFMAG];
  bool elf = pread(fd, magic, SELFMAG, 0) == SELFMAG && std::memcmp(magic, ELFMAG, SELFMAG) == 0;
  close(fd);
  return elf;
}

ElfFile::ElfFile(const std::string& path, const char* what) : path_(path) {
  uint64_t file_size = 0;
  fd_ = open_input(path, what, file_size);
  const std::string shown = printable(path);
  elf_version(EV_CURRENT);
  elf_ = elf_begin(fd_, ELF_C_READ, nullptr);
  try {
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) throw Error("{} is not an ELF file", shown);
    const int elf_class = gelf_getclass(elf_);
    if (elf_class != ELFCLASS64 && elf_class != ELFCLASS32)
      throw Error("{}: corrupt ELF: unknown ELF class {}", shown, elf_class);
    xlen_ = elf_class == ELFCLASS32 ? 32 : 64;
    if (!gelf_getehdr(elf_, &eh_)) throw Error("{}: corrupt ELF header: {}", shown, elf_errmsg(-1));
    if (eh_.e_ident[EI_DATA] != ELFDATA2LSB) throw Error("{} is a big-endian ELF; RISC-V is little-endian", shown);
    if (eh_.e_machine != EM_RISCV)
      throw Error("{} is an ELF for {} (e_machine {}), not RISC-V", shown, machine_name(eh_.e_machine), eh_.e_machine);
    if (eh_.e_type != ET_EXEC && eh_.e_type != ET_DYN)
      throw Error("{} is not an executable (ELF type {})", shown, eh_.e_type);
    // libelf reads program headers at its own entry size: one of another size would be misread.
    const size_t phent = xlen_ == 32 ? sizeof(Elf32_Phdr) : sizeof(Elf64_Phdr);
    if (eh_.e_phentsize != phent)
      throw Error("{}: corrupt ELF: e_phentsize is {}, not {}", shown, eh_.e_phentsize, phent);
    if (eh_.e_phnum != PN_XNUM && (eh_.e_phoff > file_size || eh_.e_phnum > (file_size - eh_.e_phoff) / phent))
      throw Error("{}: corrupt ELF: {} program headers at offset {:#x} run past the end of the file ({} bytes)", shown,
                  eh_.e_phnum, eh_.e_phoff, file_size);
    size_t phnum = 0;
    if (elf_getphdrnum(elf_, &phnum) != 0)
      throw Error("{}: corrupt ELF: unreadable program headers ({})", shown, elf_errmsg(-1));
    if (phnum == 0) throw Error("{}: corrupt ELF: no program headers", shown);
    ph_.resize(phnum);
    for (size_t i = 0; i < phnum; i++)
      if (!gelf_getphdr(elf_, static_cast<int>(i), &ph_[i]))
        throw Error("{}: truncated or corrupt program header {}: {}", shown, i, elf_errmsg(-1));
    // The loaders rely on these: every PT_LOAD inside the file, its pages (rounded up) below 2^64 in
    // both address spaces (2^32 for ELFCLASS32), and the segments in ascending, disjoint order (as
    // the ELF spec requires).
    const uint64_t top = (xlen_ == 32 ? uint64_t(UINT32_MAX) : ~uint64_t(0)) - kPage + 1;  // page_up would wrap past it
    const GElf_Phdr* prev = nullptr;
    for (size_t i = 0; i < phnum; i++) {
      const GElf_Phdr& p = ph_[i];
      if (p.p_type != PT_LOAD) continue;
      if (p.p_filesz > p.p_memsz)
        throw Error("{}: corrupt ELF: segment {} has p_filesz {:#x} larger than p_memsz {:#x}", shown, i, p.p_filesz,
                    p.p_memsz);
      if (p.p_offset > file_size || p.p_filesz > file_size - p.p_offset)
        throw Error("{} is truncated or corrupt: segment {} ({:#x} bytes at offset {:#x}) lies outside the file "
                    "({} bytes)", shown, i, p.p_filesz, p.p_offset, file_size);
      if (p.p_vaddr > top || p.p_memsz > top - p.p_vaddr || p.p_paddr > top || p.p_memsz > top - p.p_paddr)
        throw Error("{}: corrupt ELF: segment {} ({:#x} bytes at {:#x}) reaches the end of the address space", shown,
                    i, p.p_memsz, p.p_vaddr);
      if (prev && p.p_vaddr < prev->p_vaddr + prev->p_memsz)
        throw Error("{}: corrupt ELF: segment {} at {:#x} overlaps or comes before the one ending at {:#x}", shown, i,
                    p.p_vaddr, prev->p_vaddr + prev->p_memsz);
      prev = &p;
    }
  } catch (...) {
    if (elf_) elf_end(elf_);
    close(fd_);
    throw;
  }
}

ElfFile::~ElfFile() {
  elf_end(elf_);
  close(fd_);
}

void ElfFile::read(uint64_t off, void* dst, size_t n) const {
  if (n && pread(fd_, dst, n, static_cast<off_t>(off)) != static_cast<ssize_t>(n))
    throw Error("{}: cannot read {} bytes at offset {:#x}", printable(path_), n, off);
}

void ElfFile::each_symbol(unsigned type, const std::function<bool(const GElf_Sym&, const char*)>& fn) const {
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(k), &sym)) break;
      const char* name = elf_strptr(elf_, sh.sh_link, sym.st_name);
      if (name && !fn(sym, name)) return;
    }
  }
}

std::optional<uint64_t> ElfFile::symbol(const std::string& name) const {
  std::optional<uint64_t> value;
  each_symbol(SHT_SYMTAB, [&](const GElf_Sym& sym, const char* s) {
    if (name == s) value = sym.st_value;
    return !value;
  });
  return value;
}

std::vector<ElfFile::Function> ElfFile::functions() const {
  std::vector<Function> out;
  for (const unsigned type : {SHT_SYMTAB, SHT_DYNSYM}) {
    each_symbol(type, [&](const GElf_Sym& sym, const char* name) {
      if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != SHN_UNDEF && *name)
        out.push_back({sym.st_value, sym.st_size, name});
      return true;
    });
    if (!out.empty()) break;  // .dynsym only repeats what .symtab has
  }
  std::sort(out.begin(), out.end(), [](const Function& a, const Function& b) { return a.addr < b.addr; });
  return out;
}

std::optional<std::vector<uint8_t>> ElfFile::build_id() const {
  for (const GElf_Phdr& p : ph_) {
    if (p.p_type != PT_NOTE) continue;
    // libelf checks that the chunk lies inside the file; notes are 8-aligned only in such segments.
    Elf_Data* data = elf_getdata_rawchunk(elf_, static_cast<int64_t>(p.p_offset), p.p_filesz,
                                          p.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
    if (!data) continue;
    GElf_Nhdr nh;
    size_t name_off = 0, desc_off = 0;
    for (size_t off = 0; (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) != 0;) {
      const auto* bytes = static_cast<const uint8_t*>(data->d_buf);
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
          std::memcmp(bytes + name_off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) == 0 && nh.n_descsz > 0)
        return std::vector<uint8_t>(bytes + desc_off, bytes + desc_off + nh.n_descsz);
    }
  }
  return std::nullopt;
}

}  // namespace brisk
