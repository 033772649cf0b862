#include "runtime/ete_trace.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "csr/ctr.h"
#include "csr/pmu.h"
#include "csr/privileged.h"
#include "runtime/error.h"
#include "runtime/input_file.h"

namespace brisk {

namespace {

// A --trace-config file is a few hundred lines at most.
constexpr uint64_t kConfigLimit = 1 << 20;

bool parse_unsigned(std::string_view s, unsigned& v) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

std::vector<ete::RegisterWrite> config_writes(const std::string& config) {
  const std::string_view c = config;
  if (c == "autofdo") return ete::autofdo_config();
  if (c.starts_with("autofdo:")) {
    const std::string_view args = c.substr(8);
    const size_t comma = args.find(',');
    unsigned window = 0, period = 0;
    if (comma == std::string_view::npos || !parse_unsigned(args.substr(0, comma), window) ||
        !parse_unsigned(args.substr(comma + 1), period))
      throw Error("--trace-config {}: expected autofdo:WINDOW,PERIOD", printable(config));
    return ete::autofdo_config(window, period);
  }
  const std::vector<uint8_t> text = read_input(config, "--trace-config", kConfigLimit);
  return ete::parse_config(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()),
                           printable(config));
}

}  // namespace

TraceOptions trace_options(const std::string& dir, const std::string& config, const std::string& opts) {
  TraceOptions t;
  if (dir.empty()) {
    if (!config.empty()) throw Error("--trace-config needs --trace DIR, where the trace goes");
    if (!opts.empty()) throw Error("--trace-opts needs --trace DIR, where the trace goes");
    return t;
  }
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    throw Error("--trace: cannot create directory {}: {}", printable(dir), std::strerror(errno));
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || ::access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error("--trace: {} is not a writable directory", printable(dir));
  t.dir = dir;
  if (!config.empty()) {
    t.config = config_writes(config);
    t.program = true;
  }
  uint32_t configr = 0;
  for (std::string_view rest = opts; !rest.empty();) {
    const size_t comma = rest.find(',');
    const std::string_view o = rest.substr(0, comma);
    rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
    if (o == "cycles")
      configr |= ete::CONFIGR_CCI;
    else if (o == "timestamps")
      configr |= ete::CONFIGR_TS;
    else
      throw Error("--trace-opts: unknown option '{}' (cycles, timestamps)", printable(o));
  }
  if (configr) {
    // They add to what --trace-config programs: a guest that programs its unit sets TRCCONFIGR itself.
    if (!t.program) throw Error("--trace-opts needs --trace-config, which programs TRCCONFIGR");
    ete::RegisterWrite* last = nullptr;
    for (ete::RegisterWrite& w : t.config)
      if (w.offset == ete::TRCCONFIGR) last = &w;
    if (last)
      last->value |= configr;
    else
      t.config.push_back({ete::TRCCONFIGR, configr});
  }
  return t;
}

ete::El exception_level(Priv p) {
  switch (p) {
    case Priv::U: return ete::El::EL0;
    case Priv::S: return ete::El::EL1;
    case Priv::M: break;
  }
  return ete::El::EL3;
}

uint64_t TraceViews::intern(const ete::AddressClasses& c) {
  for (size_t n = 0; n < table_.size(); n++)
    if (table_[n] == c) return n + 1;
  if (table_.size() == kSize) {
    table_.clear();
    epoch_++;
  }
  table_.push_back(c);
  return table_.size();
}

HartTrace::HartTrace(Hart& h, const ete::Sizes& sizes, const Clock& clock, bool stream, std::mutex* lock,
                     TraceViews& views, std::function<void()> enable_changed)
    : h_(h),
      encoder_(&clock),
      unit_(static_cast<unsigned>(h.hartid), sizes, stream ? &encoder_ : nullptr),
      lock_(lock),
      enable_changed_(std::move(enable_changed)),
      views_(views) {
  h.csr.triggers.observer = {&HartTrace::on_match, this};
}

bool HartTrace::write(uint64_t offset, unsigned size, uint64_t value) {
  // A store of the hart itself comes after what it retired before: the unit sees that first.
  if (silent_ && std::this_thread::get_id() == runner_) catch_up_to(h_.instret);
  const bool ok = unit_.write(offset, size, value);
  if (unit_.enabled() != enabled_.load(std::memory_order_relaxed)) {
    enabled_.store(unit_.enabled(), std::memory_order_release);
    enable_changed_();
  }
  return ok;
}

void HartTrace::program(const std::vector<ete::RegisterWrite>& writes) {
  ete::program(unit_, writes);
  enabled_.store(unit_.enabled(), std::memory_order_release);
}

bool HartTrace::fast_path() {
  auto l = lock();
  // RASEMU's pops and swaps are no ring records.
  return unit_.steps_by_pc() && !(ctr::record_mask(h_) & ctr::kRasEmu);
}

void HartTrace::begin() {
  matches_ = 0;
  h_.retire_observer = this;
  h_.record_transfers = false;
  auto l = lock();  // write() reads silent_ and runner_ under it
  silent_ = false;
  seen_ = h_.instret;
  runner_ = std::this_thread::get_id();
  context_if_changed();
}

void HartTrace::end() {
  auto l = lock();
  if (silent_) catch_up_to(h_.instret);
  silent_ = false;
  h_.record_transfers = false;
  h_.retire_observer = nullptr;
  h_.trace_view = 0;
  classes_at_ = nullptr;
}

uint64_t HartTrace::silent_run(uint64_t limit) {
  auto l = lock();
  if (silent_) catch_up_to(h_.instret);
  like_.pc = h_.pc;
  // The instructions of the run are alike: under a configuration that decides by the pc, those of
  // like_'s address class, in the blocks of its view.
  classes_at_ = nullptr;
  if (!unit_.steps_alike() && unit_.steps_by_pc()) {
    // Numbered again after another unit started a new epoch.
    if (classes_ != unit_.address_classes() || view_epoch_ != views_.epoch()) {
      classes_ = unit_.address_classes();
      view_base_ = views_.intern(classes_) << 25 | 1ull << 24;
      view_epoch_ = views_.epoch();
    }
    classes_at_ = &classes_;
  }
  h_.trace_view = view(h_.pc);
  // While the unit traces, each branch is a ring record, and the ring must not go all the way round
  // before the next catch-up.
  const bool tracing = unit_.tracing();
  const uint64_t q = unit_.silent_steps(like_, tracing ? std::min<uint64_t>(limit, ctr::Ring::kSlots - 1) : limit);
  silent_ = q != 0;
  seen_ = h_.instret;
  h_.record_transfers = silent_ && tracing;
  ctr_mask_ = ctr::record_mask(h_);  // the key's, for the run's records
  return q;
}

void HartTrace::catch_up_to(uint64_t upto) {
  ctr::Ring& ring = h_.ctr_ring;
  // A run the unit did not trace recorded CTR's transfers alone, which the unit does not need.
  if (!h_.record_transfers) ctr::sync_ring(h_);
  // How many of the steps after seen_ are quiet (EteUnit::quiet_steps): a branch among them needs
  // its atom and the counters' decrements, not the resource logic.
  uint64_t quiet = 0;
  if (const uint64_t n = ctr::unsynced(ring)) {
    ctr::for_each_record(ring, 0, n, [&](unsigned s, const ctr::Site& t, uint64_t now) {
      ete::Retired r;
      r.pc = t.source;
      r.next_pc = t.indirect ? ring.target[s] : t.target;
      r.taken = t.type != TransferType::NotTakenBranch;
      switch (t.type) {
        case TransferType::TakenBranch:
        case TransferType::NotTakenBranch:
        case TransferType::DirectCall:
        case TransferType::DirectJump:
        case TransferType::OtherDirectJump: r.kind = ete::Retired::Branch; break;
        default: r.kind = ete::Retired::IndirectBranch; break;  // jalr, whatever its target
      }
      if (now - seen_ <= quiet) {
        unit_.advance_quiet(like_, now - seen_);
        unit_.quiet_branch(r);
        quiet -= now - seen_;
      } else {
        if (now > seen_ + 1) unit_.advance(like_, now - 1 - seen_);
        unit_.on_retired(r);
        quiet = unit_.quiet_steps(like_, upto - now);
      }
      seen_ = now;
      if ((ctr_mask_ >> unsigned(t.type)) & 1) ctr::push_record(h_, s, t, now);
    });
    ctr::mark_synced(ring);
  }
  if (upto > seen_) unit_.advance(like_, upto - seen_);
  seen_ = upto;
}

void HartTrace::catch_up(Hart&) {
  auto l = lock();
  if (silent_) catch_up_to(h_.instret);
}

bool HartTrace::context_if_changed() {
  const ete::El el = exception_level(h_.priv);
  // Context ID is satp.ASID (docs/ete.md, "RISC-V mappings"); VMID is 0 without the H extension.
  const auto asid = static_cast<uint32_t>((h_.csr.satp & csr::SATP_ASID_MASK) >> csr::SATP_ASID_SHIFT);
  if (el == el_ && asid == context_id_) return false;
  el_ = el;
  context_id_ = asid;
  unit_.on_context(h_.pc, el, asid, 0);
  return true;
}

void HartTrace::retired(Hart& h, const Insn& in, uint64_t pc, bool jumped, uint64_t before) {
  ete::Retired r;
  r.pc = pc;
  r.next_pc = h.pc;
  const uint16_t f = in.flags();
  // An xRET is the only other instruction that writes pc: a taken indirect branch, as ETE traces
  // an exception return, so that the stream names where it went whatever the context does.
  if (in.op == Op::JALR || (jumped && !(f & (kBranch | kJump))))
    r.kind = ete::Retired::IndirectBranch;
  else if (f & (kBranch | kJump))
    r.kind = ete::Retired::Branch;
  r.taken = jumped;
  r.pmu_events = pmu::retired_events(in, jumped) | 1u << pmu::kCycles | 1u << pmu::kInstructions;
  r.pe_comparators = matches_;
  matches_ = 0;
  auto l = lock();
  if (!silent_) {
    unit_.on_retired(r);
    context_if_changed();  // an xRET or a satp write
    seen_ = h.instret;
    return;
  }
  // In a silent run (an instruction translated code ran out of line, or one the engine stepped up to
  // the deadline): the instructions before it first. A new context ends the run (so does CTR
  // turning on: ctr::write_ctrctl asks translated code to stop, and on_budget looks).
  catch_up_to(before);
  unit_.on_retired(r);
  seen_ = h.instret;
  if (context_if_changed()) h.request_exit();
}

void HartTrace::trap_taken(uint64_t cause, bool interrupt, uint64_t epc) {
  auto l = lock();
  if (silent_) {
    catch_up_to(h_.instret);
    h_.request_exit();  // the handler starts a new silent run, at its exception level
  }
  el_ = exception_level(h_.priv);
  unit_.on_exception(cause, interrupt, epc, h_.pc, el_);
}

ete::SnapshotSource HartTrace::snapshot() {
  encoder_.stop();
  ete::SnapshotSource s = ete::snapshot_source(unit_);
  s.stream = encoder_.bytes();
  return s;
}

void HartTrace::on_match(void* self, const Hart&, const trigger::Match& m) {
  // With action 0, the only one brisk has, the matched instruction takes a breakpoint instead of
  // retiring: its inputs are active for the next instruction that retires, the handler's first.
  auto* t = static_cast<HartTrace*>(self);
  if (t->enabled()) t->matches_ |= static_cast<uint8_t>(m.triggers);
}

}  // namespace brisk
