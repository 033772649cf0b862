#include "runtime/snitch_machine.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>
#include <utility>

#include <fmt/format.h>

#include "csr/csr.h"
#include "csr/csr_numbers.h"
#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/input_file.h"
#include "runtime/semantics.h"
#include "runtime/snitch_facts.h"

namespace brisk {

namespace {

// Steps between looks at --timeout, --max-insns and HTIF.
constexpr uint64_t kLimitCheck = 1024;

// -m, checked before the Bus is made of it: whole pages (the Bus keeps per-page code counts), and
// DRAM ends before the CLINT.
constexpr uint64_t kMinDram = 1u << 20;
constexpr uint64_t kMaxDram = SnitchMachine::kClintBase - SnitchMachine::kDramBase;
uint64_t dram_size(uint64_t size) {
  if (size < kMinDram || size % Bus::kPage)
    throw Error("-M snitch needs at least 1 MiB of DRAM in whole 4 KiB pages (-m {} bytes)", size);
  if (size > kMaxDram) throw Error("-M snitch has at most {} MiB of DRAM, up to the CLINT (-m {} MiB)", kMaxDram >> 20, size >> 20);
  return size;
}

// The retired events other than RETIRED_INSTR (snitch::retired_events), as the instruction classes
// translated code counts (EngineOptions::insn_events): class k is kClassMetric[k].
constexpr snitch::Metric kClassMetric[] = {snitch::Metric::RETIRED_LOAD,      snitch::Metric::RETIRED_I,
                                           snitch::Metric::RETIRED_ACC,       snitch::Metric::ISSUE_CORE_TO_FPU,
                                           snitch::Metric::ISSUE_FPU,         snitch::Metric::ISSUE_FPU_SEQ};
static_assert(std::size(kClassMetric) <= Hart::kInsnEventClasses);

uint8_t classes_of(snitch::MetricMask metrics) {
  uint8_t classes = 0;
  for (unsigned k = 0; k < std::size(kClassMetric); k++)
    if (metrics & snitch::bit(kClassMetric[k])) classes |= 1u << k;
  return classes;
}

uint8_t insn_classes(const Insn& in) { return classes_of(snitch::retired_events(snitch_facts(in))); }

}  // namespace

// The TCDM's bytes: loads and stores of any size within the window. The bank model is the
// cluster's (devices/snitch/tcdm.h); here is only the data.
class SnitchMachine::Sram final : public Device {
 public:
  const char* name() const override { return "tcdm"; }
  bool read(uint64_t offset, unsigned size, uint64_t& value) override {
    if (offset + size > bytes_.size()) return false;
    value = 0;
    std::memcpy(&value, bytes_.data() + offset, size);
    return true;
  }
  bool write(uint64_t offset, unsigned size, uint64_t value) override {
    if (offset + size > bytes_.size()) return false;
    std::memcpy(bytes_.data() + offset, &value, size);
    return true;
  }
  uint8_t* memory(uint64_t offset, uint64_t size) override {
    return offset < bytes_.size() && size <= bytes_.size() - offset ? bytes_.data() + offset : nullptr;
  }

 private:
  std::vector<uint8_t> bytes_ = std::vector<uint8_t>(snitch::kTcdmSize);
};

// The cluster's zero memory: reads 0, ignores writes.
class SnitchMachine::ZeroMemory final : public Device {
 public:
  const char* name() const override { return "zero-memory"; }
  bool read(uint64_t, unsigned, uint64_t& value) override {
    value = 0;
    return true;
  }
  bool write(uint64_t, unsigned, uint64_t) override { return true; }
};

// What the DMA moves bytes through: the TCDM and DRAM, by physical address. Its writes may land on
// translated code.
class SnitchMachine::ClusterMemory final : public snitch::HostMemory {
 public:
  ClusterMemory(Bus& bus, Sram& tcdm, SnitchMachine& machine) : bus_(bus), tcdm_(tcdm), machine_(machine) {}
  uint8_t* at(uint64_t addr, uint64_t size) override {
    if (uint8_t* p = bus_.ram_ptr(addr, size)) return p;
    return tcdm_.memory(addr - snitch::kTcdmBase, size);
  }
  bool write(uint64_t addr, const uint8_t* data, uint64_t size) override {
    if (!HostMemory::write(addr, data, size)) return false;
    machine_.code_written(addr, size);
    return true;
  }

 private:
  Bus& bus_;
  Sram& tcdm_;
  SnitchMachine& machine_;
};

// The peripheral block as the bus maps it. A store to it may change which metrics count, and a
// translated turn counts only what it began with: the turn ends right after the store.
class SnitchMachine::PeriphWindow final : public Device {
 public:
  PeriphWindow(Device& periph, SnitchMachine& machine) : periph_(periph), machine_(machine) {}
  const char* name() const override { return periph_.name(); }
  bool read(uint64_t offset, unsigned size, uint64_t& value) override { return periph_.read(offset, size, value); }
  bool write(uint64_t offset, unsigned size, uint64_t value) override {
    if (Hart* h = machine_.translating_) {
      machine_.count_turn(*h);  // what ran before the store counts as the counters were
      h->request_exit();
      h->code_written = true;  // translated code leaves right after a store that sets it
    }
    return periph_.write(offset, size, value);
  }

 private:
  Device& periph_;
  SnitchMachine& machine_;
};

// The DMA core's Xdma. The parameters go to the engine at once; a DMCPY answers the id it gets and
// is queued after its retire, at its issue cycle (Cluster::dma_copy).
class SnitchMachine::DmaPort final : public XdmaPort {
 public:
  struct Copy {
    uint32_t size, config;
  };
  explicit DmaPort(snitch::Dma& dma) : dma_(dma) {}
  void set_source(uint64_t addr) override { dma_.set_source(addr); }
  void set_destination(uint64_t addr) override { dma_.set_destination(addr); }
  void set_strides(uint64_t src_stride, uint64_t dst_stride) override { dma_.set_strides(src_stride, dst_stride); }
  void set_repetitions(uint32_t reps) override { dma_.set_repetitions(reps); }
  uint32_t copy(uint32_t size, uint32_t config) override {
    pending_ = Copy{size, config};
    return dma_.status(snitch::Dma::kNextId);
  }
  uint32_t status(uint32_t which) override { return dma_.status(which); }
  // The DMCPY of the instruction just run, if it was one.
  std::optional<Copy> take_copy() { return std::exchange(pending_, std::nullopt); }

 private:
  snitch::Dma& dma_;
  std::optional<Copy> pending_;
};

// A compute core's three SSRs (ft0-ft2) and its FREP sequencer's pending loop (docs/snitch.md,
// "SSRs" and "FREP"). The configuration and the address walk are snitch::Ssr's; the machine moves
// the elements around the FP instructions (run_insn).
class SnitchMachine::CorePort final : public SnitchCorePort {
 public:
  static constexpr unsigned kStreams = 3;
  static constexpr unsigned kBroadcast = 31;

  uint32_t ssr_read(uint32_t addr) override {
    const unsigned ssr = addr & 31, word = addr >> 5;
    return ssr < kStreams ? streams_[ssr].read(word) : 0;
  }
  bool ssr_write(uint32_t addr, uint32_t value) override {
    const unsigned ssr = addr & 31, word = addr >> 5;
    if (ssr == kBroadcast) {
      // All or nothing: an indirect start is illegal when one SSR cannot run it (SSR 2).
      for (const snitch::Ssr& s : streams_)
        if (!s.can_write(word)) return false;
      for (snitch::Ssr& s : streams_) s.write(word, value);
    } else if (ssr < kStreams) {
      if (!streams_[ssr].can_write(word)) return false;
      streams_[ssr].write(word, value);
    }
    return true;
  }
  void frep(const Frep& f) override { frep_ = f; }

  std::optional<Frep> take_frep() { return std::exchange(frep_, std::nullopt); }
  snitch::Ssr& stream(unsigned n) { return streams_[n]; }

 private:
  // The default cluster: SSRs 0 and 1 have indirection; SSR 2 is the intersector's slave.
  snitch::Ssr streams_[kStreams] = {snitch::Ssr(true), snitch::Ssr(true), snitch::Ssr(false)};
  std::optional<Frep> frep_;
};

// mtime and the time CSR count cluster cycles, so that a run is the same every time.
class SnitchMachine::CycleClock final : public Clock {
 public:
  explicit CycleClock(const snitch::Cluster& cluster) : cluster_(cluster) {}
  uint64_t now() const override { return cluster_.now() + offset_; }
  void set(uint64_t now) override { offset_ = now - cluster_.now(); }

 private:
  const snitch::Cluster& cluster_;
  uint64_t offset_ = 0;
};

SnitchMachine::SnitchMachine(const SystemOptions& opt) : opt_(opt), bus_(kDramBase, dram_size(opt.ram_size)) {
  if (opt_.kernel.empty()) throw Error("-M snitch needs --kernel PROG.elf");
  if (!opt_.bios.empty() || !opt_.initrd.empty() || !opt_.append.empty() || !opt_.dumpdtb.empty())
    throw Error("-M snitch runs a bare-metal --kernel ELF: --bios, --initrd, --append and --dumpdtb are virt's");
  if (opt_.harts != 1 || opt_.host_threads > 1) throw Error("-M snitch has {} harts: --smp is virt's", kHarts);
  if (opt_.recorder || opt_.ctr.record || opt_.ctr.dump) throw Error("-M snitch does not record: --record and --ctr are virt's");
  if (opt_.engine.name == "jit" && !opt_.quantum)
    throw Error("-M snitch runs in cycle order on the interpreter: --engine=jit needs --quantum N");
  if (opt_.engine.name != "interp" && opt_.engine.name != "jit")
    throw Error("-M snitch runs on the interpreter, or in quantum mode with --engine=jit: --engine={} is not available",
                opt_.engine.name);
  IsaConfig isa;
  isa.apply(opt_.cpu);
  isa.snitch_cluster = true;

  tcdm_ = std::make_unique<Sram>();
  zero_ = std::make_unique<ZeroMemory>();
  cluster_memory_ = std::make_unique<ClusterMemory>(bus_, *tcdm_, *this);
  cluster_ = std::make_unique<snitch::Cluster>(kHarts, *cluster_memory_);
  clock_ = std::make_unique<CycleClock>(*cluster_);
  dma_port_ = std::make_unique<DmaPort>(cluster_->dma());
  IsaConfig dma_isa = isa;
  dma_isa.on.set(static_cast<size_t>(Ext::Xdma));
  IsaConfig core_isa = isa;
  core_isa.on.set(static_cast<size_t>(Ext::Xssr)).set(static_cast<size_t>(Ext::Xfrep));
  std::vector<Hart*> raw;
  for (unsigned i = 0; i < kHarts; i++) {
    harts_.push_back(std::make_unique<Hart>());
    Hart& h = *harts_.back();
    h.hartid = i;
    csr::set_isa(h, i == kDmaCore ? dma_isa : core_isa);
    if (i == kDmaCore) {
      h.xdma = dma_port_.get();
    } else {
      core_ports_.push_back(std::make_unique<CorePort>());
      h.snitch_core = core_ports_.back().get();
    }
    h.csr.clock = clock_.get();
    csr::reset(h);
    raw.push_back(&h);
  }
  traps_.resize(kHarts);
  mem_ = std::make_unique<SystemMemory>(bus_, raw);
  for (auto& h : harts_) h->env = mem_.get();
  clint_ = std::make_unique<Clint>(kHarts, *this, *clock_);
  periph_ = std::make_unique<SnitchPeriph>(cluster_->counters(), cluster_->icache(), *this);
  periph_window_ = std::make_unique<PeriphWindow>(*periph_, *this);
  bus_.map(snitch::kTcdmBase, snitch::kTcdmSize, tcdm_.get());
  bus_.map(kPeriphBase, snitch_periph::kWindowSize, periph_window_.get());
  bus_.map(kZeroMemBase, kZeroMemSize, zero_.get());
  bus_.map(kClintBase, clint::kWindowSize, clint_.get());
  if (opt_.engine.name == "jit") {
    EngineOptions eo = opt_.engine;
    eo.deadlines = true;
    eo.insn_events = insn_classes;
    core_engine_ = make_engine(eo);
    dma_engine_ = make_engine(eo);
    mem_->set_code_hooks({[this](Hart&, uint64_t page) { code_written(page, Bus::kPage); },
                          [this](Hart& h, uint64_t va) { engine_for(h.hartid)->flush_lookup(h, va); }});
  }
  load_program();
}

SnitchMachine::~SnitchMachine() = default;

void SnitchMachine::load_program() {
  const ElfFile f(opt_.kernel, "kernel");
  check_xlen(f, opt_.kernel, harts_[0]->csr.isa.xlen);
  const std::string shown = printable(opt_.kernel);
  const LoadedElf elf = load_segments(
      f, 0, [this](uint64_t pa, uint64_t size) { return cluster_memory_->at(pa, size); },
      fmt::format("the TCDM ({:#x}..{:#x}) and DRAM ({:#x}..{:#x}; try a larger -m)", snitch::kTcdmBase,
                  snitch::kTcdmBase + snitch::kTcdmSize, kDramBase, kDramBase + opt_.ram_size));
  // Instructions are fetched from DRAM only (runtime/mmu.cpp fetches from RAM).
  if (!bus_.ram_ptr(elf.entry, 4)) throw Error("{}: the entry point {:#x} is not in DRAM", shown, elf.entry);
  if (elf.tohost) {
    uint8_t* p = bus_.ram_ptr(*elf.tohost, 8);
    if (!p) throw Error("{}: tohost at {:#x} is not in DRAM", shown, *elf.tohost);
    htif_.emplace(p);
    tohost_ = *elf.tohost;
  }
  for (auto& h : harts_) {
    h->pc = elf.entry;
    h->x[10] = h->hartid;  // a0: hart id
  }
}

void SnitchMachine::set_mip(unsigned hart, unsigned bit, bool level) {
  Hart& h = *harts_.at(hart);
  if (level)
    h.csr.mip_hw |= 1ull << bit;
  else
    h.csr.mip_hw &= ~(1ull << bit);
  if (h.waiting && wake_condition(h)) {
    h.waiting = false;
    cluster_->wake(hart);
  }
}

void SnitchMachine::poll_htif() {
  if (std::optional<int> code = htif_->poll()) stop(*code);
}

void SnitchMachine::stop(int code) {
  if (stopped_) return;
  stopped_ = true;
  exit_code_ = code;
}

uint64_t SnitchMachine::retired() const {
  uint64_t n = 0;
  for (const auto& h : harts_) n += h->instret;
  return n;
}

const snitch::InsnFacts& SnitchMachine::facts_of(uint64_t pc, const Insn& in) {
  FactsEntry& e = facts_[(pc >> 2) % facts_.size()];
  if (e.pc != pc || e.raw != in.raw) e = {pc, in.raw, snitch_facts(in)};
  return e.facts;
}

void SnitchMachine::trap(unsigned hart) {
  Hart& h = *harts_[hart];
  if (traps_[hart].stuck(h)) return stop(1);
  csr::take_trap(h);
  cluster_->trap(hart);
}

bool SnitchMachine::fetch_index(unsigned hart, snitch::Ssr& s) {
  const std::optional<uint32_t> at = s.index_fetch();
  if (!at) return true;
  // A whole 64-bit word of indices, on the SSR's own TCDM port as its elements are; a fault is
  // the instruction's, with the walk not moved.
  uint64_t word;
  if (!mem_load(*harts_[hart], *at, word)) return false;
  s.index_word(word);
  cluster_->stream_access(hart, *at);
  return true;
}

Status SnitchMachine::run_insn(unsigned hart, const Insn& in, const snitch::InsnFacts& facts, bool repeat) {
  Hart& h = *harts_[hart];
  const uint64_t pc = h.pc;
  // Read before the instruction runs: it may overwrite its base register. On RV32 the access
  // is at the low 32 bits of the sum, as the hart's own (xlen_addr).
  uint64_t addr = 0;
  if (in.flags() & (kLoad | kStore | kAmo)) addr = xlen_addr(h, h.x[in.rs1] + static_cast<uint64_t>(in.imm));
  // SSRs: an FP-subsystem instruction reading ft0-ft2 pops one element per register (whatever the
  // operands naming it), one writing ft0-ft2 pushes its result. Without the stream it needs, the
  // instruction is illegal (the hardware would wait forever).
  CorePort* port = hart < core_ports_.size() ? core_ports_[hart].get() : nullptr;
  unsigned pops = 0;
  int push = -1;
  if (facts.fp_subsystem && port && (h.csr.ssr & 1)) {
    // ft0-ft2 are facts registers kFp + 0..2 (kNone is above them all).
    auto stream_reg = [](uint8_t r) {
      return r >= snitch::InsnFacts::kFp && r < snitch::InsnFacts::kFp + CorePort::kStreams;
    };
    for (uint8_t r : facts.src)
      if (stream_reg(r)) pops |= 1u << (r - snitch::InsnFacts::kFp);
    if (stream_reg(facts.dst)) push = facts.dst - snitch::InsnFacts::kFp;
    for (unsigned n = 0; n < CorePort::kStreams; n++)
      if ((pops >> n & 1) && !port->stream(n).can(false)) return h.illegal(in);
    if (push >= 0 && !port->stream(push).can(true)) return h.illegal(in);
    for (unsigned n = 0; n < CorePort::kStreams; n++) {
      if (!(pops >> n & 1)) continue;
      if (!fetch_index(hart, port->stream(n))) return Status::Trap;
      const uint32_t at = port->stream(n).next();
      uint64_t v;
      if (!mem_load(h, at, v)) return Status::Trap;
      h.f[n] = v;
      cluster_->stream_access(hart, at);
    }
  }
  const uint64_t instret = h.instret;
  // An SC stores only if it holds the reservation: a failing one must not end the others'.
  const bool stores = (in.op != Op::SC_W && in.op != Op::SC_D) || h.reservation == addr;
  const Status st = interp_.execute(h, in);
  if (st == Status::Trap) return st;
  if ((in.flags() & kStore) && stores) {
    if (in.op == Op::CBO_ZERO) break_reservations(hart, addr & ~uint64_t(kCacheBlock - 1), kCacheBlock);
    else break_reservations(hart, addr, 8);
  }
  if (repeat) {
    h.instret = instret;  // the sequencer's repeats retire nothing on the core
    cluster_->sequence(hart, facts, addr);
  } else if (timed_) {
    cluster_->retire(hart, pc, facts, addr);
  } else {
    cluster_->retire_untimed(hart, facts);
  }
  if (push >= 0) {
    if (!fetch_index(hart, port->stream(push))) return Status::Trap;
    const uint32_t at = port->stream(push).next();
    if (!mem_store(h, at, h.f[push])) return Status::Trap;
    break_reservations(hart, at, 8);
    cluster_->stream_access(hart, at);
  }
  return st;
}

// brisk's SC compares the value its LR loaded, which would miss another hart's store of the same
// value: a store ends the other harts' reservations on the bytes it may have written (at most 8 from
// addr; a wider reservation set is the spec's to allow).
void SnitchMachine::break_reservations(unsigned hart, uint64_t addr, uint64_t size) {
  for (unsigned i = 0; i < harts_.size(); i++) {
    uint64_t& r = harts_[i]->reservation;
    if (i != hart && r != ~0ull && r < addr + size && addr < r + 8) r = ~0ull;
  }
}

void SnitchMachine::run_frep(unsigned hart, const SnitchCorePort::Frep& f) {
  Hart& h = *harts_[hart];
  const uint64_t body = h.pc;
  const uint32_t n = f.max_inst + 1;
  const uint64_t iters = uint64_t{f.max_iter} + 1;
  std::vector<Insn> insns(n);
  // Element (k, it): instruction k of the body in iteration it; it 0 is the core's issue.
  auto element = [&](uint32_t k, uint64_t it) {
    h.pc = body + 4 * k;
    if (it == 0) {
      const Insn* in = interp_.fetch(h);
      if (!in) return false;
      const snitch::InsnFacts& facts = facts_of(h.pc, *in);
      // The sequencer takes FP-subsystem instructions only.
      if (!facts.fp_subsystem) {
        h.illegal(*in);
        return false;
      }
      insns[k] = *in;
      return run_insn(hart, *in, facts, false) != Status::Trap;
    }
    // Staggering: the FP registers the mask names (bit 0 rd, 1 rs1, 2 rs2, 3 rs3) advance by
    // it mod (stagger_max + 1).
    Insn in = insns[k];
    const snitch::InsnFacts plain = snitch_facts(in);
    const uint8_t off = static_cast<uint8_t>(it % (f.stagger_max + 1));
    auto fp = [](uint8_t r) { return r != snitch::InsnFacts::kNone && r >= snitch::InsnFacts::kFp; };
    if ((f.stagger_mask & 1) && fp(plain.dst)) in.rd = (in.rd + off) & 31;
    if ((f.stagger_mask & 2) && fp(plain.src[0])) in.rs1 = (in.rs1 + off) & 31;
    if ((f.stagger_mask & 4) && fp(plain.src[1])) in.rs2 = (in.rs2 + off) & 31;
    if ((f.stagger_mask & 8) && fp(plain.src[2])) in.rs3 = (in.rs3 + off) & 31;
    return run_insn(hart, in, off ? snitch_facts(in) : plain, true) != Status::Trap;
  };
  // FREP.O repeats the whole body, FREP.I each instruction in turn. A trap (a fault, a non-FP
  // instruction, a stream that is not there) is taken at its body instruction; the rest is dropped.
  // max_iter is a register: a loop of 2^32 iterations must still end at --timeout.
  uint64_t done = 0;
  for (uint64_t a = 0; a < (f.outer ? iters : n); a++)
    for (uint64_t b = 0; b < (f.outer ? n : iters); b++) {
      if (!(f.outer ? element(static_cast<uint32_t>(b), a) : element(static_cast<uint32_t>(a), b))) return trap(hart);
      if (++done % (kLimitCheck << 6) == 0 && limiter_.reached(*harts_[0], retired())) return stop(limiter_.status());
    }
  h.pc = body + 4 * n;
}

void SnitchMachine::step(unsigned hart) {
  Hart& h = *harts_[hart];
  if (int irq = csr::pending_interrupt(h); irq >= 0) csr::take_trap(h, irq);
  const Insn* in = interp_.fetch(h);
  if (!in) return trap(hart);
  const uint64_t pc = h.pc;
  // Copied first: an FREP body's fetches may reuse in's decode-cache entry. A store does not
  // change its base register, so its address can be taken now.
  const uint16_t flags = in->flags();
  const uint64_t addr = (flags & kStore) ? xlen_addr(h, h.x[in->rs1] + static_cast<uint64_t>(in->imm)) : 0;
  if (run_insn(hart, *in, facts_of(pc, *in), false) == Status::Trap) return trap(hart);
  if (htif_ && (flags & kStore) && addr - tohost_ < 8) poll_htif();
  if ((flags & kStore) && addr - kClintBase < clint::kWindowSize) next_timer_ = 0;
  after_retire(hart);
}

void SnitchMachine::after_retire(unsigned hart) {
  Hart& h = *harts_[hart];
  if (hart == kDmaCore) {
    if (const auto c = dma_port_->take_copy()) cluster_->dma_copy(hart, c->size, c->config);
  } else if (const auto f = core_ports_[hart]->take_frep()) {
    run_frep(hart, *f);
    if (stopped_) return;
  }
  if (std::exchange(h.csr.barrier_access, false)) cluster_->barrier(hart);
  if (h.waiting) {
    if (wake_condition(h))
      h.waiting = false;  // wfi with an enabled interrupt pending is a nop
    else
      cluster_->wfi(hart);
  }
}

bool SnitchMachine::translated(unsigned hart) const {
  // Translated code's stores do not end other harts' reservations (break_reservations): while
  // another hart holds one, the turn runs on the interpreter.
  for (unsigned i = 0; i < harts_.size(); i++)
    if (i != hart && harts_[i]->reservation != ~0ull) return false;
  return engine_for(hart) && !(harts_[hart]->csr.ssr & 1);
}

uint64_t SnitchMachine::run_translated(unsigned hart) {
  Hart& h = *harts_[hart];
  const uint64_t n = turn_length();
  if (!n) return 0;
  if (int irq = csr::pending_interrupt(h); irq >= 0) csr::take_trap(h, irq);
  const uint64_t start = h.instret;
  h.deadline = start + n;
  translating_ = &h;
  counted_ = start;
  std::copy(std::begin(h.insn_events), std::end(h.insn_events), counted_events_.begin());
  h.insn_event_mask = classes_of(cluster_->counters().selected(hart));
  engine_for(hart)->run(h, *this);
  count_turn(h);
  translating_ = nullptr;
  h.deadline = UINT64_MAX;
  const uint64_t ran = h.instret - start;
  if (!stopped_) after_retire(hart);
  // Its stores were not looked at one by one: they may have been to tohost or the CLINT.
  if (htif_ && !stopped_) poll_htif();
  next_timer_ = 0;
  return ran;
}

void SnitchMachine::count_turn(const Hart& h) {
  snitch::BlockCounts counts;
  counts.instructions = static_cast<uint32_t>(h.instret - counted_);
  counts.events[static_cast<unsigned>(snitch::Metric::RETIRED_INSTR)] = counts.instructions;
  for (unsigned k = 0; k < std::size(kClassMetric); k++)
    counts.events[static_cast<unsigned>(kClassMetric[k])] = static_cast<uint32_t>(h.insn_events[k] - counted_events_[k]);
  cluster_->retire_block(static_cast<unsigned>(h.hartid), counts);
  counted_ = h.instret;
  std::copy(std::begin(h.insn_events), std::end(h.insn_events), counted_events_.begin());
}

bool SnitchMachine::on_trap(Hart& h) {
  trap(static_cast<unsigned>(h.hartid));
  return !stopped_;
}

void SnitchMachine::code_written(uint64_t pa, uint64_t size) {
  if (!core_engine_) return;
  for (uint64_t page = pa & ~(Bus::kPage - 1); page < pa + size; page += Bus::kPage) {
    if (!bus_.ram_ptr(page, Bus::kPage) || !bus_.has_code(page)) continue;
    core_engine_->invalidate(*harts_[0], page, page + Bus::kPage);
    dma_engine_->invalidate(*harts_[kDmaCore], page, page + Bus::kPage);
  }
}

uint64_t SnitchMachine::turn_length() const {
  uint64_t n = std::min<uint64_t>(opt_.quantum, UINT32_MAX);  // BlockCounts' width
  if (opt_.limits.max_insns) n = std::min(n, opt_.limits.max_insns - std::min(opt_.limits.max_insns, retired()));
  return n;
}

uint64_t SnitchMachine::run_quantum(unsigned hart) {
  Hart& h = *harts_[hart];
  const uint64_t n = turn_length();
  timed_ = false;
  // The turn ends early where cycle order matters again: the hart waits (barrier, wfi, the DMA
  // queue), or a counter now selects a timing metric; and, as a translated turn does, where the
  // exec loop is asked back (request_exit: --timeout's timer, or an instruction the machine acts
  // on). The run loop looks at the limits between turns.
  h.deadline = UINT64_MAX;
  uint64_t k = 0;
  for (; k < n && !stopped_ && !h.deadline_reached() && !cluster_->waiting(hart) && untimed(); k++) step(hart);
  timed_ = true;
  return k;
}

void SnitchMachine::idle() {
  const uint64_t next = clint_->poll(clock_->now());
  bool waits_for_interrupt = false;
  for (unsigned i = 0; i < kHarts; i++) waits_for_interrupt |= harts_[i]->waiting;
  if (cluster_->dma().status(snitch::Dma::kBusy)) return;  // the DMA releases a waiting hart
  if (waits_for_interrupt && next != UINT64_MAX) {
    // mtime counts cycles: on to the timer's deadline, where poll() raises MTIP.
    cluster_->advance_to(cluster_->now() + (next - clock_->now()));
    clint_->poll(clock_->now());
    return;
  }
  diag_print("brisk: every hart of the cluster waits (barrier or wfi) and nothing can wake one: deadlock at cycle {}\n",
             cluster_->now());
  stop(1);
}

SystemResult SnitchMachine::run() {
  std::vector<Hart*> harts;
  for (auto& h : harts_) harts.push_back(h.get());
  limiter_.start(harts);
  for (uint64_t steps = 0, next_check = 0; !stopped_;) {
    // MTIP in the cycle mtime reaches mtimecmp; a store to the CLINT asks for a look at once.
    if (clock_->now() >= next_timer_) next_timer_ = clint_->poll(clock_->now());
    const unsigned hart = cluster_->next_hart();
    if (hart == snitch::Cluster::kNoHart) {
      idle();
      steps++;
    } else if (untimed()) {
      const bool jit = translated(hart);
      (jit ? translated_turns_ : interpreted_turns_)++;
      steps += std::max<uint64_t>(jit ? run_translated(hart) : run_quantum(hart), 1);
      next_check = 0;  // a turn may have ended at --timeout's request: look at the limits now
    } else {
      step(hart);
      steps++;
    }
    if (steps >= next_check || (opt_.limits.max_insns && retired() >= opt_.limits.max_insns)) {
      next_check = steps + kLimitCheck;
      if (limiter_.reached(*harts_[0], retired())) stop(limiter_.status());
      if (htif_ && !stopped_) poll_htif();  // a request the store check missed (a misaligned store)
    }
  }
  // --quantum that never took effect is said, not silently ignored.
  if (opt_.quantum && !translated_turns_ && !interpreted_turns_)
    diag_print("brisk: --quantum {}: every instruction ran in cycle order, as an enabled counter selected a timing "
               "metric (CYCLE, TCDM_*, ICACHE_*) throughout\n", opt_.quantum);
  SystemResult r;
  r.exit_code = exit_code_;
  r.instret = retired();
  r.engine = fmt::format("cluster cycles {}", cluster_->now());
  if (opt_.quantum)
    r.engine += fmt::format("; quantum turns {} translated, {} interpreted", translated_turns_, interpreted_turns_);
  if (core_engine_)
    r.engine += fmt::format("; compute cores: {}; DMA core: {}", core_engine_->summary(), dma_engine_->summary());
  return r;
}

}  // namespace brisk
