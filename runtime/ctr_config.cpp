#include "runtime/ctr_config.h"

#include <cerrno>
#include <cstring>
#include <string_view>

#include <linux/perf_event.h>

#include <fmt/format.h>

#include "csr/ctr.h"
#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/hart.h"

namespace brisk::ctr {

namespace {

constexpr uint32_t bit(TransferType t) { return 1u << unsigned(t); }

// The types mctrctl can filter: every TYPE but 0 (none) and the reserved 6 and 7.
constexpr uint32_t kFilterable = 0xff3e;

constexpr const char* kTypeNames[16] = {
    "none",         "exception",       "interrupt",   "trap-return",     "not-taken-branch",
    "taken-branch", "reserved-6",      "reserved-7",  "indirect-call",   "direct-call",
    "indirect-jump", "direct-jump",    "co-routine-swap", "function-return", "other-indirect-jump",
    "other-direct-jump"};

struct FilterName {
  const char* name;
  uint32_t types;  // bit TYPE: record it
  uint64_t ctrctl; // other mctrctl bits (RASEMU) or, for u and k, the mode
  bool mode;
  uint64_t perf;   // PERF_SAMPLE_BRANCH_* (0 for brisk's own names)
};

// perf's branch filters where they map (perf record -j; `any` leaves out not-taken branches, as
// the Smctr reset value does), brisk's not_taken, perf's `stack` for RASEMU, and every type by name.
// A co-routine swap is both a call and a return.
constexpr uint32_t kAny = kFilterable & ~bit(TransferType::NotTakenBranch);
const FilterName kFilters[] = {
    {"any", kAny, 0, false, PERF_SAMPLE_BRANCH_ANY},
    {"any_call",
     bit(TransferType::Exception) | bit(TransferType::Interrupt) | bit(TransferType::IndirectCall) |
         bit(TransferType::DirectCall) | bit(TransferType::CoroutineSwap),
     0, false, PERF_SAMPLE_BRANCH_ANY_CALL},
    {"call", bit(TransferType::DirectCall), 0, false, PERF_SAMPLE_BRANCH_CALL},
    {"ind_call", bit(TransferType::IndirectCall), 0, false, PERF_SAMPLE_BRANCH_IND_CALL},
    {"any_ret", bit(TransferType::TrapReturn) | bit(TransferType::Return) | bit(TransferType::CoroutineSwap), 0, false,
     PERF_SAMPLE_BRANCH_ANY_RETURN},
    {"return", bit(TransferType::TrapReturn) | bit(TransferType::Return) | bit(TransferType::CoroutineSwap), 0, false,
     PERF_SAMPLE_BRANCH_ANY_RETURN},
    {"ind_jmp", bit(TransferType::IndirectJump) | bit(TransferType::OtherIndirectJump), 0, false, PERF_SAMPLE_BRANCH_IND_JUMP},
    {"cond", bit(TransferType::TakenBranch), 0, false, PERF_SAMPLE_BRANCH_COND},
    {"not_taken", bit(TransferType::NotTakenBranch), 0, false, 0},
    {"stack", 0, CTRCTL_RASEMU, false, PERF_SAMPLE_BRANCH_CALL_STACK},
    {"u", 0, CTRCTL_U, true, PERF_SAMPLE_BRANCH_USER},
    {"k", 0, CTRCTL_S, true, PERF_SAMPLE_BRANCH_KERNEL},
    {"hv", 0, CTRCTL_M, true, PERF_SAMPLE_BRANCH_HV},  // M mode, which perf.data calls the hypervisor
};

std::string accepted_names() {
  std::string s;
  for (const FilterName& f : kFilters) s += fmt::format("{}{}", s.empty() ? "" : ", ", f.name);
  for (unsigned t = 0; t < 16; t++)
    if (kFilterable >> t & 1) s += fmt::format(", {}", kTypeNames[t]);
  return s;
}

// Sets the bits of one filter name into types / f; false when it is not one.
bool apply_name(std::string_view name, uint32_t& types, Filters& f) {
  for (const FilterName& n : kFilters) {
    if (name != n.name) continue;
    types |= n.types;
    (n.mode ? f.modes : f.ctrctl) |= n.ctrctl;
    f.perf |= n.perf;
    return true;
  }
  for (unsigned t = 0; t < 16; t++) {
    if ((kFilterable >> t & 1) && name == kTypeNames[t]) {
      types |= 1u << t;
      return true;
    }
  }
  return false;
}

}  // namespace

const char* type_name(TransferType t) { return kTypeNames[unsigned(t) & 15]; }

Filters parse_filters(const std::string& list, const char* option) {
  Filters f;
  uint32_t types = 0;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!apply_name(item, types, f))
      throw Error("{}: unknown filter '{}' (accepted: {})", option, item, accepted_names());
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  // Only modes or RASEMU named: every type, as for --ctr alone.
  if (types == 0) types = kAny;
  // Inhibit bit 32+TYPE for each type left out, except NTBREN (TYPE 4), which enables.
  const uint32_t inhibit = kFilterable & ~types & ~bit(TransferType::NotTakenBranch);
  f.ctrctl |= uint64_t(inhibit) << CTRCTL_TYPE_SHIFT;
  if (types & bit(TransferType::NotTakenBranch)) f.ctrctl |= CTRCTL_NTBREN;
  return f;
}

unsigned parse_depth(const std::string& depth) {
  for (unsigned code = 0; code < kDepthCodes; code++)
    if (depth == std::to_string(16u << code)) return code;
  throw Error("--ctr-depth: '{}' is not one of 16, 32, 64, 128, 256", depth);
}

void configure(Hart& h, const Options& opt, uint64_t default_modes, uint64_t allowed_modes) {
  if (!opt.record && opt.depth_code == kDepthCodes - 1) return;  // nothing asked: the reset state stands
  if (!h.csr.isa.has(Ext::Smctr)) throw Error("--ctr and --ctr-depth need Smctr, which --cpu switched off");
  if (!(h.csr.ctr.depths >> opt.depth_code & 1))
    throw Error("--ctr-depth {}: not one of the depths --cpu ctr-depths allows", 16u << opt.depth_code);
  set_depth(h, opt.depth_code);
  if (!opt.record) return;
  const uint64_t modes = opt.filters.modes ? opt.filters.modes : default_modes;
  if (const uint64_t absent = modes & ~allowed_modes) {
    const bool s = absent & CTRCTL_S;
    throw Error("--ctr: filter '{}' records {}-mode, which brisk run does not have", s ? "k" : "hv", s ? "S" : "M");
  }
  write_ctrctl(h, opt.filters.ctrctl | modes, false);
}

Dump::Dump(const std::string& path) : out_(diag()), owned_(!path.empty()) {
  if (owned_ && !(out_ = open_own_file(path)))
    throw Error("--ctr-dump: cannot write {}: {}", path, std::strerror(errno));
}

Dump::~Dump() {
  if (owned_) std::fclose(out_);
}

void Dump::write(const std::vector<Hart*>& harts, const char* when) {
  std::string s;
  for (Hart* h : harts) {
    const unsigned d = depth(h->csr.ctr);
    std::string lines;
    unsigned valid = 0;
    for (unsigned n = 0; n < d; n++) {
      const Record r = logical_entry(*h, n);
      if (!(r.source & CTRSOURCE_V)) continue;
      valid++;
      const uint64_t cycles = r.data & CTRDATA_CCV ? decode_cycles((r.data & CTRDATA_CC) >> CTRDATA_CC_SHIFT) : 0;
      lines += fmt::format("{:#x}/{:#x}/{}/-/-/{} {}\n", r.source & ~CTRSOURCE_V, r.target & ~CTRTARGET_MISP,
                           r.target & CTRTARGET_MISP ? 'M' : 'P', cycles,
                           type_name(static_cast<TransferType>(r.data & CTRDATA_TYPE)));
    }
    s += fmt::format("# ctr: hart {} {}: {} valid entries of {}, youngest first\n", h->hartid, when, valid, d);
    s += lines;
  }
  std::fwrite(s.data(), 1, s.size(), out_);
  std::fflush(out_);
}

}  // namespace brisk::ctr
