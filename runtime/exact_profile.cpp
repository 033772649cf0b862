// brisk record --exact (docs/profiling.md): every recorded transfer counted, written as
// llvm-profgen's unsymbolized profile, the text `llvm-profgen --skip-symbolization` writes and
// `--unsymbolized-profile` reads:
//   <number of ranges>
//   <start>-<end>:<count>      fall-through ranges, both ends inclusive
//   <number of branches>
//   <from>-><to>:<count>       taken transfers
// with the addresses in hex as offsets from the start of the program's first executable segment
// (llvm-profgen's default --use-offset), ascending, as llvm-profgen sorts them.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "jit/transfer.h"
#include "runtime/error.h"
#include "runtime/profile.h"

namespace brisk::profile {
namespace {

constexpr uint32_t kProtExec = 4;  // Linux PROT_EXEC
// llvm-profgen places a binary by its first executable segment's address rounded down to 4 KiB.
constexpr uint64_t kPage = 4096;

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    return std::hash<uint64_t>{}(p.first * 0x9e3779b97f4a7c15ull ^ p.second);
  }
};
using Counts = std::unordered_map<std::pair<uint64_t, uint64_t>, uint64_t, PairHash>;

class ExactWriter final : public Sink {
 public:
  explicit ExactWriter(const std::string& path) : path_(path), tmp_(path + ".tmp") {
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error("cannot create the profile {}: {}", path_, std::strerror(errno));
  }
  ~ExactWriter() override {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(tmp_.c_str());
    }
  }

  void comm(const Comm&) override {}

  // The profile is of one binary, the first one mapped executable (the program: brisk record
  // maps it before its interpreter); its other executable segments place the rest of its code.
  void mmap(const Mapping& m) override {
    if (!(m.prot & kProtExec) || m.len == 0) return;
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
      if (started && target <= b->from) ++ranges_[{target, b->from}];
      ++branches_[{b->from, b->to}];
      target = b->to;
      started = true;
    }
    if (started) last_target_[s.tid] = target;
  }

  void finish() override {
    std::string text = section(ranges_, "-", true) + section(branches_, "->", false);
    for (size_t done = 0; done < text.size();) {
      ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error("cannot write the profile {}: {}", path_, std::strerror(errno));
      done += static_cast<size_t>(n);
    }
    int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0 || ::rename(tmp_.c_str(), path_.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp_.c_str());
      throw Error("cannot write the profile {}: {}", path_, std::strerror(err));
    }
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

  std::string path_, tmp_;
  int fd_ = -1;
  std::string image_name_;
  std::vector<Segment> image_;
  std::unordered_map<uint32_t, uint64_t> last_target_;  // per thread
  Counts ranges_, branches_;
};

}  // namespace

std::unique_ptr<Sink> exact_writer(const std::string& path) { return std::make_unique<ExactWriter>(path); }

}  // namespace brisk::profile
