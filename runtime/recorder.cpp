#include "runtime/recorder.h"

#include <linux/perf_event.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "csr/ctr.h"
#include "csr/pmu.h"
#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/hart.h"

namespace brisk::profile {

namespace {

// The events perf names as generic hardware events; the others are raw (their brisk number).
struct HardwareEvent {
  unsigned pmu;
  uint64_t config;  // PERF_COUNT_HW_*
};
constexpr HardwareEvent kHardware[] = {
    {pmu::kInstructions, PERF_COUNT_HW_INSTRUCTIONS},
    {pmu::kCycles, PERF_COUNT_HW_CPU_CYCLES},
    {pmu::kBranches, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {pmu::kBranchMisses, PERF_COUNT_HW_BRANCH_MISSES},
};

// -F: the period a recording starts with, before it has measured the guest's speed.
constexpr uint64_t kFreqStartPeriod = 10000;
constexpr uint64_t kMaxPeriod = 1ull << 40;
// The progress line is redrawn at most this often.
constexpr uint64_t kProgressNs = 250'000'000;
constexpr unsigned kHottest = 10;
// The first CTR window, in events per buffer entry (runtime/recorder.h).
constexpr uint64_t kWindowPerEntry = 4;
// Full stacks in a row within half the window that halve it: one alone would, where the spans of
// stacks vary about half the window, halve it only for the next stacks to come out short.
constexpr unsigned kNarrowToShrink = 8;

bool counts_instructions(unsigned e) { return e == pmu::kInstructions || e == pmu::kCycles; }

}  // namespace

void set_event(RecordOptions& o, const std::string& name) {
  unsigned e = 0;
  for (unsigned i = 1; i < pmu::kEventCount; i++)
    if (name == pmu::event_name(i)) e = i;
  if (!e && name.size() > 1 && name.size() <= 5 && name[0] == 'r' &&
      name.find_first_not_of("0123456789abcdefABCDEF", 1) == std::string::npos) {
    const unsigned long v = std::stoul(name.substr(1), nullptr, 16);
    if (v > pmu::kNone && v < pmu::kEventCount) e = static_cast<unsigned>(v);
  }
  if (!e) {
    std::string names;
    for (unsigned i = 1; i < pmu::kEventCount; i++) names += fmt::format("{}{}", i > 1 ? ", " : "", pmu::event_name(i));
    throw Error("-e: unknown event '{}' (accepted: {}, or raw r1..r{:x})", name, names, pmu::kEventCount - 1);
  }
  o.pmu_event = e;
  o.event.name = name;
  o.event.type = PERF_TYPE_RAW;
  o.event.config = e;
  for (const HardwareEvent& h : kHardware) {
    if (h.pmu != e) continue;
    o.event.type = PERF_TYPE_HARDWARE;
    o.event.config = h.config;
  }
}

Recorder::Recorder(const RecordOptions& opt, const Session& session)
    : opt_(opt), t0_(std::chrono::steady_clock::now()), tty_(isatty(diag_fd())) {
  if (opt_.exact) {
    sinks_.push_back(exact_writer(opt_.output));
    paths_.push_back(opt_.output);
    return;
  }
  if (opt_.format != Format::PerfScript) {
    sinks_.push_back(perf_data_writer(opt_.output, opt_.event, session));
    paths_.push_back(opt_.output);
  }
  if (opt_.format != Format::PerfData) {
    const std::string text = opt_.format == Format::Both ? opt_.output + ".script" : opt_.output;
    sinks_.push_back(perf_script_writer(text, opt_.event));
    paths_.push_back(text);
  }
}

Recorder::~Recorder() = default;

uint64_t Recorder::now_ns() const {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0_).count());
}

Recorder::HartState& Recorder::state(const Hart& h) { return harts_[h.hartid]; }

void Recorder::comm(uint32_t pid, uint32_t tid, const std::string& name) {
  const Comm c{pid, tid, name.substr(0, 15), now_ns()};
  for (auto& s : sinks_) s->comm(c);
}

void Recorder::mmap(Mapping m) {
  m.time = now_ns();
  symbols_.add(m.host_path.empty() ? m.filename : m.host_path, m.start, m.len, m.pgoff);
  for (auto& s : sinks_) s->mmap(m);
}

void Recorder::start(const std::vector<Hart*>& harts) {
  running_ = harts;
  for (Hart* h : harts) {
    if (h->hartid >= harts_.size()) harts_.resize(h->hartid + 1);
    if (!counts_instructions(opt_.pmu_event)) pmu::set_sampled(*h, 1u << opt_.pmu_event);
    HartState& st = state(*h);
    st.last = pmu::event_total(*h, opt_.pmu_event);
    st.period = opt_.event.freq ? kFreqStartPeriod : opt_.event.period;
    st.next = st.last + st.period;
    st.wrptr = static_cast<unsigned>(ctr::sctrstatus(*h) & ctr::SCTRSTATUS_WRPTR);
    st.ctrctl = h->csr.ctr.mctrctl;
    st.window = kWindowPerEntry * ctr::depth(h->csr.ctr);
    st.opened = h->instret;
    if (!opt_.exact && st.window < st.period) set_recording(*h, st, false);
  }
}

void Recorder::set_recording(Hart& h, HartState& st, bool on) {
  // write_ctrctl asks translated code to stop, as record_mask is in the translation key; this runs
  // outside it, so the deadline stands.
  const uint64_t deadline = h.deadline;
  if (on) ctr::clear(h);
  ctr::write_ctrctl(h, on ? st.ctrctl : 0, false);
  h.deadline = deadline;
  st.recording = on;
  st.opened = h.instret;
}

void Recorder::on_budget(Hart& h) {
  HartState& st = state(h);
  if (opt_.exact) {
    drain(h, st);
    // At most records_per_instruction records per instruction: this many instructions cannot wrap
    // WRPTR past the last drain's, so the records since then are exactly those between the two.
    h.deadline = std::min(h.deadline, h.instret + (ctr::depth(h.csr.ctr) - 1) / opt_.records_per_instruction);
  } else {
    const uint64_t n = pmu::event_total(h, opt_.pmu_event);
    if (n >= st.next) take_sample(h, st, n);
    uint64_t left = st.next - n;
    if (!st.recording) {
      if (left <= st.window) set_recording(h, st, true);
      else left -= st.window;  // until the window opens
    }
    h.deadline = std::min(h.deadline, h.instret + pmu::min_instructions(opt_.pmu_event, left));
  }
  if (tty_) progress(now_ns());
}

void Recorder::take_sample(Hart& h, HartState& st, uint64_t count) {
  const unsigned depth = ctr::depth(h.csr.ctr);
  const uint64_t span = emit(h, count - st.last, depth);
  const bool full = sample_.branches.size() == depth;
  st.narrow = full && 2 * span < h.instret - st.opened ? st.narrow + 1 : 0;
  if (!full) st.window = std::min(2 * st.window, st.period);
  if (st.narrow == kNarrowToShrink) {
    st.window = std::max(st.window / 2, kWindowPerEntry * depth);
    st.narrow = 0;
  }
  if (opt_.event.freq) {
    // As the kernel adapts a frequency event's period: toward FREQ samples per second of host
    // time, from the rate the events came at since the previous sample.
    const uint64_t now = sample_.time, elapsed = std::max<uint64_t>(now - st.last_ns, 1);
    const double rate = static_cast<double>(count - st.last) / static_cast<double>(elapsed) * 1e9;
    st.period = std::clamp<uint64_t>(static_cast<uint64_t>(rate / static_cast<double>(opt_.event.freq)), 1, kMaxPeriod);
    st.last_ns = now;
  }
  st.last = count;
  st.next = count + st.period;
  if (st.window >= st.period) st.opened = h.instret;  // CTR stays on: the next window starts here
  else if (st.recording) set_recording(h, st, false);
}

void Recorder::drain(Hart& h, HartState& st) {
  const unsigned d = ctr::depth(h.csr.ctr);
  const unsigned wrptr = static_cast<unsigned>(ctr::sctrstatus(h) & ctr::SCTRSTATUS_WRPTR);
  const unsigned fresh = (wrptr - st.wrptr) & (d - 1);
  st.wrptr = wrptr;
  if (!fresh) return;
  emit(h, h.instret - st.last, fresh);
  st.last = h.instret;
}

uint64_t Recorder::emit(Hart& h, uint64_t period, unsigned entries) {
  // The task first: a COMM it writes for a new address space must not be timed after the sample
  // it names, or perf (which orders records by time) shows that sample without the name.
  const Task t = task ? task(h) : Task{};
  const uint64_t start = now_ns();
  sample_.ip = h.pc;
  sample_.pid = t.pid;
  sample_.tid = t.tid;
  sample_.mode = t.mode;
  sample_.time = start;
  sample_.period = period;
  // The entries as ctrsource, ctrtarget and ctrdata read (ctr::logical_entry), without encoding
  // each ctrdata only to decode it: this loop is most of a sample's cost.
  ctr::sync_ring(h);
  sample_.branches.resize(entries);
  // The instructions back to the oldest record: the cycles since the youngest and the entries'
  // counts, all but the oldest's (from before its record), read whole as b.cycles saturates.
  uint64_t span = ctr::cycles_since_record(h), cycles = 0;
  unsigned n = 0;
  for (; n < entries; n++) {
    const ctr::Entry& e = ctr::physical_entry(h.csr.ctr, n);
    if (!(e.source & ctr::CTRSOURCE_V)) break;
    Branch& b = sample_.branches[n];
    b.from = e.source & ~ctr::CTRSOURCE_V;
    b.to = e.target & ~ctr::CTRTARGET_MISP;
    b.mispredicted = e.target & ctr::CTRTARGET_MISP;
    cycles = ctr::recorded_cycles(e);
    span += cycles;
    b.cycles = static_cast<uint16_t>(std::min<uint64_t>(cycles, UINT16_MAX));
    b.type = static_cast<uint8_t>(e.type & ctr::CTRDATA_TYPE);
  }
  sample_.branches.resize(n);
  span -= cycles;
  for (auto& s : sinks_) s->sample(sample_);
  samples_++;
  by_mode_[static_cast<unsigned>(sample_.mode)]++;
  ips_[sample_.ip]++;
  const unsigned depth = static_cast<unsigned>(sample_.branches.size());
  depth_sum_ += depth;
  depth_min_ = std::min(depth_min_, depth);
  depth_max_ = std::max(depth_max_, depth);
  handler_ns_ += now_ns() - start;
  return span;
}

void Recorder::progress(uint64_t now) {
  if (now < next_progress_) return;
  next_progress_ = now + kProgressNs;
  uint64_t events = 0;
  for (const Hart* h : running_) events += pmu::event_total(*h, opt_.pmu_event);
  diag_print("\rbrisk record: {} {}, {} samples, {:.1f} s\033[K", events, opt_.event.name, samples_,
             static_cast<double>(now) / 1e9);
}

void Recorder::finish(const std::vector<Hart*>& harts) {
  for (Hart* h : harts) {
    HartState& st = state(*h);
    if (opt_.exact) {
      drain(*h, st);
      continue;
    }
    const uint64_t n = pmu::event_total(*h, opt_.pmu_event);
    if (n >= st.next) take_sample(*h, st, n);
  }
  if (tty_) diag_print("\r\033[K");
  for (auto& s : sinks_) s->finish();
  summary(harts);
}

void Recorder::summary(const std::vector<Hart*>& harts) {
  uint64_t events = 0;
  for (const Hart* h : harts) events += pmu::event_total(*h, opt_.pmu_event);
  std::string wrote;
  for (const std::string& p : paths_) wrote += fmt::format("{}{}", wrote.empty() ? "" : " and ", p);
  const double wall = static_cast<double>(now_ns()) / 1e9;
  if (opt_.exact)
    diag_print("brisk record: {} drains of the CTR buffer, every transfer, {} instructions in {:.3f} s; wrote {}\n",
               samples_, events, wall, wrote);
  else
    diag_print("brisk record: {} samples, {} {} in {:.3f} s; wrote {}\n", samples_, events, opt_.event.name, wall,
               wrote);
  if (!samples_) return;
  if (by_mode_[0] != samples_)
    diag_print("brisk record: samples by privilege: user {}, kernel {}, machine {}\n", by_mode_[0], by_mode_[1],
               by_mode_[2]);
  diag_print("brisk record: branch stack depth min {} avg {:.1f} max {} (CTR depth {}); {} ns per sample in "
             "the handler\n",
             depth_min_, static_cast<double>(depth_sum_) / static_cast<double>(samples_), depth_max_,
             16u << opt_.ctr.depth_code, handler_ns_ / samples_);
  std::map<std::string, uint64_t> by_function;
  for (const auto& [ip, n] : ips_) by_function[symbols_.function(ip)] += n;
  std::vector<std::pair<uint64_t, std::string>> hot;
  for (auto& [name, n] : by_function) hot.emplace_back(n, name);
  std::sort(hot.begin(), hot.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  diag_print("brisk record: hottest functions, by sample ip:\n");
  for (size_t i = 0; i < hot.size() && i < kHottest; i++)
    diag_print("  {:6.2f}%  {:>9}  {}\n", 100.0 * static_cast<double>(hot[i].first) / static_cast<double>(samples_),
               hot[i].first, hot[i].second);
}

}  // namespace brisk::profile
