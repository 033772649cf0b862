// perf script text as llvm-profgen --perfscript reads it (docs/profiling.md): what
// `perf script -F ip,brstack --show-mmap-events` prints, one PERF_RECORD_MMAP2 line per executable
// mapping and one line per sample, the ip in hex without 0x (llvm-profgen's parser insists), then
// the branch stack youngest first as 0xFROM/0xTO/M|P/-/-/CYCLES.
#include <sys/mman.h>

#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "runtime/output_file.h"
#include "runtime/profile.h"

namespace brisk::profile {

namespace {

template <size_t N>
char* append(char* p, const char (&s)[N]) {
  std::memcpy(p, s, N - 1);
  return p + N - 1;
}

// `prefix` then v in lower-case hex, as 0x{:x} would; the caller sized the buffer.
template <size_t N>
char* hex(char* p, const char (&prefix)[N], uint64_t v) {
  p = append(p, prefix);
  return std::to_chars(p, p + 16, v, 16).ptr;
}

class PerfScriptWriter final : public Sink {
 public:
  explicit PerfScriptWriter(const std::string& path) : out_(path, "perf script output") {}

  // perf script shows no task events unless asked, and llvm-profgen has no use for them.
  void comm(const Comm&) override {}

  void mmap(const Mapping& m) override {
    line_.clear();
    fmt::format_to(std::back_inserter(line_),
                   "PERF_RECORD_MMAP2 {}/{}: [{:#x}({:#x}) @ {:#x} {:02x}:{:02x} {} 0]: {}{}{}{} {}\n", m.pid, m.tid,
                   m.start, m.len, m.pgoff, m.maj, m.min, m.ino, m.prot & PROT_READ ? 'r' : '-',
                   m.prot & PROT_WRITE ? 'w' : '-', m.prot & PROT_EXEC ? 'x' : '-',
                   (m.flags & MAP_TYPE) == MAP_PRIVATE ? 'p' : 's', m.filename);
    out_.write(line_);
  }

  // A sample's line is most of what brisk record writes: formatted by hand, as fmt's parsing of a
  // format string per entry would cost more than the rest of the sample, into the file's buffer.
  void sample(const Sample& s) override {
    constexpr size_t kEntryMax = 2 * (2 + 16) + sizeof("//M/-/-/") + 5;
    const size_t max = 16 + 1 + s.branches.size() * kEntryMax + 1;
    out_.append(max, [&](uint8_t* start) {
      char* p = reinterpret_cast<char*>(start);
      char* const end = p + max;
      p = std::to_chars(p, end, s.ip, 16).ptr;
      for (const Branch& b : s.branches) {
        p = hex(hex(p, " 0x", b.from), "/0x", b.to);
        p = append(p, b.mispredicted ? "/M/-/-/" : "/P/-/-/");
        p = std::to_chars(p, end, b.cycles).ptr;
      }
      *p++ = '\n';
      return static_cast<size_t>(p - reinterpret_cast<char*>(start));
    });
  }

  void finish() override { out_.commit(); }

 private:
  OutputFile out_;
  std::string line_;  // an MMAP2 line
};

}  // namespace

std::unique_ptr<Sink> perf_script_writer(const std::string& path, const Event&) {
  return std::make_unique<PerfScriptWriter>(path);
}

}  // namespace brisk::profile
