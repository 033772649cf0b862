#include "runtime/elf_file.h"

#include <fcntl.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/error.h"

namespace brisk {

namespace {

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

bool ElfFile::looks_like_elf(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char magic[SELFMAG];
  bool elf = pread(fd, magic, SELFMAG, 0) == SELFMAG && std::memcmp(magic, ELFMAG, SELFMAG) == 0;
  close(fd);
  return elf;
}

ElfFile::ElfFile(const std::string& path) : path_(path) {
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error("cannot open {}: {}", path, strerror(errno));
  struct stat st;
  if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd_);
    throw Error("{} is not a regular file", path);
  }
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  elf_version(EV_CURRENT);
  elf_ = elf_begin(fd_, ELF_C_READ, nullptr);
  try {
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) throw Error("{} is not an ELF file", path);
    if (gelf_getclass(elf_) != ELFCLASS64)
      throw Error("{} is a 32-bit ELF; brisk runs riscv64 (ELFCLASS64) programs", path);
    if (!gelf_getehdr(elf_, &eh_)) throw Error("{}: corrupt ELF header: {}", path, elf_errmsg(-1));
    if (eh_.e_ident[EI_DATA] != ELFDATA2LSB) throw Error("{} is a big-endian ELF; RISC-V is little-endian", path);
    if (eh_.e_machine != EM_RISCV)
      throw Error("{} is an ELF for {} (e_machine {}), not RISC-V", path, machine_name(eh_.e_machine), eh_.e_machine);
    if (eh_.e_type != ET_EXEC && eh_.e_type != ET_DYN)
      throw Error("{} is not an executable (ELF type {})", path, eh_.e_type);
    size_t phnum = 0;
    if (elf_getphdrnum(elf_, &phnum) != 0 || phnum == 0)
      throw Error("{}: corrupt ELF: no program headers ({})", path, elf_errmsg(-1));
    ph_.resize(phnum);
    for (size_t i = 0; i < phnum; i++)
      if (!gelf_getphdr(elf_, static_cast<int>(i), &ph_[i]))
        throw Error("{}: truncated or corrupt program header {}: {}", path, i, elf_errmsg(-1));
    for (const auto& p : ph_)
      if (p.p_type == PT_LOAD &&
          (p.p_filesz > p.p_memsz || p.p_offset + p.p_filesz < p.p_offset || p.p_offset + p.p_filesz > file_size))
        throw Error("{} is truncated or corrupt: a segment lies outside the file", path);
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
    throw Error("{}: cannot read {} bytes at offset {:#x}", path_, n, off);
}

std::optional<uint64_t> ElfFile::symbol(const std::string& name) const {
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
      GElf_Sym sym;
      if (!gelf_getsym(data, static_cast<int>(k), &sym)) break;
      const char* s = elf_strptr(elf_, sh.sh_link, sym.st_name);
      if (s && name == s) return sym.st_value;
    }
  }
  return std::nullopt;
}

}  // namespace brisk
