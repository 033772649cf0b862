#include "devices/fdt.h"
#include "csr/privileged.h"

#include <libfdt.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>

#include "devices/clint.h"
#include "devices/ete.h"
#include "devices/device.h"
#include "devices/plic.h"
#include "devices/sifive_test.h"
#include "devices/uart16550.h"
#include "runtime/error.h"

namespace brisk {

namespace {

// Room for the tree while it is written; the result is trimmed to its size.
constexpr size_t kMaxFdtSize = 1 << 20;

// libfdt's sequential-write API with errors turned into brisk::Error.
class FdtWriter {
 public:
  FdtWriter() : buf_(kMaxFdtSize) {
    check(fdt_create(buf_.data(), static_cast<int>(buf_.size())));
    check(fdt_finish_reservemap(buf_.data()));
  }
  void begin(const std::string& name) { check(fdt_begin_node(buf_.data(), name.c_str())); }
  void end() { check(fdt_end_node(buf_.data())); }
  void bytes(const char* name, const void* data, size_t len) {
    check(fdt_property(buf_.data(), name, data, static_cast<int>(len)));
  }
  void empty(const char* name) { bytes(name, nullptr, 0); }
  void str(const char* name, const std::string& v) { bytes(name, v.c_str(), v.size() + 1); }
  // A string list: each string with its NUL.
  void strs(const char* name, const std::vector<std::string>& v) {
    std::string all;
    for (const auto& s : v) all.append(s).push_back('\0');
    bytes(name, all.data(), all.size());
  }
  void cells(const char* name, const std::vector<uint32_t>& v) {
    std::vector<fdt32_t> be(v.size());
    std::transform(v.begin(), v.end(), be.begin(), [](uint32_t c) { return cpu_to_fdt32(c); });
    bytes(name, be.data(), be.size() * sizeof(fdt32_t));
  }
  void u32(const char* name, uint32_t v) { cells(name, {v}); }
  void u64(const char* name, uint64_t v) { cells(name, {hi(v), lo(v)}); }
  // reg of a node under #address-cells = #size-cells = 2.
  void reg(uint64_t base, uint64_t size) { cells("reg", {hi(base), lo(base), hi(size), lo(size)}); }

  std::vector<uint8_t> finish() {
    check(fdt_finish(buf_.data()));
    buf_.resize(fdt_totalsize(buf_.data()));
    return std::move(buf_);
  }

  static uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
  static uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }

 private:
  static void check(int err) {
    if (err < 0) throw Error("device tree: {}", fdt_strerror(err));
  }
  std::vector<uint8_t> buf_;
};

// Phandles, fixed up front so that nodes can refer to ones written later.
uint32_t cpu_phandle(unsigned hart) { return 1 + 2 * hart; }
uint32_t intc_phandle(unsigned hart) { return 2 + 2 * hart; }
uint32_t plic_phandle(const MachineDesc& d) { return 1 + 2 * d.num_harts; }
uint32_t test_phandle(const MachineDesc& d) { return 2 + 2 * d.num_harts; }

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::tolower(c); });
  return r;
}

std::string node_name(const char* name, uint64_t unit) { return fmt::format("{}@{:x}", name, unit); }

void write_cpus(FdtWriter& w, const MachineDesc& d, const std::string& isa,
                const std::vector<std::string>& exts) {
  const bool cbom = std::find(exts.begin(), exts.end(), "zicbom") != exts.end();
  const bool cboz = std::find(exts.begin(), exts.end(), "zicboz") != exts.end();
  w.begin("cpus");
  w.u32("#address-cells", 1);
  w.u32("#size-cells", 0);
  w.u32("timebase-frequency", d.timebase_frequency);
  for (unsigned h = 0; h < d.num_harts; h++) {
    w.begin(node_name("cpu", h));
    w.u32("phandle", cpu_phandle(h));
    w.str("device_type", "cpu");
    w.u32("reg", h);
    w.str("status", "okay");
    w.str("compatible", "riscv");
    w.str("riscv,isa", isa);
    w.str("riscv,isa-base", isa.substr(0, 4) + "i");
    w.strs("riscv,isa-extensions", exts);
    if (!d.mmu_type.empty()) w.str("mmu-type", d.mmu_type);
    if (cbom) w.u32("riscv,cbom-block-size", d.cbom_block_size);
    if (cboz) w.u32("riscv,cboz-block-size", d.cboz_block_size);
    w.begin("interrupt-controller");
    w.u32("#address-cells", 0);  // not needed by Linux, but dtc warns without it
    w.u32("#interrupt-cells", 1);
    w.empty("interrupt-controller");
    w.str("compatible", "riscv,cpu-intc");
    w.u32("phandle", intc_phandle(h));
    w.end();
    w.end();
  }
  w.begin("cpu-map");
  w.begin("cluster0");
  for (unsigned h = 0; h < d.num_harts; h++) {
    w.begin(fmt::format("core{}", h));
    w.u32("cpu", cpu_phandle(h));
    w.end();
  }
  w.end();
  w.end();
  w.end();
}

// <&intc_h a &intc_h b> for every hart h.
std::vector<uint32_t> per_hart_interrupts(const MachineDesc& d, uint32_t a, uint32_t b) {
  std::vector<uint32_t> v;
  for (unsigned h = 0; h < d.num_harts; h++) v.insert(v.end(), {intc_phandle(h), a, intc_phandle(h), b});
  return v;
}

void write_soc(FdtWriter& w, const MachineDesc& d) {
  w.begin("soc");
  w.u32("#address-cells", 2);
  w.u32("#size-cells", 2);
  w.str("compatible", "simple-bus");
  w.empty("ranges");

  w.begin(node_name("clint", d.clint_base));
  w.strs("compatible", {"sifive,clint0", "riscv,clint0"});
  w.reg(d.clint_base, clint::kWindowSize);
  w.cells("interrupts-extended", per_hart_interrupts(d, csr::IRQ_M_SOFT, csr::IRQ_M_TIMER));
  w.end();

  // Context 2h is hart h's M mode, 2h+1 its S mode, in the order of interrupts-extended.
  w.begin(node_name("plic", d.plic.base));
  w.u32("phandle", plic_phandle(d));
  w.strs("compatible", {"sifive,plic-1.0.0", "riscv,plic0"});
  w.reg(d.plic.base, plic::window_size(d.num_harts));
  w.u32("riscv,ndev", d.plic.ndev);
  w.cells("interrupts-extended", per_hart_interrupts(d, csr::IRQ_M_EXT, csr::IRQ_S_EXT));
  w.empty("interrupt-controller");
  w.u32("#interrupt-cells", 1);
  w.u32("#address-cells", 0);
  w.end();

  w.begin(node_name("serial", d.uart.base));
  w.str("compatible", "ns16550a");
  w.reg(d.uart.base, uart16550::kWindowSize);
  w.u32("clock-frequency", uart16550::kClockFrequency);
  w.u32("interrupts", d.uart.irq);
  w.u32("interrupt-parent", plic_phandle(d));
  w.end();

  // Each trace unit names its hart, as Arm's ETE binding (arm,embedded-trace-extension) does; its
  // registers are the memory-mapped external debug interface.
  for (unsigned h = 0; d.ete_base && h < d.num_harts; h++) {
    const uint64_t base = d.ete_base + h * ete::kWindowSize;
    w.begin(node_name("ete", base));
    w.str("compatible", "arm,embedded-trace-extension");
    w.reg(base, ete::kWindowSize);
    w.u32("cpu", cpu_phandle(h));
    w.end();
  }

  w.begin(node_name("test", d.test_base));
  w.u32("phandle", test_phandle(d));
  w.strs("compatible", {"sifive,test1", "sifive,test0", "syscon"});
  w.reg(d.test_base, sifive_test::kWindowSize);
  w.end();

  w.end();
}

void write_syscon_action(FdtWriter& w, const MachineDesc& d, const char* node, const char* compatible,
                         uint32_t value) {
  w.begin(node);
  w.str("compatible", compatible);
  w.u32("regmap", test_phandle(d));
  w.u32("offset", sifive_test::FINISHER);
  w.u32("value", value);
  w.end();
}

void write_pmu(FdtWriter& w, const MachineDesc& d) {
  const auto& p = d.pmu;
  w.begin("pmu");
  w.str("compatible", "riscv,pmu");
  if (!p.event_to_mhpmcounters.empty()) {
    std::vector<uint32_t> v;
    for (const auto& r : p.event_to_mhpmcounters) v.insert(v.end(), {r.first_event, r.last_event, r.counters});
    w.cells("riscv,event-to-mhpmcounters", v);
  }
  if (!p.event_to_mhpmevent.empty()) {
    std::vector<uint32_t> v;
    for (const auto& r : p.event_to_mhpmevent)
      v.insert(v.end(), {r.event, FdtWriter::hi(r.selector), FdtWriter::lo(r.selector)});
    w.cells("riscv,event-to-mhpmevent", v);
  }
  if (!p.raw_event_to_mhpmcounters.empty()) {
    std::vector<uint32_t> v;
    for (const auto& r : p.raw_event_to_mhpmcounters)
      v.insert(v.end(), {FdtWriter::hi(r.match), FdtWriter::lo(r.match), FdtWriter::hi(r.mask),
                         FdtWriter::lo(r.mask), r.counters});
    w.cells("riscv,raw-event-to-mhpmcounters", v);
  }
  w.end();
}

void write_chosen(FdtWriter& w, const MachineDesc& d) {
  w.begin("chosen");
  if (!d.bootargs.empty()) w.str("bootargs", d.bootargs);
  w.str("stdout-path", "/soc/" + node_name("serial", d.uart.base));
  if (d.initrd_end > d.initrd_start) {
    w.u64("linux,initrd-start", d.initrd_start);
    w.u64("linux,initrd-end", d.initrd_end);
  }
  if (!d.rng_seed.empty()) w.bytes("rng-seed", d.rng_seed.data(), d.rng_seed.size());
  w.end();
}

}  // namespace

std::vector<std::string> isa_extensions(std::string_view isa) {
  const std::string s = lower(isa);
  if (s.size() < 5 || (s.compare(0, 4, "rv32") != 0 && s.compare(0, 4, "rv64") != 0))
    throw Error("ISA string '{}' does not start with rv32 or rv64 and a base", isa);
  std::vector<std::string> exts;
  size_t pos = 4;
  for (; pos < s.size() && s[pos] != '_'; pos++) {
    if (s[pos] == 'g') throw Error("ISA string '{}': spell 'g' out as imafd_zicsr_zifencei", isa);
    exts.emplace_back(1, s[pos]);
  }
  while (pos < s.size()) {
    const size_t next = std::min(s.find('_', pos + 1), s.size());
    if (next > pos + 1) exts.push_back(s.substr(pos + 1, next - pos - 1));
    pos = next;
  }
  return exts;
}

std::vector<uint8_t> build_fdt(const MachineDesc& d) {
  if (d.num_harts == 0) throw Error("device tree: no harts");
  const std::vector<std::string> exts = isa_extensions(d.isa);
  const std::string isa = lower(d.isa);

  FdtWriter w;
  w.begin("");
  w.u32("#address-cells", 2);
  w.u32("#size-cells", 2);
  // The board's identity as QEMU's virt, which the firmware and kernel know.
  w.str("compatible", "riscv-virtio");
  w.str("model", "riscv-virtio,brisk");

  write_cpus(w, d, isa, exts);

  w.begin(node_name("memory", d.ram_base));
  w.str("device_type", "memory");
  w.reg(d.ram_base, d.ram_size);
  w.end();

  write_soc(w, d);
  write_syscon_action(w, d, "poweroff", "syscon-poweroff", sifive_test::FINISHER_PASS);
  write_syscon_action(w, d, "reboot", "syscon-reboot", sifive_test::FINISHER_RESET);
  write_pmu(w, d);
  write_chosen(w, d);
  w.end();
  return w.finish();
}

void write_fdt(const std::vector<uint8_t>& blob, const std::string& path) {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), std::fclose);
  if (!f || std::fwrite(blob.data(), 1, blob.size(), f.get()) != blob.size() || std::fflush(f.get()) != 0)
    throw Error("cannot write device tree to {}", path);
}

}  // namespace brisk
