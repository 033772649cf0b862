// A riscv64 ELF file built in memory, for the tests and fuzz targets that load one.
#pragma once

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace brisk::test {

// A little-endian ELFCLASS64 ET_EXEC for EM_RISCV of `size` bytes (zero past its headers), its
// program headers `ph` right after the file header.
inline std::vector<uint8_t> riscv_elf(uint64_t entry, const std::vector<Elf64_Phdr>& ph, size_t size) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;
  eh.e_machine = EM_RISCV;
  eh.e_version = EV_CURRENT;
  eh.e_entry = entry;
  eh.e_phoff = sizeof eh;
  eh.e_ehsize = sizeof eh;
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = static_cast<uint16_t>(ph.size());
  std::vector<uint8_t> out(size);
  std::memcpy(out.data(), &eh, sizeof eh);
  std::memcpy(out.data() + sizeof eh, ph.data(), ph.size() * sizeof(Elf64_Phdr));
  return out;
}

}  // namespace brisk::test
