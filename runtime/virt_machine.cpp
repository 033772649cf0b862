#include "runtime/virt_machine.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "csr/csr.h"
#include "csr/privileged.h"
#include "devices/fdt.h"
#include "runtime/diag.h"
#include "runtime/elf_file.h"
#include "runtime/error.h"
#include "runtime/host_heap.h"
#include "runtime/input_file.h"

namespace brisk {

namespace {

// QEMU virt's memory map (NOTES.md).
constexpr uint64_t kTestBase = 0x100000;
constexpr uint64_t kMromBase = 0x1000;
constexpr uint64_t kClintBase = 0x2000000;
constexpr uint64_t kPlicBase = 0xc000000;
constexpr uint64_t kUartBase = 0x10000000;
// brisk's own: the harts' ETE trace units, 4 KiB each, in a hole of QEMU virt's map (docs/ete.md).
constexpr uint64_t kEteBase = 0x11000000;
constexpr unsigned kUartIrq = 10;
constexpr unsigned kPlicSources = 95;
// Where fw_jump jumps, and where a Linux Image's text_offset puts it.
constexpr uint64_t kKernelOffset = 0x200000;
constexpr uint64_t kFdtAlign = 2u << 20;

// Instructions a hart runs before the next one gets its turn, and between device polls.
constexpr int64_t kSlice = 1 << 20;
// Devices (timers, console input) are polled at most this often, in timebase ticks: 0.5 ms.
constexpr uint64_t kPollTicks = HostClock::kTimebaseHz / 2000;
constexpr uint64_t kTicksPerUs = HostClock::kTimebaseHz / 1'000'000;

// OpenSBI's struct fw_dynamic_info (firmware/fw_dynamic.S): magic "OSBI", version 2.
constexpr uint64_t kFwDynamicMagic = 0x4942534f;
constexpr uint64_t kFwDynamicVersion = 2;
constexpr uint64_t kNextModeS = 1;

// A Linux RISC-V Image header: text_offset at 8, image_size at 16, magic2 "RSC\x05" at 0x38.
constexpr char kImageMagic2[4] = {'R', 'S', 'C', 0x05};

// A read-only window of bytes: the "MROM" where QEMU keeps fw_dynamic_info for OpenSBI.
class Rom final : public Device {
 public:
  explicit Rom(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  const char* name() const override { return "mrom"; }
  bool read(uint64_t offset, unsigned size, uint64_t& value) override {
    if (offset + size > bytes_.size()) return false;
    value = 0;
    std::memcpy(&value, bytes_.data() + offset, size);
    return true;
  }
  bool write(uint64_t, unsigned, uint64_t) override { return false; }

 private:
  std::vector<uint8_t> bytes_;
};

}  // namespace

const char* single_thread_reason(const SystemOptions& opt) {
  if (opt.recorder) return "--record";
  if (opt.ctr.dump) return "--ctr-dump";
  if (opt.engine.name == "check") return "--engine=check";
  return nullptr;
}

VirtMachine::VirtMachine(const SystemOptions& opt) : opt_(opt), bus_(kRamBase, opt.ram_size) {
  if (opt_.harts == 0 || opt_.harts > 64) throw Error("--smp must be between 1 and 64");
  if (opt_.host_threads > 1 && opt_.host_threads != opt_.harts)
    throw Error("--smp-threads must be 1 or the number of harts ({})", opt_.harts);
  if (const char* why = single_thread_reason(opt_); why && opt_.host_threads > 1)
    throw Error("{} runs the harts on one host thread: it needs --smp-threads=1", why);
  threaded_ = opt_.harts > 1 && opt_.host_threads != 1 && !single_thread_reason(opt_);
  if (opt_.ram_size < (16u << 20)) throw Error("-m {} MiB is too little memory (at least 16 MiB)", opt_.ram_size >> 20);
  IsaConfig isa;
  isa.apply(opt_.cpu);
  // RV32 M-mode addresses 4 GiB; the device tree and the images must lie below that.
  if (isa.rv32() && kRamBase + opt_.ram_size > (1ull << 32))
    throw Error("-m {} MiB: an RV32 machine's RAM must end below 4 GiB (at most {} MiB)", opt_.ram_size >> 20,
                ((1ull << 32) - kRamBase) >> 20);

  std::vector<Hart*> raw;
  for (unsigned i = 0; i < opt_.harts; i++) {
    harts_.push_back(std::make_unique<Hart>());
    Hart& h = *harts_.back();
    h.hartid = i;
    csr::set_isa(h, isa);
    h.csr.clock = &clock_;
    csr::reset(h);
    // --ctr: as if M-mode firmware had enabled U- and S-mode recording (OpenSBI 1.9 only sets
    // mstateen0.CTR and never writes mctrctl, so recording stays on into Linux); `hv` adds M.
    ctr::configure(h, opt_.ctr, ctr::CTRCTL_U | ctr::CTRCTL_S, ctr::CTRCTL_U | ctr::CTRCTL_S | ctr::CTRCTL_M);
    raw.push_back(&h);
    per_.push_back(std::make_unique<HartThread>());
  }
  mem_ = std::make_unique<SystemMemory>(bus_, raw);
  for (auto& h : harts_) h->env = mem_.get();
  if (threaded_) mem_->set_threads(&device_lock_, &group_);

  plic_ = std::make_unique<Plic>(opt_.harts, kPlicSources, *this);
  clint_ = std::make_unique<Clint>(opt_.harts, *this, clock_);
  uart_ = std::make_unique<Uart16550>(*plic_, kUartIrq, STDIN_FILENO, STDOUT_FILENO, [this] {
    diag_print("\nbrisk: terminated (Ctrl-A x)\n");
    stop(0);
  });
  test_ = std::make_unique<SifiveTest>([this](SifiveTest::Event e, uint16_t code) {
    if (e == SifiveTest::Event::Fail) {
      stop(guest_exit_status(code ? code : 1));
    } else {
      if (e == SifiveTest::Event::Reset) diag_print("brisk: the guest asked for a reset; stopping\n");
      stop(0);
    }
  });
  bus_.map(kTestBase, sifive_test::kWindowSize, test_.get());
  bus_.map(kClintBase, clint::kWindowSize, clint_.get());
  bus_.map(kPlicBase, plic::window_size(opt_.harts), plic_.get());
  bus_.map(kUartBase, uart16550::kWindowSize, uart_.get());
  for (unsigned i = 0; i < opt_.harts; i++) {
    trace_.push_back(std::make_unique<HartTrace>(*harts_[i], isa.ete, clock_, !opt_.trace.dir.empty(),
                                                 threaded_ ? &device_lock_ : nullptr, trace_views_,
                                                 [this, i] { trace_enable_changed(i); }));
    if (opt_.trace.program) trace_.back()->program(opt_.trace.config);
    bus_.map(kEteBase + i * ete::kWindowSize, ete::kWindowSize, trace_.back().get());
  }

  EngineOptions eo = opt_.engine;
  eo.deadlines = true;
  eo.concurrent_harts = threaded_;
  if (threaded_) {
    for (auto& t : per_) t->engine = make_engine(eo);
  } else {
    engine_ = make_engine(eo);
  }
  if (opt_.ctr.dump) {
    ctr_dump_ = std::make_unique<ctr::Dump>(opt_.ctr.dump_path);
    limiter_.on_sigusr1([this] { dump_ctr("on SIGUSR1"); });
  }
  mem_->set_code_hooks({[this](Hart& h, uint64_t page) { invalidate_code(h, page); },
                        [this](Hart& h, uint64_t va) { engine_for(h).flush_lookup(h, va); }});
  mem_->set_timer_changed([this](Hart& h) { update_stimer(h, clock_.now()); });
  if (opt_.dumpdtb.empty())
    load_images();
  else
    fdt_ = build_fdt(describe());
  if (opt_.recorder) start_recording();
}

void VirtMachine::start_recording() {
  profile::Recorder& rec = *opt_.recorder;
  rec.comm(0, 0, "swapper");  // what perf calls pid 0: the kernel before any process, and M mode
  if (!opt_.vmlinux.empty()) {
    const ElfFile f(opt_.vmlinux, "vmlinux");
    for (const GElf_Phdr& p : f.segments()) {
      if (p.p_type != PT_LOAD || !(p.p_flags & PF_X)) continue;
      profile::Mapping m;
      m.pid = UINT32_MAX;  // as perf records the kernel's own mappings: pid -1
      m.start = p.p_vaddr & ~(Bus::kPage - 1);
      m.len = ((p.p_vaddr + p.p_memsz + Bus::kPage - 1) & ~(Bus::kPage - 1)) - m.start;
      m.pgoff = p.p_offset & ~(Bus::kPage - 1);
      m.prot = PROT_READ | PROT_EXEC;
      m.flags = MAP_PRIVATE;
      m.filename = m.host_path = opt_.vmlinux;
      m.mode = profile::CpuMode::Kernel;
      rec.mmap(m);
    }
  }
  // The pid of a sample is its address space's: satp's PPN, the root page table, which Linux
  // gives each process (mm) for its life and its threads share. Linux's own pid would need
  // task_struct's layout. Bare satp (the boot, M mode) is pid 0.
  rec.task = [this](const Hart& h) {
    profile::Task t;
    t.mode = h.priv == Priv::U ? profile::CpuMode::User
             : h.priv == Priv::S ? profile::CpuMode::Kernel
                                 : profile::CpuMode::Machine;
    const bool paged = (h.csr.satp >> csr::SATP_MODE_SHIFT) != csr::SATP_MODE_BARE;
    t.pid = t.tid = h.priv != Priv::M && paged ? static_cast<uint32_t>(h.csr.satp & csr::SATP_PPN_MASK) : 0;
    if (t.pid && address_spaces_.insert(t.pid).second)
      opt_.recorder->comm(t.pid, t.tid, fmt::format("satp-{:x}", t.pid));
    return t;
  };
}

VirtMachine::~VirtMachine() = default;

VirtMachine::LoadedImage VirtMachine::load_elf(const std::string& path, bool kernel, uint64_t dyn_base) {
  const ElfFile f(path, kernel ? "kernel" : "firmware");
  check_xlen(f, path, harts_[0]->csr.isa.xlen);
  // A position-independent image (ET_DYN: Debian's OpenSBI fw_*.elf, which applies its own
  // relocations) is linked at 0; it goes at dyn_base, where the flat image of the same build would.
  uint64_t bias = 0;
  if (f.header().e_type == ET_DYN) {
    uint64_t lo = ~0ull;
    for (const auto& p : f.segments())
      if (p.p_type == PT_LOAD && p.p_memsz) lo = std::min(lo, p.p_paddr & ~(Bus::kPage - 1));
    if (lo != ~0ull) bias = dyn_base - lo;
  }
  const LoadedElf loaded =
      load_segments(f, bias, [this](uint64_t pa, uint64_t size) { return bus_.ram_ptr(pa, size); },
                    fmt::format("RAM ({:#x}..{:#x}; try a larger -m)", kRamBase, kRamBase + opt_.ram_size));
  if (kernel && loaded.tohost) {
    uint8_t* tohost = bus_.ram_ptr(*loaded.tohost, 8);
    if (!tohost) throw Error("{}: tohost at {:#x} is outside RAM", printable(path), *loaded.tohost);
    htif_.emplace(tohost);
  }
  return {loaded.entry, loaded.end};
}

void VirtMachine::load_flat(const std::string& path, uint64_t pa) {
  std::vector<uint8_t> data = read_input(path, "firmware", opt_.ram_size);
  uint8_t* dst = bus_.ram_ptr(pa, data.size());
  if (!dst)
    throw Error("{} ({} KiB) does not fit in RAM at {:#x}; try a larger -m", printable(path), data.size() >> 10, pa);
  std::memcpy(dst, data.data(), data.size());
}

MachineDesc VirtMachine::describe() const {
  MachineDesc d;
  d.ram_base = kRamBase;
  d.ram_size = opt_.ram_size;
  d.num_harts = opt_.harts;
  d.isa = harts_[0]->csr.isa.isa_string();
  if (harts_[0]->rv32) d.mmu_type = "riscv,sv32";
  d.bootargs = opt_.append;
  d.uart.base = kUartBase;
  d.uart.irq = kUartIrq;
  d.clint_base = kClintBase;
  d.plic.base = kPlicBase;
  d.plic.ndev = kPlicSources;
  d.test_base = kTestBase;
  d.ete_base = kEteBase;
  // The riscv,pmu node: Linux's generic events (SBI PMU event ids) onto brisk's mhpmevent selectors.
  // Cycles and instructions may also use mcycle/minstret, but the programmable counters can sample.
  constexpr uint32_t kHpm = 0xfffffff8;  // hpmcounter3..31
  struct Generic {
    uint32_t sbi_event;
    uint64_t selector;
    uint32_t counters;
  };
  static constexpr Generic kGeneric[] = {
      {0x1, pmu::kCycles, kHpm | 1},            // CPU_CYCLES
      {0x2, pmu::kInstructions, kHpm | 4},      // INSTRUCTIONS
      {0x5, pmu::kBranches, kHpm},              // BRANCH_INSTRUCTIONS
      {0x6, pmu::kBranchMisses, kHpm},          // BRANCH_MISSES
      {0x10000, pmu::kLoads, kHpm},             // L1D read accesses: every load
      {0x10002, pmu::kStores, kHpm},            // L1D write accesses: every store
      {0x10019, pmu::kTlbMisses, kHpm},         // DTLB read misses: brisk's software TLB
  };
  for (const Generic& g : kGeneric) {
    d.pmu.event_to_mhpmcounters.push_back({g.sbi_event, g.sbi_event, g.counters});
    d.pmu.event_to_mhpmevent.push_back({g.sbi_event, g.selector});
  }
  d.pmu.raw_event_to_mhpmcounters.push_back({0, ~uint64_t(pmu::EVENT_SELECTOR), kHpm});  // any selector
  return d;
}

void VirtMachine::load_images() {
  const bool bare = opt_.bios == "none";
  if (opt_.kernel.empty() && bare) throw Error("--bios none needs --kernel");
  uint64_t entry = kRamBase;
  uint64_t kernel_end = kRamBase;
  if (!bare) {
    if (ElfFile::looks_like_elf(opt_.bios, "firmware")) {
      entry = load_elf(opt_.bios, false, kRamBase).entry;
    } else {
      load_flat(opt_.bios, kRamBase);
    }
  }
  if (!opt_.kernel.empty()) {
    if (ElfFile::looks_like_elf(opt_.kernel, "kernel")) {
      const LoadedImage k = load_elf(opt_.kernel, true, bare ? kRamBase : kRamBase + kKernelOffset);
      if (bare) entry = k.entry;
      kernel_end = std::max(k.end, kRamBase + kKernelOffset);
    } else {
      // Read straight into guest RAM once the header says where: a copy through a buffer was a
      // tenth of a Linux boot.
      const InputFile img(opt_.kernel, "kernel", opt_.ram_size);
      uint64_t offset = kKernelOffset, size = img.size();
      uint8_t header[64] = {};  // a shorter file has no magic
      img.read(0, header, std::min<uint64_t>(sizeof header, img.size()));
      if (std::memcmp(header + 0x38, kImageMagic2, 4) == 0) {
        std::memcpy(&offset, header + 8, 8);
        std::memcpy(&size, header + 16, 8);  // includes the bss the kernel clears itself
      } else if (bare) {
        throw Error("{} is neither an ELF nor a RISC-V Linux Image; --bios none needs an ELF",
                    printable(opt_.kernel));
      }
      uint8_t* dst = bus_.ram_ptr(kRamBase + offset, std::max<uint64_t>(size, img.size()));
      if (!dst)
        throw Error("the kernel {} ({} MiB) does not fit in -m {} MiB", printable(opt_.kernel), size >> 20,
                    opt_.ram_size >> 20);
      img.read(0, dst, img.size());
      kernel_end = kRamBase + offset + std::max<uint64_t>(size, img.size());
      if (bare) entry = kRamBase + offset;
    }
  }

  // The device tree goes at the top of RAM with room to grow (OpenSBI edits it in place); the
  // initrd right below it, where neither firmware nor kernel will be.
  MachineDesc d = describe();
  fdt_addr_ = (kRamBase + opt_.ram_size - kFdtAlign) & ~(kFdtAlign - 1);
  if (!opt_.initrd.empty()) {
    const InputFile initrd(opt_.initrd, "initrd", opt_.ram_size);
    d.initrd_end = fdt_addr_ & ~(Bus::kPage - 1);
    d.initrd_start = (d.initrd_end - initrd.size()) & ~(Bus::kPage - 1);
    d.initrd_end = d.initrd_start + initrd.size();
    if (initrd.size() >= fdt_addr_ - kernel_end || d.initrd_start < kernel_end)
      throw Error("-m {} MiB is too little memory for the kernel and the {} MiB initrd", opt_.ram_size >> 20,
                  initrd.size() >> 20);
    initrd.read(0, bus_.ram_ptr(d.initrd_start, initrd.size()), initrd.size());  // straight into RAM
  }
  fdt_ = build_fdt(d);
  if (fdt_.size() > kFdtAlign / 2) throw Error("the device tree is too large");
  std::memcpy(bus_.ram_ptr(fdt_addr_, fdt_.size()), fdt_.data(), fdt_.size());

  std::vector<uint8_t> info(Bus::kPage, 0);
  const uint64_t fields[] = {kFwDynamicMagic, kFwDynamicVersion, kRamBase + kKernelOffset, kNextModeS, 0, ~0ull};
  std::memcpy(info.data(), fields, sizeof fields);
  mrom_ = std::make_unique<Rom>(std::move(info));
  bus_.map(kMromBase, Bus::kPage, mrom_.get());

  for (auto& h : harts_) {
    h->pc = entry;
    h->x[10] = h->hartid;  // a0: hart id
    h->x[11] = fdt_addr_;  // a1: device tree
    h->x[12] = kMromBase;  // a2: fw_dynamic_info
  }
}

void VirtMachine::invalidate_code(Hart& h, uint64_t page) {
  if (!threaded_) {
    engine_->invalidate(h, page, page + Bus::kPage);
    return;
  }
  // Every hart's engine drops its blocks of the page while the others are parked, so that none
  // runs one of them once the store that comes here is done (docs/architecture.md).
  ExclusiveGroup::Section section(&group_);
  for (size_t i = 0; i < harts_.size(); i++) per_[i]->engine->invalidate(*harts_[i], page, page + Bus::kPage);
}

namespace {
// The hart whose thread this is, with harts on host threads.
thread_local const Hart* this_thread_hart = nullptr;
}  // namespace

void VirtMachine::trace_enable_changed(unsigned hart) {
  Hart& h = *harts_[hart];
  h.request_exit();
  // Only its own thread may touch code_written (translated code reads it without a lock).
  if (!threaded_ || this_thread_hart == &h) h.code_written = true;
}

void VirtMachine::run_engine(Hart& h, Engine& engine) {
  HartThread& t = *per_[h.hartid];
  HartTrace& trace = *trace_[h.hartid];
  t.can_fast = engine.reports_retired();
  for (;;) {
    t.traced = trace.enabled();
    t.fast = t.traced && t.can_fast && trace.fast_path();
    if (t.traced) {
      trace.begin();
      if (t.fast)
        engine.run(h, *this);
      else
        trace.interpreter().run(h, *this);
      trace.end();
    } else {
      engine.run(h, *this);
    }
    if (stopped_ || !engine_changed(h)) return;
    h.request_exit();  // on_budget first, in the other engine
  }
}

bool VirtMachine::engine_changed(Hart& h) {
  const HartThread& t = *per_[h.hartid];
  HartTrace& trace = *trace_[h.hartid];
  return t.traced != trace.enabled() || (t.traced && t.fast != (t.can_fast && trace.fast_path()));
}

void VirtMachine::stop(int code) {
  bool was = false;
  if (!stopped_.compare_exchange_strong(was, true)) return;
  exit_code_ = code;  // read by run() once every hart has stopped
  for (unsigned i = 0; i < harts_.size(); i++) {
    harts_[i]->request_exit();
    if (threaded_) wake(i);
  }
}

void VirtMachine::wake(unsigned hart) {
  HartThread& t = *per_[hart];
  // Under the lock: a sleeper that has not yet seen the change is waiting by the time of notify.
  { std::lock_guard lock(t.wake_mutex); }
  t.wake.notify_one();
}

void VirtMachine::set_mip(unsigned hart, unsigned bit, bool level) {
  Hart& h = *harts_.at(hart);
  // Devices on any hart's thread drive another's lines: atomic against each other, and the
  // hart's on_budget sees the bit once its deadline is lowered (or wakes from WFI).
  if (level) {
    __atomic_fetch_or(&h.csr.mip_hw, 1ull << bit, __ATOMIC_SEQ_CST);
    h.request_exit();  // look at interrupts before the next block
    if (threaded_) wake(hart);
  } else {
    __atomic_fetch_and(&h.csr.mip_hw, ~(1ull << bit), __ATOMIC_SEQ_CST);
  }
}

void VirtMachine::update_stimer(Hart& h, uint64_t now) {
  const bool on = (h.csr.menvcfg & csr::MENVCFG_STCE) && now >= h.csr.stimecmp;
  if (on != bool(__atomic_load_n(&h.csr.mip_hw, __ATOMIC_RELAXED) & csr::MIP_STIP)) set_mip(static_cast<unsigned>(h.hartid), csr::IRQ_S_TIMER, on);
}

void VirtMachine::poll_devices(Hart& h, uint64_t now, bool idle) {
  {
    auto lock = device_lock();
    if (idle || now - last_poll_ >= kPollTicks) {
      last_poll_ = now;
      clint_->poll(now);
      uart_->poll(now);
      // Harts that take turns are all here; on host threads, each looks at its own stimecmp.
      if (!threaded_)
        for (auto& other : harts_) update_stimer(*other, now);
    }
    poll_htif();
  }
  if (threaded_) update_stimer(h, now);
}

bool VirtMachine::wake_condition(const Hart& h) const {
  return ((h.csr.mip | __atomic_load_n(&h.csr.mip_hw, __ATOMIC_RELAXED)) & h.csr.mie) != 0;
}

bool VirtMachine::poll_htif() {
  if (!htif_) return false;
  const std::optional<int> code = htif_->poll();
  if (code) stop(*code);
  return code.has_value();
}

bool VirtMachine::on_budget(Hart& h) {
  // The hart's trace unit was enabled or disabled, or the fast path no longer fits it: run_engine
  // switches engines, and this runs again there (the deadline is still reached).
  if (engine_changed(h)) return false;
  // From here on, what other threads ask for (an interrupt, an exclusive section, a stop) lowers
  // the deadline, and what they asked for before is seen below (after park_if_pending's fence):
  // nothing below raises it again.
  h.deadline = UINT64_MAX;
  if (threaded_) group_.park_if_pending();
  poll_devices(h, clock_.now());
  if (stopped_) return false;
  if (h.waiting) {
    if (threaded_ ? !sleep(h) : !wake_condition(h)) return false;
    h.waiting = false;
  }
  pmu::check_overflow(h);
  if (int irq = csr::pending_interrupt(h); irq >= 0) {
    const uint64_t epc = h.pc;
    csr::take_trap(h, irq);
    if (per_[h.hartid]->traced) trace_[h.hartid]->trap_taken(static_cast<uint64_t>(irq), true, epc);
  }
  if (!threaded_ && harts_.size() > 1 && h.instret - slice_start_ >= static_cast<uint64_t>(kSlice)) return false;
  // Run to the end of the slice, or to the instruction where a counter could overflow (zero skid),
  // or where brisk record's next sample falls due.
  h.deadline = std::min({h.deadline, h.instret + kSlice, pmu::next_overflow(h)});
  if (opt_.recorder) opt_.recorder->on_budget(h);
  if (limiter_.reached(h, retired(), threaded_ ? harts_.size() : 1)) {
    stop(limiter_.status());
    return false;
  }
  if (per_[h.hartid]->fast && h.deadline > h.instret) {
    // Within the limits above, translated code runs a silent run; an instruction that would emit
    // more than its atom is stepped exactly, and the next turn looks again (docs/ete.md, "The
    // engine rule"). Only lowered: a request_exit since stands.
    HartTrace& trace = *trace_[h.hartid];
    if (engine_changed(h)) return false;  // brisk record's CTR
    if (const uint64_t q = trace.silent_run(h.deadline - h.instret)) {
      h.deadline = std::min(h.deadline, h.instret + q);
    } else {
      const Status st = trace.interpreter().step(h);
      if (st == Status::Exit || (st == Status::Trap && !on_trap(h))) return false;
      h.deadline = std::min(h.deadline, h.instret);
    }
  }
  return true;
}

bool VirtMachine::on_trap(Hart& h) {
  // An exception that repeats at the same pc without a retired instruction in between means the
  // guest has no working handler for it: report it instead of spinning.
  if (per_[h.hartid]->traps.stuck(h)) {
    stop(1);
    return false;
  }
  const uint64_t epc = h.pc, cause = h.trap.cause;
  csr::take_trap(h);
  if (per_[h.hartid]->traced) trace_[h.hartid]->trap_taken(cause, false, epc);
  return true;
}

uint64_t VirtMachine::idle_ticks(const std::vector<Hart*>& harts) {
  // Until the next timer deadline, or a bit of console input.
  const uint64_t now = clock_.now();
  uint64_t next;
  {
    auto lock = device_lock();
    next = clint_->poll(now);
  }
  for (const Hart* h : harts)
    if ((h->csr.menvcfg & csr::MENVCFG_STCE) && h->csr.stimecmp > now) next = std::min(next, h->csr.stimecmp);
  return std::clamp<uint64_t>(next > now ? next - now : 0, kTicksPerUs, kPollTicks * 2);
}

void VirtMachine::idle() {
  // Every hart waits for an interrupt.
  std::vector<Hart*> harts;
  for (auto& h : harts_) harts.push_back(h.get());
  usleep(static_cast<useconds_t>(idle_ticks(harts) / kTicksPerUs));
  poll_devices(*harts_[0], clock_.now(), true);
}

bool VirtMachine::sleep(Hart& h) {
  HartThread& t = *per_[h.hartid];
  group_.exec_end();  // outside guest code: exclusive sections go on without this hart
  while (!stopped_ && !wake_condition(h)) {
    const std::chrono::microseconds timeout(idle_ticks({&h}) / kTicksPerUs);  // takes the device lock
    {
      std::unique_lock lock(t.wake_mutex);  // after the device lock, as set_mip takes them
      t.wake.wait_for(lock, timeout, [&] { return stopped_ || wake_condition(h); });
    }
    poll_devices(h, clock_.now(), true);
    if (limiter_.reached(h, retired(), harts_.size())) stop(limiter_.status());
  }
  group_.exec_start();
  return !stopped_;
}

uint64_t VirtMachine::retired() const {
  uint64_t n = 0;
  for (const auto& h : harts_) n += h->instret;
  return n;
}

void VirtMachine::dump_ctr(const char* when) {
  std::vector<Hart*> harts;
  for (const auto& h : harts_) harts.push_back(h.get());
  ctr_dump_->write(harts, when);
}

SystemResult VirtMachine::run() {
  if (!opt_.dumpdtb.empty()) {
    write_fdt(fdt_, opt_.dumpdtb);
    return {};
  }
  // The blocks' metadata of a boot (harts on host threads allocate from arenas of their own).
  reserve_huge_heap(256u << 20);
  std::vector<Hart*> harts;
  for (auto& h : harts_) harts.push_back(h.get());
  if (opt_.recorder) opt_.recorder->start(harts);
  limiter_.start(harts);
  if (threaded_) {
    try {
      for (auto& h : harts_) per_[h->hartid]->host = std::thread([this, &h] { run_hart(*h); });
    } catch (const std::system_error& e) {
      stop(1);  // the harts that started stop at once
      for (auto& t : per_)
        if (t->host.joinable()) t->host.join();
      throw Error("cannot start a host thread for every hart: {}", e.what());
    }
    for (auto& t : per_) t->host.join();
    if (hart_error_) std::rethrow_exception(hart_error_);
  }
  while (!threaded_ && !stopped_) {
    bool ran = false;
    for (auto& hp : harts_) {
      Hart& h = *hp;
      if (stopped_) break;
      if (h.waiting && !wake_condition(h)) continue;
      ran = true;
      // Harts take turns on this thread, so another hart's store to a reserved granule can only
      // come between turns: dropping every reservation at each turn keeps LR/SC atomic without
      // watching stores (JIT, interpreter, AMOs, MMIO). An SC then fails spuriously at most once
      // a slice, which the spec allows, and LR/SC loops still make progress.
      if (harts_.size() > 1)
        for (auto& other : harts_) other->reservation = ~0ull;
      slice_start_ = h.instret;
      h.request_exit();  // on_budget runs first: it delivers what is pending and sets the slice
      run_engine(h, *engine_);
    }
    if (!ran && !stopped_) {
      idle();
      if (limiter_.reached(*harts_[0], retired())) stop(limiter_.status());
    }
  }
  if (ctr_dump_) dump_ctr("at exit");
  if (!opt_.trace.dir.empty()) {
    std::vector<ete::SnapshotSource> sources;
    for (auto& t : trace_) sources.push_back(t->snapshot());
    ete::write_snapshot(opt_.trace.dir, sources);
  }
  if (opt_.recorder) opt_.recorder->finish(harts);
  SystemResult r;
  r.exit_code = exit_code_;
  r.instret = retired();
  if (threaded_) {
    for (auto& h : harts_)
      if (std::string s = per_[h->hartid]->engine->summary(); !s.empty())
        r.engine += fmt::format("{}hart {}: {}", r.engine.empty() ? "" : "; ", h->hartid, s);
  } else {
    r.engine = engine_->summary();
  }
  return r;
}

void VirtMachine::run_hart(Hart& h) {
  HartThread& t = *per_[h.hartid];
  t.member.hart = &h;
  this_thread_hart = &h;
  group_.join(t.member);
  try {
    h.request_exit();  // on_budget runs first: it delivers what is pending and sets the deadline
    run_engine(h, *t.engine);
  } catch (...) {
    {
      auto lock = device_lock();
      if (!hart_error_) hart_error_ = std::current_exception();
    }
    stop(1);
  }
  group_.leave();
}

}  // namespace brisk
