// brisk record --exact (docs/profiling.md): every recorded transfer counted, written as
// llvm-profgen's unsymbolized profile, the text `llvm-profgen --skip-symbolization` writes and
// `--unsymbolized-profile` reads:
//   <number of ranges>
//   <start>-<end>:<count>      fall-through ranges, both ends inclusive
//   <number of branches>
//   <from>-><to>:<count>       taken transfers
// with the addresses in hex as offsets from the start of the program's first executable segment
// (llvm-profgen's default --use-offset), ascending, as llvm-profgen sorts them. Written to
// a temporary and renamed at finish() (runtime/output_file.h).
#include <sys/mman.h>

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "jit/transfer.h"
#include "runtime/output_file.h"
#include "runtime/profile.h"

namespace brisk::profile {
namespace {

// llvm-profgen places a binary by its first executable segment's address rounded down to 4 KiB.
constexpr uint64_t kPage = 4096;

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    return std::hash<uint64_t>{}(p.first * 0x9e3779b97f4a7c15ull ^ p.second);
  }
};
using Counts = std::unordered_map<std::pair<uint64_t, uint64_t>, uint64_t, PairHash>;

// A count per (from, to). A loop repeats the same range and the same branch back to back, so the
// last one counted is kept at hand (a map's nodes stay put when it grows).
class PairCounts {
 public:
  void add(uint64_t from, uint64_t to) {
    if (!last_ || last_key_ != std::pair{from, to}) {
      last_key_ = {from, to};
      last_ = &counts_[last_key_];
    }
    ++*last_;
  }
  const Counts& counts() const { return counts_; }

 private:
  Counts counts_;
  std::pair<uint64_t, uint64_t> last_key_;
  uint64_t* last_ = nullptr;
};

class ExactWriter final : public Sink {
 public:
  explicit ExactWriter(const std::string& path) : out_(path, "--exact profile") {}

  void comm(const Comm&) override {}

  // The profile is of one binary, the first one mapped executable (the program: brisk record
  // maps it before its interpreter); its other executable segments place the rest of its code.
  void mmap(const Mapping& m) override {
    if (!(m.prot & PROT_EXEC) || m.len == 0) return;
    if (image_.empty()) image_name_ = m.filename;
    if (m.filename == image_name_) image_.push_back({m.start & ~(kPage - 1), m.start + m.len});
  }

  // Oldest first: each transfer ends the straight-line run that began at the previous one's target
  // (in this sample or an earlier one of the same thread). Not-taken branches do not break a run.
  void sample(const Sample& s) override {
    auto last = last_target_.find(s.tid);
    bool started = last != last_target_.end();
    uint64_t target = started ? last->second : 0;
    for (auto b = s.branches.rbegin(); b != s.branches.rend(); ++b) {
      if (b->type == static_cast<uint8_t>(TransferType::NotTakenBranch)) continue;
      // A run that seems to go backwards crossed something CTR did not record (a signal brisk
      // delivered, a filtered-out transfer): it is not a fall-through.
      if (started && target <= b->from) ranges_.add(target, b->from);
      branches_.add(b->from, b->to);
      target = b->to;
      started = true;
    }
    if (started) last_target_[s.tid] = target;
  }

  // The counts live in memory until here: they are bounded by the program's distinct ranges and
  // transfers, not by the length of the run.
  void finish() override {
    out_.write(section(ranges_.counts(), "-", true));
    out_.write(section(branches_.counts(), "->", false));
    out_.commit();
  }

 private:
  struct Segment {
    uint64_t start, end;
  };

  // The counts whose ends are both in the image (a range's in one segment), as offsets, ascending.
  // With no executable mapping (system mode without one) nothing places the addresses: they stay
  // virtual, for llvm-profgen --use-offset=0.
  std::string section(const Counts& counts, const char* sep, bool range) const {
    uint64_t base = 0;
    if (!image_.empty()) {
      base = UINT64_MAX;
      for (const Segment& s : image_) base = std::min(base, s.start);
    }
    std::vector<std::pair<std::pair<uint64_t, uint64_t>, uint64_t>> kept;
    for (const auto& [key, n] : counts) {
      size_t from = segment_of(key.first), to = segment_of(key.second);
      bool inside = image_.empty() || (from < image_.size() && to < image_.size() && (!range || from == to));
      if (inside) kept.push_back({{key.first - base, key.second - base}, n});
    }
    std::sort(kept.begin(), kept.end());
    std::string out = fmt::format("{}\n", kept.size());
    for (const auto& [key, n] : kept) out += fmt::format("{:x}{}{:x}:{}\n", key.first, sep, key.second, n);
    return out;
  }

  size_t segment_of(uint64_t a) const {
    for (size_t i = 0; i < image_.size(); i++)
      if (a >= image_[i].start && a < image_[i].end) return i;
    return image_.size();
  }

  OutputFile out_;
  std::string image_name_;
  std::vector<Segment> image_;
  std::unordered_map<uint32_t, uint64_t> last_target_;  // per thread
  PairCounts ranges_, branches_;
};

}  // namespace

std::unique_ptr<Sink> exact_writer(const std::string& path) { return std::make_unique<ExactWriter>(path); }

}  // namespace brisk::profile
