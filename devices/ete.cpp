#include "devices/ete.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>

#include "runtime/error.h"

namespace brisk {

using namespace ete;

namespace {

constexpr uint32_t mask(unsigned bits) { return bits >= 32 ? ~0u : (1u << bits) - 1; }
constexpr uint32_t bit(uint32_t v, unsigned n) { return (v >> n) & 1; }

// An 8-bit event field: TYPE bit 7, SEL bits 4:0 (bits 6:5 RES0).
constexpr uint32_t kEventMask = 0x9f;
// The exception levels brisk implements in each security state (TRCIDR3.EXLEVEL_S/NS): M-mode
// is Secure EL3, U and S Non-secure EL0 and EL1.
constexpr uint32_t kElSecure = 0b1000, kElNonSecure = 0b0011;
// TRCACATR: CONTEXTTYPE 3:2, CONTEXT 6:4, EXLEVEL_S 11:8, EXLEVEL_NS 14:12. TYPE 1:0 is RES0, as
// only instruction address comparisons exist.
constexpr unsigned ACATR_CONTEXTTYPE = 2, ACATR_CONTEXT = 4, ACATR_EXLEVEL_S = 8, ACATR_EXLEVEL_NS = 12;

// The external input selectors pick PMU events by number, bit e of Retired::pmu_events.
constexpr unsigned kExternalInputs = 32;
// TRCIDR3.CCITMIN: the smallest cycle count threshold software should program.
constexpr uint32_t kCcitMin = 4;

// CoreSight identification: the architecture is Arm's ETE (ARCHITECT 0x23b, PRESENT, ARCHVER 5,
// ARCHPART 0xa13); the designer code is Arm's JEP106 (0x3b, continuation 4) with part number 0,
// which names no Arm product.
constexpr uint32_t kDevArch = 0x47705a13;
constexpr uint32_t kDevType = 0x13;  // trace source, processor
constexpr uint32_t kPidr[8] = {0x04, 0, 0, 0, 0x00, 0xb0, 0x0b, 0x00};  // PIDR4-7, then PIDR0-3
constexpr uint32_t kCidr[4] = {0x0d, 0x90, 0x05, 0xb1};
constexpr uint32_t kAuthStatus = 0xcc;  // non-invasive debug implemented and enabled, Secure and Non-secure

unsigned parse_size(std::string_view name, std::string_view value, unsigned lo, unsigned hi) {
  unsigned v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || v < lo || v > hi)
    throw Error("--cpu: ete-{}={} must be a number from {} to {}", name, value, lo, hi);
  return v;
}

}  // namespace

bool ete::Sizes::apply(std::string_view name, std::string_view value) {
  struct Field {
    const char* name;
    unsigned Sizes::*field;
    unsigned lo, hi;
  };
  static constexpr Field kFields[] = {
      {"rspairs", &Sizes::rs_pairs, 1, 16},   {"acpairs", &Sizes::ac_pairs, 0, 8},
      {"counters", &Sizes::counters, 0, 4},   {"seqstates", &Sizes::seq_states, 0, 4},
      {"ssc", &Sizes::ss_comps, 0, 8},        {"cidc", &Sizes::cid_comps, 0, 8},
      {"vmidc", &Sizes::vmid_comps, 0, 8},    {"pecomp", &Sizes::pe_comps, 0, 8},
      {"extinsel", &Sizes::ext_in_sel, 0, 4},
  };
  for (const Field& f : kFields) {
    if (name != f.name) continue;
    const unsigned v = parse_size(name, value, f.lo, f.hi);
    if (f.field == &Sizes::seq_states && v != 0 && v != 4)
      throw Error("--cpu: ete-seqstates={} must be 0 or 4 (ETE's sequencer has four states)", value);
    this->*f.field = v;
    return true;
  }
  return false;
}

// ------------------------------------------------------------------------------ resource logic

bool EteUnit::comparator_context_ok(unsigned n, uint8_t cid, uint8_t vmid) const {
  const uint64_t at = acatr_[n];
  const unsigned el = static_cast<unsigned>(el_);
  if (bit(at, (secure(el_) ? ACATR_EXLEVEL_S : ACATR_EXLEVEL_NS) + el)) return false;
  const unsigned ctx = (at >> ACATR_CONTEXT) & 7;
  if (bit(at, ACATR_CONTEXTTYPE) && !bit(cid, ctx)) return false;
  if (bit(at, ACATR_CONTEXTTYPE + 1) && !bit(vmid, ctx)) return false;
  return true;
}

uint8_t EteUnit::id_matches(uint32_t id, const std::array<uint64_t, 8>& comparators, uint32_t ctlr0,
                            uint32_t ctlr1, unsigned count) {
  uint8_t m = 0;
  for (unsigned c = 0; c < count; c++) {
    // Comparator c ignores the bytes of id set in bits 3:0 of byte c % 4 of its control register.
    const uint32_t ignored = ((c < 4 ? ctlr0 : ctlr1) >> (8 * (c % 4))) & 0xf;
    uint32_t keep = ~0u;
    for (unsigned b = 0; b < 4; b++)
      if (bit(ignored, b)) keep &= ~(0xffu << (8 * b));
    if (((id ^ static_cast<uint32_t>(comparators[c])) & keep) == 0) m |= 1u << c;
  }
  return m;
}

void EteUnit::match_context() {
  context_matches_.cid = id_matches(context_id_, cidcvr_, cidcctlr0_, cidcctlr1_, sizes_.cid_comps);
  context_matches_.vmid = id_matches(vmid_, vmidcvr_, vmidcctlr0_, vmidcctlr1_, sizes_.vmid_comps);
}

EteUnit::Matches EteUnit::matches(uint64_t pc) const {
  Matches m;
  if (enabled()) {
    // The configuration is fixed while enabled, so the context's matches change only with it.
    m = context_matches_;
    // Nothing but branch broadcasting looks at the address comparators then.
    if (alike_ && !(configr_ & CONFIGR_BB)) return m;
  } else {
    m.cid = id_matches(context_id_, cidcvr_, cidcctlr0_, cidcctlr1_, sizes_.cid_comps);
    m.vmid = id_matches(vmid_, vmidcvr_, vmidcctlr0_, vmidcctlr1_, sizes_.vmid_comps);
  }
  // Enabled, the comparators nothing looks at are left out, so that they split no silent runs.
  const uint32_t at = enabled() ? classes_.at(pc) : AddressClasses{acvr_, sizes_.ac_pairs, ~0u}.at(pc);
  for (uint32_t b = at; b; b &= b - 1) {
    const unsigned n = static_cast<unsigned>(__builtin_ctz(b));
    if (n < 16 && comparator_context_ok(n, m.cid, m.vmid)) m.sac |= 1u << n;
    if (n >= 16 && comparator_context_ok(2 * (n - 16), m.cid, m.vmid)) m.arc |= 1u << (n - 16);
  }
  return m;
}

uint32_t ete::AddressClasses::at(uint64_t pc) const {
  uint32_t a = 0;
  for (uint32_t b = used & (mask(2 * pairs) | mask(pairs) << 16); b; b &= b - 1) {
    const unsigned n = static_cast<unsigned>(__builtin_ctz(b));
    // A range is [TRCACVR<2m>, TRCACVR<2m+1>): the upper address is the first one outside, as
    // Linux's filters (start, start + size) program it.
    if (n < 16 ? pc == acvr[n] : acvr[2 * (n - 16)] <= pc && pc < acvr[2 * (n - 16) + 1]) a |= 1u << n;
  }
  return a;
}

uint8_t EteUnit::single_shot_fires(const Retired& r, const Matches& m) const {
  uint8_t fires = 0;
  for (unsigned c = 0; c < sizes_.ss_comps; c++) {
    const uint32_t cc = ssccr_[c];
    const bool match = (cc & 0xffff & m.sac) || ((cc >> 16) & 0xff & m.arc) || (sspcicr_[c] & r.pe_comparators);
    // Without RST a control fires once, until software clears STATUS.
    if (match && (!(sscsr_[c] & SSCSR_STATUS) || (cc & SSCCR_RST))) fires |= 1u << c;
  }
  return fires;
}

bool EteUnit::group(unsigned n, const Retired& r, const Matches& m) const {
  const uint32_t ctl = rsctlr_[n];
  const uint32_t select = ctl & 0xffff;
  switch (static_cast<Group>((ctl >> 16) & 0xf)) {
    case Group::ExternalInput:
      for (unsigned i = 0; i < sizes_.ext_in_sel; i++)
        if (bit(select, i) && extinselr_[i] < kExternalInputs && bit(r.pmu_events, extinselr_[i])) return true;
      return false;
    case Group::PeComparator:
      return select & r.pe_comparators;
    case Group::CounterSequencer:
      for (unsigned i = 0; i < sizes_.counters; i++)
        if (bit(select, i) && cntvr_[i] == 0) return true;
      return sizes_.seq_states && bit(select, 4 + seqstr_);
    case Group::SingleShot:
      return select & single_shot_fires(r, m);
    case Group::SingleAddress:
      return select & m.sac;
    case Group::AddressRange:
      return select & m.arc;
    case Group::ContextId:
      return select & m.cid;
    case Group::Vmid:
      return select & m.vmid;
  }
  return false;  // reserved groups select nothing (docs/ete.md)
}

bool EteUnit::selector(unsigned n, const Retired& r) const {
  return event_of(n, r, matches(r.pc));
}

bool EteUnit::event_of(unsigned n, const Retired& r, const Matches& m) const {
  if (n == 1) return true;
  if (n == 0 || n >= 2 * sizes_.rs_pairs) return false;  // selecting an absent selector: FALSE
  return group(n, r, m) ^ bit(rsctlr_[n], 20);
}

bool EteUnit::pair_of(unsigned p, const Retired& r, const Matches& m) const {
  if (p == 0) return false;  // selector 0 AND selector 1
  if (p >= sizes_.rs_pairs) return false;
  const uint32_t a = rsctlr_[2 * p], b = rsctlr_[2 * p + 1];
  // The seed's table is PAIRINV ^ ((A ^ A.INV) & (B ^ B.INV)) on its six defined rows; brisk
  // extends the formula to the two reserved ones: 0b001 = A and not(B), 0b110 = A or not(B).
  const bool ra = group(2 * p, r, m) ^ bit(a, 20), rb = group(2 * p + 1, r, m) ^ bit(b, 20);
  return bit(a, 21) ^ (ra && rb);
}

bool EteUnit::event(uint32_t field, const Retired& r) const { return event_field(field, r, matches(r.pc)); }

bool EteUnit::event_field(uint32_t field, const Retired& r, const Matches& m) const {
  return (field & 0x80) ? pair_of(field & 0xf, r, m) : event_of(field & 0x1f, r, m);
}

bool EteUnit::el_traced() const {
  const unsigned el = static_cast<unsigned>(el_);
  return !bit(victlr_, (secure(el_) ? VICTLR_EXLEVEL_S : VICTLR_EXLEVEL_NS) + el);
}

bool EteUnit::broadcast(const Matches& m) const {
  if (!(configr_ & CONFIGR_BB)) return false;
  // Include mode: inside a selected range (none selected: nowhere, brisk's choice where ETE is
  // CONSTRAINED UNPREDICTABLE); exclude mode: outside every selected range.
  const bool in_range = bbctlr_ & m.arc;
  return bbctlr_ & BBCTLR_MODE ? in_range : !in_range;
}

bool EteUnit::view_inst(const Retired& r, const Matches& m, bool& started) const {
  const uint32_t ac = mask(sizes_.ac_pairs), sac = mask(2 * sizes_.ac_pairs), pe = mask(sizes_.pe_comps);
  const bool start = (vissctlr_ & sac & m.sac) || (vipcssctlr_ & pe & r.pe_comparators);
  const bool stop = ((vissctlr_ >> 16) & sac & m.sac) || ((vipcssctlr_ >> 16) & pe & r.pe_comparators);
  // The instruction at a start address is traced and so is the one at a stop address.
  const bool ss = (victlr_ & VICTLR_SSSTATUS) || start;
  started = ss && !stop;
  const uint32_t include = viiectlr_ & ac, exclude = (viiectlr_ >> 16) & ac;
  const bool in_range = (!include || (include & m.arc)) && !(exclude & m.arc);
  return ss && in_range && el_traced() && event_field(victlr_ & kEventMask, r, m);
}

bool EteUnit::view_inst(const Retired& r) const {
  bool started;
  return view_inst(r, matches(r.pc), started);
}

unsigned EteUnit::alike_index() const {
  unsigned i = seqstr_ << 4;
  for (unsigned c = 0; c < sizes_.counters; c++)
    if (cntvr_[c] == 0) i |= 1u << c;
  return i;
}

uint64_t EteUnit::planned_key(const Retired& r) const {
  // Deciding by the pc, a step depends besides on the instruction's address class, the start/stop
  // state and which single-shot controls have fired.
  uint64_t key = classes_.at(r.pc) | uint64_t(alike_index()) << 24 | uint64_t(bool(victlr_ & VICTLR_SSSTATUS)) << 30;
  for (unsigned c = 0; c < sizes_.ss_comps; c++)
    if (sscsr_[c] & SSCSR_STATUS) key |= 1ull << (32 + c);
  return key;
}

EteUnit::Step EteUnit::plan(const Retired& r) const {
  // The remembered step needs no matches: they are what costs under a configuration deciding by the pc.
  if (by_pc_ && !alike_ && enabled() && planned_.generation == generation_ && planned_.key == planned_key(r))
    return counted(planned_.step);
  return plan(r, matches(r.pc));
}

EteUnit::Step EteUnit::plan(const Retired& r, const Matches& m) const {
  if (!by_pc_ || !enabled()) return evaluate(r, m);
  const unsigned i = alike_index();
  Step& known = alike_ ? alike_steps_[i] : planned_.step;
  if (!alike_) {
    const uint64_t key = planned_key(r);
    if (planned_.generation != generation_ || planned_.key != key) planned_ = {generation_, key, evaluate(r, m)};
  } else if (!((alike_known_ >> i) & 1)) {
    // Any counter that is not at zero decrements alike: 1 stands for them all.
    EteUnit u = *this;
    for (unsigned c = 0; c < sizes_.counters; c++) u.cntvr_[c] = cntvr_[c] != 0;
    known = u.evaluate(r, m);
    alike_known_ |= 1ull << i;
  }
  return counted(known);
}

EteUnit::Step EteUnit::counted(const Step& known) const {
  Step st = known;
  st.counters = cntvr_;
  for (unsigned c = 0; c < sizes_.counters; c++)
    if (bit(st.reloaded, c))
      st.counters[c] = cntrldvr_[c];
    else if (bit(st.decremented, c))
      st.counters[c]--;
  return st;
}

EteUnit::Step EteUnit::evaluate(const Retired& r, const Matches& m) const {
  Step st;
  // Every resource of a step sees the state before it; then all of it changes at once.
  st.traced = view_inst(r, m, st.started);
  st.fires = single_shot_fires(r, m);
  for (unsigned n = 0; n < 4; n++)
    if (bit(eventctl1r_, n) && event_field((eventctl0r_ >> (8 * n)) & kEventMask, r, m)) st.events |= 1u << n;
  st.timestamp = (configr_ & CONFIGR_TS) && tsctlr_ && event_field(tsctlr_, r, m);

  st.counters = cntvr_;
  for (unsigned i = 0; i < sizes_.counters; i++) {
    const uint32_t ctl = cntctlr_[i];
    const bool chain = (ctl & CNTCTLR_CNTCHAIN) && bit(st.reloaded, i - 1);
    // A counter whose events are both "never" and that is not chained cannot change.
    if ((ctl & 0xffff) == 0 && !chain) continue;
    const bool count = event_field(ctl & kEventMask, r, m) || chain;
    if (event_field((ctl >> 8) & kEventMask, r, m) || ((ctl & CNTCTLR_RLDSELF) && cntvr_[i] == 0 && count)) {
      st.counters[i] = cntrldvr_[i];
      st.reloaded |= 1u << i;
    } else if (count && cntvr_[i] > 0) {
      st.counters[i]--;
      st.decremented |= 1u << i;
    }
  }

  st.seq = seqstr_;
  if (!sizes_.seq_states) return st;
  if (seqrstevr_ && event_field(seqrstevr_, r, m)) {
    st.seq = 0;
    return st;
  }
  const unsigned s = seqstr_;
  const bool forward = s < 3 && (seqevr_[s] & kEventMask) && event_field(seqevr_[s] & kEventMask, r, m);
  const bool back = s > 0 && (seqevr_[s - 1] >> 8) && event_field((seqevr_[s - 1] >> 8) & kEventMask, r, m);
  // Both at once: the sequencer stays where it is.
  if (forward != back) st.seq = forward ? s + 1 : s - 1;
  return st;
}

void EteUnit::on_retired(const Retired& r) {
  if (!enabled()) return;
  const Matches m = matches(r.pc);
  const Step st = plan(r, m);
  cntvr_ = st.counters;
  seqstr_ = st.seq;
  for (unsigned c = 0; c < sizes_.ss_comps; c++)
    if (bit(st.fires, c)) sscsr_[c] |= SSCSR_STATUS;
  victlr_ = st.started ? victlr_ | VICTLR_SSSTATUS : victlr_ & ~VICTLR_SSSTATUS;

  cycles_++;
  const bool was_tracing = tracing_;
  tracing_ = st.traced;
  if (!sink_) return;
  if (st.traced && !was_tracing) sink_->trace_on(r.pc, el_, context_id_, vmid_);
  if (st.events) sink_->event(st.events);
  if (st.timestamp) sink_->timestamp();
  if (st.traced && r.kind != Retired::Plain) sink_->branch(r, cycles_, broadcast(m));
}

uint64_t EteUnit::quiet_steps(const Retired& like, uint64_t limit) const {
  if (!enabled()) return limit;
  if (!alike_ && (classes_.at(like.pc) & 0xffff)) return 0;  // a single address comparator matches `like` only
  const Step st = plan(like);
  const bool started = victlr_ & VICTLR_SSSTATUS;
  if (st.reloaded || st.seq != seqstr_ || st.fires || st.started != started || st.events || st.timestamp ||
      st.traced != tracing_)
    return 0;
  // Each step decrements the same counters, until one of them reaches zero, which changes the
  // resources of the step after it.
  uint64_t k = limit;
  for (unsigned i = 0; i < sizes_.counters; i++)
    if (bit(st.decremented, i)) k = std::min<uint64_t>(k, cntvr_[i]);
  return k;
}

bool EteUnit::alike_now() const {
  for (unsigned n = 2; n < 2 * sizes_.rs_pairs; n++) {
    const auto g = static_cast<Group>((rsctlr_[n] >> 16) & 0xf);
    if ((rsctlr_[n] & 0xffff) && (g == Group::ExternalInput || g == Group::PeComparator ||
                                  g == Group::SingleAddress || g == Group::AddressRange))
      return false;
  }
  for (unsigned c = 0; c < sizes_.ss_comps; c++)
    if ((ssccr_[c] & 0xffffff) || sspcicr_[c]) return false;
  return !vissctlr_ && !vipcssctlr_ && !viiectlr_;
}

bool EteUnit::by_pc_now() const {
  for (unsigned n = 2; n < 2 * sizes_.rs_pairs; n++) {
    const auto g = static_cast<Group>((rsctlr_[n] >> 16) & 0xf);
    if ((rsctlr_[n] & 0xffff) && (g == Group::ExternalInput || g == Group::PeComparator)) return false;
  }
  for (unsigned c = 0; c < sizes_.ss_comps; c++)
    if (sspcicr_[c]) return false;
  return !vipcssctlr_;
}

uint32_t EteUnit::used_comparators() const {
  uint32_t sac = vissctlr_ | vissctlr_ >> 16, arc = viiectlr_ | viiectlr_ >> 16;
  for (unsigned n = 2; n < 2 * sizes_.rs_pairs; n++) {
    const auto g = static_cast<Group>((rsctlr_[n] >> 16) & 0xf);
    if (g == Group::SingleAddress) sac |= rsctlr_[n];
    if (g == Group::AddressRange) arc |= rsctlr_[n];
  }
  for (unsigned c = 0; c < sizes_.ss_comps; c++) {
    sac |= ssccr_[c];
    arc |= ssccr_[c] >> 16;
  }
  if (configr_ & CONFIGR_BB) arc |= bbctlr_;
  return (sac & 0xffff) | (arc & 0xff) << 16;
}

uint64_t EteUnit::silent_steps(const Retired& like, uint64_t limit) const {
  if (!enabled() || !by_pc_) return 0;
  // Within a generation, for instructions of one address class, the unit goes the way the last
  // look went: go on from where it ended.
  Lookahead& a = ahead_;
  const uint32_t at = alike_ ? 0 : classes_.at(like.pc);
  // A single address comparator matches one instruction, which is stepped exactly.
  if (at & 0xffff) return 0;
  if (a.generation != generation_ || cycles_ > a.until || a.at != at)
    a = {generation_, cycles_, at, cntvr_, seqstr_, tracing_, false};
  const uint64_t end = cycles_ + std::min(limit, UINT64_MAX - cycles_);
  if (!a.stopped && a.until < end) {
    // The steps, tried on a copy that emits nothing: quiet runs, and between them single steps
    // that change counters, the sequencer or SSSTATUS but emit nothing of their own.
    EteUnit u = *this;
    u.sink_ = nullptr;
    u.cntvr_ = a.counters;
    u.seqstr_ = a.seq;
    u.tracing_ = a.tracing;
    u.cycles_ = a.until;
    while (u.cycles_ < end) {
      u.advance_quiet(like, u.quiet_steps(like, end - u.cycles_));
      if (u.cycles_ == end) break;
      const Step st = u.plan(like);
      if ((st.traced && !u.tracing_) || st.events || st.timestamp) {
        a.stopped = true;
        break;
      }
      u.on_retired(like);
    }
    a.until = u.cycles_;
    a.counters = u.cntvr_;
    a.seq = u.seqstr_;
    a.tracing = u.tracing_;
    alike_steps_ = u.alike_steps_;  // the same generation's
    alike_known_ = u.alike_known_;
  }
  return std::min(limit, a.until - cycles_);
}

void EteUnit::advance(const Retired& like, uint64_t n) {
  while (n) {
    const uint64_t q = quiet_steps(like, n);
    advance_quiet(like, q);
    n -= q;
    if (n) {
      on_retired(like);
      n--;
    }
  }
}

void EteUnit::advance_quiet(const Retired& like, uint64_t n) {
  if (!enabled() || n == 0) return;
  cycles_ += n;
  const Step st = plan(like);
  for (unsigned i = 0; i < sizes_.counters; i++)
    if (bit(st.decremented, i)) cntvr_[i] -= static_cast<uint32_t>(std::min<uint64_t>(n, cntvr_[i]));
}

void EteUnit::on_exception(uint64_t cause, bool interrupt, uint64_t epc, uint64_t handler, El el) {
  if (enabled() && tracing_ && sink_) sink_->exception(cause, interrupt, epc, handler, el);
  const bool was_traced = el_traced();
  el_ = el;
  context_changed(was_traced, context_matches_);
}

void EteUnit::on_context(uint64_t pc, El el, uint32_t context_id, uint32_t vmid) {
  const bool changed = el != el_ || context_id != context_id_ || vmid != vmid_;
  const bool was_traced = el_traced();
  const Matches was = context_matches_;
  el_ = el;
  context_id_ = context_id;
  vmid_ = vmid;
  match_context();
  context_changed(was_traced, was);
  if (changed && enabled() && tracing_ && sink_) sink_->context(pc, el, context_id, vmid);
}

void EteUnit::context_changed(bool was_traced, const Matches& was) {
  // The exception level reaches the resources only through ViewInst and the address comparators'
  // conditions (which only configurations that are not alike look at), the context only through
  // the comparators' matches.
  if (!alike_ || el_traced() != was_traced || context_matches_.cid != was.cid || context_matches_.vmid != was.vmid)
    new_generation();
}

void EteUnit::new_generation() {
  generation_++;
  alike_known_ = 0;
}

void EteUnit::set_enabled(bool on) {
  if (on == enabled()) return;
  prgctlr_ = on ? PRGCTLR_EN : 0;
  new_generation();  // the configuration may have changed while disabled
  if (on) {
    tracing_ = false;
    cycles_ = 0;
    alike_ = alike_now();  // the configuration cannot change while enabled
    by_pc_ = alike_ || by_pc_now();
    classes_ = {acvr_, sizes_.ac_pairs, used_comparators()};
    match_context();
    if (sink_) sink_->start(configr_, syncpr_, ccctlr_);
  } else if (sink_) {
    sink_->stop();
  }
}

// ------------------------------------------------------------------------------ registers

uint32_t EteUnit::idr(unsigned n) const {
  switch (n) {
    // RES1, TRCBB, TRCCCI, NUMEVENT = 4 events, TSSIZE = 64 bits, COMMOPT = 1.
    case 0: return 1u | 1u << 5 | 1u << 7 | 3u << 10 | 0b01000u << 24 | 1u << 29;
    // DESIGNER 'A', RES1 15:12, TRCARCHMAJ/MIN 0xf (TRCDEVARCH holds the version).
    case 1: return 0x4100fff0;
    // IASIZE 64 bits, CIDSIZE 32, VMIDSIZE 32, CCSIZE 20 bits.
    case 2: return 0b01000u | 0b00100u << 5 | 0b00100u << 10 | 0b1000u << 25;
    case 3: return kCcitMin | kElSecure << 16 | kElNonSecure << 20;
    case 4:
      return sizes_.ac_pairs | sizes_.pe_comps << 12 | (sizes_.rs_pairs - 1) << 16 | sizes_.ss_comps << 20 |
             sizes_.cid_comps << 24 | sizes_.vmid_comps << 28;
    case 5:
      return kExternalInputs | sizes_.ext_in_sel << 9 | 7u << 16 | sizes_.seq_states << 25 |
             sizes_.counters << 28;
    default: return 0;
  }
}

bool EteUnit::accessible(uint64_t offset) const {
  if (!oslock_) return true;
  // With the OS lock set only the ID registers, the OS lock and power-down status, and the
  // management registers at 0xf00 and up answer; the trace registers give an error response.
  return (offset >= TRCIDR8 && offset <= TRCIDR13 + 3) || (offset >= TRCIDR0 && offset <= TRCIDR7 + 3) ||
         offset == TRCOSLAR || offset == TRCOSLSR || offset == TRCPDCR || offset == TRCPDSR ||
         offset >= TRCITCTRL;
}

bool EteUnit::read(uint64_t offset, unsigned size, uint64_t& value) {
  if (offset + size > kWindowSize || offset % size || !accessible(offset & ~7ull)) return false;
  if (size == 8) {
    if (!is_64bit_register(offset)) return false;
    value = read32(offset) | uint64_t(read32(offset + 4)) << 32;
    return true;
  }
  if (size != 4) return false;
  value = read32(offset);
  return true;
}

bool EteUnit::write(uint64_t offset, unsigned size, uint64_t value) {
  if (offset + size > kWindowSize || offset % size || !accessible(offset & ~7ull)) return false;
  if (size == 8) {
    if (!is_64bit_register(offset)) return false;
    write32(offset, static_cast<uint32_t>(value));
    write32(offset + 4, static_cast<uint32_t>(value >> 32));
    return true;
  }
  if (size != 4) return false;
  write32(offset, static_cast<uint32_t>(value));
  return true;
}

uint32_t EteUnit::read32(uint64_t o) {
  const Sizes& s = sizes_;
  auto half = [o](uint64_t v) { return static_cast<uint32_t>(o & 4 ? v >> 32 : v); };
  auto index = [o](uint64_t base, unsigned stride) { return static_cast<unsigned>((o - base) / stride); };
  if (o >= TRCSEQEVR0 && o < TRCSEQEVR0 + 12) return s.seq_states ? seqevr_[index(TRCSEQEVR0, 4)] : 0;
  if (o >= TRCEXTINSELR0 && o < TRCEXTINSELR0 + 16) {
    const unsigned n = index(TRCEXTINSELR0, 4);
    return n < s.ext_in_sel ? extinselr_[n] : 0;
  }
  for (auto [base, regs] : {std::pair{TRCCNTRLDVR0, &cntrldvr_}, {TRCCNTCTLR0, &cntctlr_}, {TRCCNTVR0, &cntvr_}})
    if (o >= base && o < base + 16) {
      const unsigned n = index(base, 4);
      return n < s.counters ? (*regs)[n] : 0;
    }
  if (o >= TRCIDR8 && o <= TRCIDR13) return idr(8 + index(TRCIDR8, 4));
  if (o >= TRCIDR0 && o <= TRCIDR7) return idr(index(TRCIDR0, 4));
  if (o >= TRCRSCTLR0 && o < TRCRSCTLR0 + 128) {
    const unsigned n = index(TRCRSCTLR0, 4);
    return n >= 2 && n < 2 * s.rs_pairs ? rsctlr_[n] : 0;  // the seed: RES0 beyond NUMRSPAIR
  }
  for (auto [base, regs] : {std::pair{TRCSSCCR0, &ssccr_}, {TRCSSCSR0, &sscsr_}, {TRCSSPCICR0, &sspcicr_}})
    if (o >= base && o < base + 32) {
      const unsigned n = index(base, 4);
      if (n >= s.ss_comps) return 0;
      // TRCSSCSR: INST (instruction address comparisons) and PC (PE comparator inputs) are fixed.
      if (base == TRCSSCSR0) return (*regs)[n] | 1u | (s.pe_comps ? 1u << 3 : 0);
      return (*regs)[n];
    }
  if (o >= TRCACVR0 && o < TRCACVR0 + 128) {
    const unsigned n = index(TRCACVR0, 8);
    return n < 2 * s.ac_pairs ? half(acvr_[n]) : 0;
  }
  if (o >= TRCACATR0 && o < TRCACATR0 + 128) {
    const unsigned n = index(TRCACATR0, 8);
    return n < 2 * s.ac_pairs ? half(acatr_[n]) : 0;
  }
  if (o >= TRCCIDCVR0 && o < TRCCIDCVR0 + 64) {
    const unsigned n = index(TRCCIDCVR0, 8);
    return n < s.cid_comps ? half(cidcvr_[n]) : 0;
  }
  if (o >= TRCVMIDCVR0 && o < TRCVMIDCVR0 + 64) {
    const unsigned n = index(TRCVMIDCVR0, 8);
    return n < s.vmid_comps ? half(vmidcvr_[n]) : 0;
  }
  if (o >= TRCPIDR4 && o < TRCPIDR4 + 32) return kPidr[index(TRCPIDR4, 4)];
  if (o >= TRCCIDR0 && o < TRCCIDR0 + 16) return kCidr[index(TRCCIDR0, 4)];
  switch (o) {
    case TRCPRGCTLR: return prgctlr_;
    case TRCSTATR: return enabled() ? 0 : STATR_IDLE | STATR_PMSTABLE;
    case TRCCONFIGR: return configr_;
    case TRCEVENTCTL0R: return eventctl0r_;
    case TRCEVENTCTL1R: return eventctl1r_;
    case TRCTSCTLR: return tsctlr_;
    case TRCSYNCPR: return syncpr_;
    case TRCCCCTLR: return ccctlr_;
    case TRCBBCTLR: return bbctlr_;
    case TRCTRACEIDR: return traceidr_;
    case TRCVICTLR: return victlr_;
    case TRCVIIECTLR: return viiectlr_;
    case TRCVISSCTLR: return vissctlr_;
    case TRCVIPCSSCTLR: return vipcssctlr_;
    case TRCSEQRSTEVR: return seqrstevr_;
    case TRCSEQSTR: return seqstr_;
    case TRCOSLSR: return 1u << 3 | (oslock_ ? OSLSR_OSLK : 0);  // OSLM = 0b10: OS lock implemented
    case TRCPDSR: {
      // POWER always; STICKYPD from the last reset until this register is read.
      const uint32_t v = 1u | (stickypd_ ? 1u << 1 : 0) | (oslock_ ? 1u << 5 : 0);
      stickypd_ = false;
      return v;
    }
    case TRCCIDCCTLR0: return cidcctlr0_;
    case TRCCIDCCTLR1: return cidcctlr1_;
    case TRCVMIDCCTLR0: return vmidcctlr0_;
    case TRCVMIDCCTLR1: return vmidcctlr1_;
    case TRCCLAIMSET: return 0xf;  // four claim tags
    case TRCCLAIMCLR: return claim_;
    case TRCDEVAFF: return 1u << 31 | affinity_;  // MPIDR-style: RES1 bit 31, Aff0 = the hart
    case TRCAUTHSTATUS: return kAuthStatus;
    case TRCDEVARCH: return kDevArch;
    case TRCDEVTYPE: return kDevType;
    default: return 0;  // RES0: absent registers, and those of features brisk lacks
  }
}

void EteUnit::write32(uint64_t o, uint32_t v) {
  const Sizes& s = sizes_;
  // Registers that may be written in any state.
  switch (o) {
    case TRCPRGCTLR: set_enabled(v & PRGCTLR_EN); return;
    case TRCOSLAR: oslock_ = v & 1; return;
    case TRCCLAIMSET: claim_ |= v & 0xf; return;
    case TRCCLAIMCLR: claim_ &= ~v; return;
    default: break;
  }
  // The rest are CONSTRAINED UNPREDICTABLE outside the Idle state: brisk ignores those writes,
  // so a running unit's configuration never changes under it (docs/ete.md).
  if (enabled()) return;
  auto set_half = [o](uint64_t& r, uint32_t val, uint64_t keep) {
    const unsigned sh = o & 4 ? 32 : 0;
    r = ((r & ~(0xffffffffull << sh)) | uint64_t(val) << sh) & keep;
  };
  auto index = [o](uint64_t base, unsigned stride) { return static_cast<unsigned>((o - base) / stride); };
  const uint32_t ac = mask(s.ac_pairs), sac = mask(2 * s.ac_pairs), pe = mask(s.pe_comps);
  if (o >= TRCSEQEVR0 && o < TRCSEQEVR0 + 12) {
    if (s.seq_states) seqevr_[index(TRCSEQEVR0, 4)] = v & (kEventMask | kEventMask << 8);
    return;
  }
  if (o >= TRCEXTINSELR0 && o < TRCEXTINSELR0 + 16) {
    if (index(TRCEXTINSELR0, 4) < s.ext_in_sel) extinselr_[index(TRCEXTINSELR0, 4)] = v & 0xffff;
    return;
  }
  if (o >= TRCCNTRLDVR0 && o < TRCCNTVR0 + 16) {
    const unsigned n = index(TRCCNTRLDVR0, 4) % 4;
    if (n >= s.counters) return;
    if (o < TRCCNTCTLR0) {
      cntrldvr_[n] = v & 0xffff;
    } else if (o < TRCCNTVR0) {
      // CNTCHAIN exists for counters 1 and 3 only.
      const uint32_t keep = kEventMask | kEventMask << 8 | CNTCTLR_RLDSELF | (n % 2 ? CNTCTLR_CNTCHAIN : 0);
      cntctlr_[n] = v & keep;
    } else {
      cntvr_[n] = v & 0xffff;
    }
    return;
  }
  if (o >= TRCRSCTLR0 && o < TRCRSCTLR0 + 128) {
    const unsigned n = index(TRCRSCTLR0, 4);
    if (n < 2 || n >= 2 * s.rs_pairs) return;
    const unsigned grp = (v >> 16) & 0xf;
    static constexpr unsigned kNone = 0;
    const uint32_t select_mask[8] = {mask(s.ext_in_sel), pe, mask(s.counters) | (s.seq_states ? 0xf0u : kNone),
                                     mask(s.ss_comps), sac, ac, mask(s.cid_comps), mask(s.vmid_comps)};
    const uint32_t select = grp < 8 ? v & select_mask[grp] : 0;
    rsctlr_[n] = select | grp << 16 | (v & RSCTLR_INV) | (n % 2 == 0 ? v & RSCTLR_PAIRINV : 0);
    return;
  }
  if (o >= TRCSSCCR0 && o < TRCSSPCICR0 + 32) {
    const unsigned n = index(TRCSSCCR0, 4) % 8;
    if (n >= s.ss_comps) return;
    if (o < TRCSSCSR0) ssccr_[n] = v & (sac | ac << 16 | SSCCR_RST);
    else if (o < TRCSSPCICR0) sscsr_[n] = v & (SSCSR_STATUS | SSCSR_PENDING);
    else sspcicr_[n] = v & pe;
    return;
  }
  // TRCACATR: EXLEVEL bits of the levels brisk has, CONTEXTTYPE/CONTEXT when there are comparators.
  const uint64_t acatr_keep = kElSecure << ACATR_EXLEVEL_S | kElNonSecure << ACATR_EXLEVEL_NS |
                              (s.cid_comps ? 1u << ACATR_CONTEXTTYPE : 0) |
                              (s.vmid_comps ? 2u << ACATR_CONTEXTTYPE : 0) | 7u << ACATR_CONTEXT;
  if (o >= TRCACVR0 && o < TRCACVR0 + 128) {
    if (index(TRCACVR0, 8) < 2 * s.ac_pairs) set_half(acvr_[index(TRCACVR0, 8)], v, ~0ull);
    return;
  }
  if (o >= TRCACATR0 && o < TRCACATR0 + 128) {
    if (index(TRCACATR0, 8) < 2 * s.ac_pairs) set_half(acatr_[index(TRCACATR0, 8)], v, acatr_keep);
    return;
  }
  if (o >= TRCCIDCVR0 && o < TRCCIDCVR0 + 64) {
    if (index(TRCCIDCVR0, 8) < s.cid_comps) set_half(cidcvr_[index(TRCCIDCVR0, 8)], v, 0xffffffff);
    return;
  }
  if (o >= TRCVMIDCVR0 && o < TRCVMIDCVR0 + 64) {
    if (index(TRCVMIDCVR0, 8) < s.vmid_comps) set_half(vmidcvr_[index(TRCVMIDCVR0, 8)], v, 0xffffffff);
    return;
  }
  // Comparator c's byte mask is byte c % 4 of CTLR0 (c < 4) or CTLR1, bits 3:0 (a 32-bit ID).
  auto byte_masks = [](unsigned comps, unsigned first) {
    uint32_t m = 0;
    for (unsigned c = first; c < comps && c < first + 4; c++) m |= 0xfu << (8 * (c - first));
    return m;
  };
  switch (o) {
    case TRCCONFIGR: configr_ = v & (CONFIGR_BB | CONFIGR_CCI | CONFIGR_CID | CONFIGR_VMID | CONFIGR_TS); break;
    case TRCCCCTLR: ccctlr_ = v & 0xfff; break;  // THRESHOLD
    case TRCBBCTLR: bbctlr_ = v & (BBCTLR_MODE | ac); break;  // RANGE: the pairs that exist
    case TRCEVENTCTL0R: eventctl0r_ = v & 0x9f9f9f9f; break;
    case TRCEVENTCTL1R: eventctl1r_ = v & 0xf; break;  // INSTEN 3:0
    case TRCTSCTLR: tsctlr_ = v & kEventMask; break;
    // PERIOD: 0 (no periodic synchronization) or 2^8 to 2^20 bytes; 1-7 are reserved and read as 8.
    case TRCSYNCPR: syncpr_ = (v & 0x1f) == 0 ? 0 : std::clamp(v & 0x1f, 8u, 20u); break;
    case TRCTRACEIDR: traceidr_ = v & 0x7f; break;
    case TRCVICTLR:
      victlr_ = v & (kEventMask | VICTLR_SSSTATUS | kElSecure << VICTLR_EXLEVEL_S | kElNonSecure << VICTLR_EXLEVEL_NS);
      break;
    case TRCVIIECTLR: viiectlr_ = v & (ac | ac << 16); break;
    case TRCVISSCTLR: vissctlr_ = v & (sac | sac << 16); break;
    case TRCVIPCSSCTLR: vipcssctlr_ = v & (pe | pe << 16); break;
    case TRCSEQRSTEVR: seqrstevr_ = s.seq_states ? v & kEventMask : 0; break;
    case TRCSEQSTR: seqstr_ = s.seq_states ? v & 3 : 0; break;
    case TRCCIDCCTLR0: cidcctlr0_ = v & byte_masks(s.cid_comps, 0); break;
    case TRCCIDCCTLR1: cidcctlr1_ = v & byte_masks(s.cid_comps, 4); break;
    case TRCVMIDCCTLR0: vmidcctlr0_ = v & byte_masks(s.vmid_comps, 0); break;
    case TRCVMIDCCTLR1: vmidcctlr1_ = v & byte_masks(s.vmid_comps, 4); break;
    default: break;  // read-only and RES0 registers ignore writes
  }
}

}  // namespace brisk
