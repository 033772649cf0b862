// A riscv64 or riscv32 ELF file, validated on opening (libelf): the loaders of user mode and system
// mode read their segments and symbols through it.
#pragma once

#include <gelf.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace brisk {

class ElfFile {
 public:
  // Throws brisk::Error naming the file (`what`: "program", "kernel", ...) when it is missing or not
  // a regular file, not ELF, not 32- or 64-bit little-endian RISC-V, not an executable, has program
  // headers or segments outside the file, or PT_LOAD segments that wrap (at 2^32 for ELFCLASS32),
  // overlap or are out of order.
  ElfFile(const std::string& path, const char* what);
  ~ElfFile();
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  // Whether the file starts with the ELF magic (for telling an ELF kernel from a flat image); throws
  // brisk::Error as open_input does.
  static bool looks_like_elf(const std::string& path, const char* what);

  const std::string& path() const { return path_; }
  const GElf_Ehdr& header() const { return eh_; }
  // 32 for ELFCLASS32 (an RV32 image), else 64.
  unsigned xlen() const { return xlen_; }
  const std::vector<GElf_Phdr>& segments() const { return ph_; }
  // Copies n bytes at file offset `off` into dst; throws brisk::Error on a short read.
  void read(uint64_t off, void* dst, size_t n) const;
  int fd() const { return fd_; }
  // The value of a symbol from .symtab, if the file has one by that name.
  std::optional<uint64_t> symbol(const std::string& name) const;
  // The defined functions (STT_FUNC) of .symtab, or of .dynsym when the file is stripped, sorted by
  // address, for naming code addresses (runtime/symbolizer.h).
  struct Function {
    uint64_t addr = 0, size = 0;
    std::string name;
  };
  std::vector<Function> functions() const;
  // The GNU build-id (the NT_GNU_BUILD_ID note of a PT_NOTE segment), if the file has one.
  std::optional<std::vector<uint8_t>> build_id() const;

 private:
  // Calls fn(symbol, name) for each named symbol of the sections of `type` (SHT_SYMTAB, SHT_DYNSYM)
  // until it returns false.
  void each_symbol(unsigned type, const std::function<bool(const GElf_Sym&, const char*)>& fn) const;

  std::string path_;
  int fd_ = -1;
  Elf* elf_ = nullptr;
  GElf_Ehdr eh_{};
  unsigned xlen_ = 64;
  std::vector<GElf_Phdr> ph_;
};

}  // namespace brisk
