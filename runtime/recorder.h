// brisk record (docs/profiling.md): samples taken every PERIOD events, exactly, from outside the
// guest. Instructions and cycles (one per instruction) fall due at a Hart::deadline; other events
// are counted by the PMU's engines for the recorder alone (pmu::set_sampled) and approached with
// deadlines that cannot overshoot, as pmu::next_overflow bounds a counter's. Each sample carries
// the CTR buffer as its branch stack. The recorder owns the sinks (runtime/profile.h), the
// schedule, the progress line and the summary.
//
// CTR records only in a window before each sample: recording every transfer costs translated
// code a store per branch, and a sample keeps only the last `depth` of them. The window opens
// with the buffer cleared `window` events before the sample, kWindowPerEntry * depth at first. It
// doubles (up to the period, where CTR records all the time) after a sample whose stack was not
// full, so that straight-line code still fills it, and halves (down to where it started) after
// kNarrowToShrink full stacks in a row whose records spanned less than half the instructions their
// windows ran, so that it does not stay large once branches are dense again. All of it depends
// only on the program and the period, so the samples do too.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/ctr_config.h"
#include "runtime/profile.h"
#include "runtime/symbolizer.h"

namespace brisk {
struct Hart;
}

namespace brisk::profile {

enum class Format { PerfData, PerfScript, Both };

struct RecordOptions {
  std::string output = "perf.data";  // -o; with Both the text goes to output + ".script"
  Format format = Format::PerfData;
  bool exact = false;                // --exact: every transfer, to exact_writer(output)
  // --exact drains the CTR buffer before it can wrap: the most records one retired instruction can
  // come with. In user mode its own transfer; in system mode two traps more can come before it
  // (an interrupt into S, then one into M before the S handler's first instruction).
  unsigned records_per_instruction = 1;
  Event event;                       // -e with -c or -F, and -j's PERF_SAMPLE_BRANCH_* bits
  unsigned pmu_event = 0;            // the pmu::Event -e names
  ctr::Options ctr;                  // -j and --ctr-depth, as CTR is configured for the run
};

// perf's default is -F 4000; brisk's is a fixed period, so that a recording depends only on the
// program. A prime, so that samples do not fall in step with a loop.
constexpr uint64_t kDefaultPeriod = 100003;

// -e NAME: instructions, cycles, branches, branch-misses, a brisk PMU event by name (csr/pmu.h),
// or perf's raw rN (N in hex). Fills event.name/type/config and pmu_event; throws brisk::Error.
void set_event(RecordOptions& o, const std::string& name);

// Who a sample belongs to: pid and tid, and the privilege it was taken in.
struct Task {
  uint32_t pid = 0, tid = 0;
  CpuMode mode = CpuMode::User;
};

class Recorder {
 public:
  // Opens the outputs (throws brisk::Error naming a path that cannot be written).
  Recorder(const RecordOptions& opt, const Session& session);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  const RecordOptions& options() const { return opt_; }
  // Who is running on a hart, asked only when a sample is taken.
  std::function<Task(const Hart&)> task;

  void comm(uint32_t pid, uint32_t tid, const std::string& name);
  // An executable file mapping, before any sample that may fall in it; the time is filled in.
  void mmap(Mapping m);
  // The harts are about to run: the events counted, the first sample scheduled. Their first
  // on_budget comes before their first instruction (RunLimiter::start asks for it).
  void start(const std::vector<Hart*>& harts);
  // From the trap handler's on_budget, after it reset h.deadline: takes the sample (or --exact's
  // drain) that is due and lowers h.deadline to where the next falls due.
  void on_budget(Hart& h);
  // The run ended: the sample that fell due with the last instruction (or the last drain), the
  // outputs completed, the summary printed on diag.
  void finish(const std::vector<Hart*>& harts);

 private:
  struct HartState {
    uint64_t last = 0;     // event count at the previous sample
    uint64_t next = 0;     // event count at which the next one falls due
    uint64_t period = 0;   // events between samples (adapted with -F)
    uint64_t last_ns = 0;  // time of the previous sample
    unsigned wrptr = 0;    // --exact: sctrstatus.WRPTR at the previous drain
    uint64_t window = 0;   // events before a sample during which CTR records
    uint64_t opened = 0;   // instret when the window opened (or the previous sample, if CTR stayed on)
    unsigned narrow = 0;   // full stacks in a row that spanned less than half the window
    bool recording = true; // CTR is on (mctrctl = ctrctl), else off (0)
    uint64_t ctrctl = 0;   // mctrctl as ctr::configure set it
  };
  // Turns CTR on (with the buffer cleared) or off, outside translated code.
  static void set_recording(Hart& h, HartState& st, bool on);
  uint64_t now_ns() const;
  HartState& state(const Hart& h);
  void take_sample(Hart& h, HartState& st, uint64_t count);
  void drain(Hart& h, HartState& st);
  // Returns the instructions (CTR's active cycles) from the stack's oldest record to the sample.
  uint64_t emit(Hart& h, uint64_t period, unsigned entries);
  void progress(uint64_t now);
  void summary(const std::vector<Hart*>& harts);

  RecordOptions opt_;
  std::vector<std::unique_ptr<Sink>> sinks_;
  std::vector<std::string> paths_;  // what the sinks write, for the summary
  std::chrono::steady_clock::time_point t0_;
  std::vector<HartState> harts_;  // by hartid
  std::vector<Hart*> running_;    // start()'s, for the progress line
  Sample sample_;                 // reused: no allocation per sample once its vector has grown
  // For the summary: samples per ip, and the branch-stack depths seen.
  std::unordered_map<uint64_t, uint64_t> ips_;
  uint64_t samples_ = 0, depth_sum_ = 0;
  uint64_t by_mode_[3] = {};  // samples per CpuMode
  uint64_t handler_ns_ = 0;   // host time spent in emit(), for the cost per sample
  unsigned depth_min_ = ~0u, depth_max_ = 0;
  Symbolizer symbols_;
  bool tty_ = false;
  uint64_t next_progress_ = 0;
};

}  // namespace brisk::profile
