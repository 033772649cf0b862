#include "runtime/snitch_machine.h"

#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "csr/csr.h"
#include "csr/csr_numbers.h"
#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/input_file.h"
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
  // [offset, offset + size) of the window, or nullptr.
  uint8_t* at(uint64_t offset, uint64_t size) {
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

// What the DMA moves bytes through: the TCDM and DRAM, by physical address.
class SnitchMachine::ClusterMemory final : public snitch::HostMemory {
 public:
  ClusterMemory(Bus& bus, Sram& tcdm) : bus_(bus), tcdm_(tcdm) {}
  uint8_t* at(uint64_t addr, uint64_t size) override {
    if (uint8_t* p = bus_.ram_ptr(addr, size)) return p;
    return tcdm_.at(addr - snitch::kTcdmBase, size);
  }

 private:
  Bus& bus_;
  Sram& tcdm_;
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
  if (opt_.engine.name != "interp")
    throw Error("-M snitch runs its harts in cycle order on the interpreter: --engine={} is not available",
                opt_.engine.name);
  IsaConfig isa;
  isa.apply(opt_.cpu);
  isa.snitch_cluster = true;

  tcdm_ = std::make_unique<Sram>();
  zero_ = std::make_unique<ZeroMemory>();
  cluster_memory_ = std::make_unique<ClusterMemory>(bus_, *tcdm_);
  cluster_ = std::make_unique<snitch::Cluster>(kHarts, *cluster_memory_);
  clock_ = std::make_unique<CycleClock>(*cluster_);
  dma_port_ = std::make_unique<DmaPort>(cluster_->dma());
  IsaConfig dma_isa = isa;
  dma_isa.on.set(static_cast<size_t>(Ext::Xdma));
  std::vector<Hart*> raw;
  for (unsigned i = 0; i < kHarts; i++) {
    harts_.push_back(std::make_unique<Hart>());
    Hart& h = *harts_.back();
    h.hartid = i;
    csr::set_isa(h, i == kDmaCore ? dma_isa : isa);
    if (i == kDmaCore) h.xdma = dma_port_.get();
    h.csr.clock = clock_.get();
    csr::reset(h);
    raw.push_back(&h);
  }
  traps_.resize(kHarts);
  mem_ = std::make_unique<SystemMemory>(bus_, raw);
  for (auto& h : harts_) h->env = mem_.get();
  clint_ = std::make_unique<Clint>(kHarts, *this, *clock_);
  periph_ = std::make_unique<SnitchPeriph>(cluster_->counters(), cluster_->icache(), *this);
  bus_.map(snitch::kTcdmBase, snitch::kTcdmSize, tcdm_.get());
  bus_.map(kPeriphBase, snitch_periph::kWindowSize, periph_.get());
  bus_.map(kZeroMemBase, kZeroMemSize, zero_.get());
  bus_.map(kClintBase, clint::kWindowSize, clint_.get());
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

void SnitchMachine::step(unsigned hart) {
  Hart& h = *harts_[hart];
  if (int irq = csr::pending_interrupt(h); irq >= 0) csr::take_trap(h, irq);
  const uint64_t pc = h.pc;
  const Insn* in = interp_.fetch(h);
  Status st = Status::Trap;
  snitch::InsnFacts facts;
  uint64_t addr = 0;
  if (in) {
    facts = facts_of(pc, *in);
    // Read before the instruction runs: it may overwrite its base register. On RV32 the access
    // is at the low 32 bits of the sum, as the hart's own (xlen_addr).
    if (in->flags() & (kLoad | kStore | kAmo)) addr = xlen_addr(h, h.x[in->rs1] + static_cast<uint64_t>(in->imm));
    st = interp_.execute(h, *in);
  }
  if (st == Status::Trap) {
    if (traps_[hart].stuck(h)) return stop(1);
    csr::take_trap(h);
    cluster_->trap(hart);
    return;
  }
  cluster_->retire(hart, pc, facts, addr);
  if (hart == kDmaCore)
    if (const auto c = dma_port_->take_copy()) cluster_->dma_copy(hart, c->size, c->config);
  const uint16_t flags = in->flags();
  if (htif_ && (flags & kStore) && addr - tohost_ < 8) poll_htif();
  if ((flags & kStore) && addr - kClintBase < clint::kWindowSize) next_timer_ = 0;
  if ((flags & kCsr) && static_cast<uint16_t>(in->imm) == csr::CSR_BARRIER) cluster_->barrier(hart);
  if (h.waiting) {
    if (wake_condition(h))
      h.waiting = false;  // wfi with an enabled interrupt pending is a nop
    else
      cluster_->wfi(hart);
  }
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
  for (uint64_t steps = 0; !stopped_; steps++) {
    // MTIP in the cycle mtime reaches mtimecmp; a store to the CLINT asks for a look at once.
    if (clock_->now() >= next_timer_) next_timer_ = clint_->poll(clock_->now());
    const unsigned hart = cluster_->next_hart();
    if (hart == snitch::Cluster::kNoHart) {
      idle();
    } else {
      step(hart);
    }
    if (steps % kLimitCheck == 0 || (opt_.limits.max_insns && retired() >= opt_.limits.max_insns)) {
      if (limiter_.reached(*harts_[0], retired())) stop(limiter_.status());
      if (htif_ && !stopped_) poll_htif();  // a request the store check missed (a misaligned store)
    }
  }
  SystemResult r;
  r.exit_code = exit_code_;
  r.instret = retired();
  r.engine = fmt::format("cluster cycles {}", cluster_->now());
  return r;
}

}  // namespace brisk
