// Names code addresses from the ELF files mapped at them: brisk record's summary of the hottest
// functions (runtime/recorder.h). Reads .symtab, or .dynsym for stripped files (runtime/elf_file.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/elf_file.h"

namespace brisk {

class Symbolizer {
 public:
  // An executable mapping of the file at host path `path`: [start, start + len) holds its bytes
  // from file offset pgoff. A file brisk cannot read as ELF names its addresses by file name only.
  void add(const std::string& path, uint64_t start, uint64_t len, uint64_t pgoff);
  // The function at addr ("main"), "[FILE]" for a mapped file without a symbol there, or
  // "[unknown]" outside every mapping, as perf report says.
  std::string function(uint64_t addr) const;

 private:
  struct File {
    std::string base;  // the file name without its directory
    std::vector<ElfFile::Function> functions;
  };
  struct Range {
    uint64_t end, bias;  // ELF address = address - bias
    const File* file;
  };
  std::map<std::string, std::unique_ptr<File>> files_;  // by path
  std::map<uint64_t, Range> ranges_;                     // by start
};

}  // namespace brisk
