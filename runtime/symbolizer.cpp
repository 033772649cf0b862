#include "runtime/symbolizer.h"

#include <algorithm>

#include "runtime/error.h"

namespace brisk {

namespace {
constexpr uint64_t kPage = 4096;
}

void Symbolizer::add(const std::string& path, uint64_t start, uint64_t len, uint64_t pgoff) {
  auto& f = files_[path];
  uint64_t bias = start - pgoff;
  if (!f) {
    f = std::make_unique<File>();
    const size_t slash = path.rfind('/');
    f->base = slash == std::string::npos ? path : path.substr(slash + 1);
  }
  try {
    const ElfFile elf(path, "mapped file");
    if (f->functions.empty()) f->functions = elf.functions();
    // The segment mapped from pgoff gives the load bias (0 for an ET_EXEC program).
    for (const GElf_Phdr& p : elf.segments())
      if (p.p_type == PT_LOAD && (p.p_offset & ~(kPage - 1)) == pgoff) bias = start - (p.p_vaddr & ~(kPage - 1));
  } catch (const Error&) {
    // Not an ELF brisk can read: its addresses are named by the file alone.
  }
  ranges_[start] = {start + len, bias, f.get()};
}

std::string Symbolizer::function(uint64_t addr) const {
  auto r = ranges_.upper_bound(addr);
  if (r == ranges_.begin()) return "[unknown]";
  --r;
  if (addr >= r->second.end) return "[unknown]";
  const File& f = *r->second.file;
  const uint64_t a = addr - r->second.bias;
  auto it = std::upper_bound(f.functions.begin(), f.functions.end(), a,
                             [](uint64_t v, const ElfFile::Function& fn) { return v < fn.addr; });
  if (it == f.functions.begin()) return "[" + f.base + "]";
  --it;
  // A symbol without a size covers the addresses up to the next one.
  if (it->size && a >= it->addr + it->size) return "[" + f.base + "]";
  return it->name;
}

}  // namespace brisk
