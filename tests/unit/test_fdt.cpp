// The virt machine's device tree (devices/fdt.cpp), parsed back with libfdt. The expected shape is
// QEMU virt's (qemu-system-riscv64 -M virt -machine dumpdtb=...).

#include <gtest/gtest.h>
#include <libfdt.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "devices/fdt.h"
#include "runtime/error.h"

namespace brisk {
namespace {

MachineDesc example() {
  MachineDesc d;
  d.ram_size = 256ull << 20;
  d.num_harts = 2;
  d.isa = "rv64imafdc_Zicsr_zifencei_zicbom_sscofpmf";
  d.bootargs = "console=ttyS0 earlycon=sbi";
  d.initrd_start = 0x88200000;
  d.initrd_end = 0x88300000;
  d.rng_seed = {1, 2, 3, 4, 5, 6, 7, 8};
  d.pmu.event_to_mhpmcounters = {{1, 1, 0x7fff9}, {2, 2, 0x7fffc}, {0x10019, 0x10021, 0x7fff8}};
  d.pmu.event_to_mhpmevent = {{1, 0x1}, {2, 0x100000002ull}};
  d.pmu.raw_event_to_mhpmcounters = {{0x20000000000ull, 0xffffffffffff0000ull, 0x7fff8}};
  return d;
}

class FdtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    blob = build_fdt(example());
    ASSERT_EQ(fdt_check_header(blob.data()), 0);
    ASSERT_EQ(fdt_totalsize(blob.data()), blob.size());
  }
  int node(const char* path) const {
    int off = fdt_path_offset(blob.data(), path);
    EXPECT_GE(off, 0) << path;
    return off;
  }
  bool has(const char* path, const char* prop) const {
    return fdt_getprop(blob.data(), node(path), prop, nullptr) != nullptr;
  }
  std::vector<uint32_t> cells(const char* path, const char* prop) const {
    int len = 0;
    auto* p = static_cast<const fdt32_t*>(fdt_getprop(blob.data(), node(path), prop, &len));
    EXPECT_NE(p, nullptr) << path << " " << prop;
    std::vector<uint32_t> v;
    for (int i = 0; p && i < len / 4; i++) v.push_back(fdt32_to_cpu(p[i]));
    return v;
  }
  // A string or string-list property, one element per string.
  std::vector<std::string> strs(const char* path, const char* prop) const {
    int len = 0;
    auto* p = static_cast<const char*>(fdt_getprop(blob.data(), node(path), prop, &len));
    EXPECT_NE(p, nullptr) << path << " " << prop;
    std::vector<std::string> v;
    for (int i = 0; p && i < len; i += v.back().size() + 1) v.emplace_back(p + i);
    return v;
  }
  uint32_t phandle(const char* path) const { return fdt_get_phandle(blob.data(), node(path)); }

  std::vector<uint8_t> blob;
};

using S = std::vector<std::string>;
using C = std::vector<uint32_t>;

TEST_F(FdtTest, Root) {
  EXPECT_EQ(cells("/", "#address-cells"), C{2});
  EXPECT_EQ(cells("/", "#size-cells"), C{2});
  EXPECT_EQ(strs("/", "compatible"), S{"riscv-virtio"});
}

TEST_F(FdtTest, Cpus) {
  EXPECT_EQ(cells("/cpus", "timebase-frequency"), C{10'000'000});
  EXPECT_EQ(cells("/cpus", "#address-cells"), C{1});
  EXPECT_EQ(cells("/cpus", "#size-cells"), C{0});
  EXPECT_EQ(cells("/cpus/cpu@1", "reg"), C{1});
  EXPECT_EQ(strs("/cpus/cpu@1", "device_type"), S{"cpu"});
  EXPECT_EQ(strs("/cpus/cpu@1", "status"), S{"okay"});
  EXPECT_EQ(strs("/cpus/cpu@1", "compatible"), S{"riscv"});
  EXPECT_EQ(strs("/cpus/cpu@0", "riscv,isa"), S{"rv64imafdc_zicsr_zifencei_zicbom_sscofpmf"});
  EXPECT_EQ(strs("/cpus/cpu@0", "riscv,isa-base"), S{"rv64i"});
  EXPECT_EQ(strs("/cpus/cpu@0", "riscv,isa-extensions"),
            (S{"i", "m", "a", "f", "d", "c", "zicsr", "zifencei", "zicbom", "sscofpmf"}));
  EXPECT_EQ(strs("/cpus/cpu@0", "mmu-type"), S{"riscv,sv57"});
  EXPECT_EQ(cells("/cpus/cpu@0", "riscv,cbom-block-size"), C{64});
  EXPECT_FALSE(has("/cpus/cpu@0", "riscv,cboz-block-size"));  // no zicboz
  EXPECT_EQ(strs("/cpus/cpu@1/interrupt-controller", "compatible"), S{"riscv,cpu-intc"});
  EXPECT_EQ(cells("/cpus/cpu@1/interrupt-controller", "#interrupt-cells"), C{1});
  EXPECT_TRUE(has("/cpus/cpu@1/interrupt-controller", "interrupt-controller"));
  EXPECT_EQ(cells("/cpus/cpu-map/cluster0/core0", "cpu"), C{phandle("/cpus/cpu@0")});
  EXPECT_EQ(cells("/cpus/cpu-map/cluster0/core1", "cpu"), C{phandle("/cpus/cpu@1")});
  EXPECT_LT(fdt_path_offset(blob.data(), "/cpus/cpu@2"), 0);
}

TEST_F(FdtTest, Memory) {
  EXPECT_EQ(strs("/memory@80000000", "device_type"), S{"memory"});
  EXPECT_EQ(cells("/memory@80000000", "reg"), (C{0, 0x80000000, 0, 0x10000000}));
}

TEST_F(FdtTest, ClintAndPlicInterruptsExtended) {
  const uint32_t i0 = phandle("/cpus/cpu@0/interrupt-controller");
  const uint32_t i1 = phandle("/cpus/cpu@1/interrupt-controller");
  EXPECT_NE(i0, 0u);
  EXPECT_NE(i1, 0u);
  EXPECT_NE(i0, i1);
  EXPECT_EQ(strs("/soc", "compatible"), S{"simple-bus"});
  EXPECT_TRUE(has("/soc", "ranges"));
  EXPECT_EQ(strs("/soc/clint@2000000", "compatible"), (S{"sifive,clint0", "riscv,clint0"}));
  EXPECT_EQ(cells("/soc/clint@2000000", "reg"), (C{0, 0x2000000, 0, 0x10000}));
  EXPECT_EQ(cells("/soc/clint@2000000", "interrupts-extended"), (C{i0, 3, i0, 7, i1, 3, i1, 7}));
  EXPECT_EQ(strs("/soc/plic@c000000", "compatible"), (S{"sifive,plic-1.0.0", "riscv,plic0"}));
  EXPECT_EQ(cells("/soc/plic@c000000", "reg"), (C{0, 0xc000000, 0, 0x204000}));
  EXPECT_EQ(cells("/soc/plic@c000000", "interrupts-extended"), (C{i0, 11, i0, 9, i1, 11, i1, 9}));
  EXPECT_EQ(cells("/soc/plic@c000000", "riscv,ndev"), C{95});
  EXPECT_EQ(cells("/soc/plic@c000000", "#interrupt-cells"), C{1});
  EXPECT_EQ(cells("/soc/plic@c000000", "#address-cells"), C{0});
  EXPECT_TRUE(has("/soc/plic@c000000", "interrupt-controller"));
}

TEST_F(FdtTest, SerialTestAndSyscon) {
  EXPECT_EQ(strs("/soc/serial@10000000", "compatible"), S{"ns16550a"});
  EXPECT_EQ(cells("/soc/serial@10000000", "reg"), (C{0, 0x10000000, 0, 0x100}));
  EXPECT_EQ(cells("/soc/serial@10000000", "clock-frequency"), C{3686400});
  EXPECT_EQ(cells("/soc/serial@10000000", "interrupts"), C{10});
  EXPECT_EQ(cells("/soc/serial@10000000", "interrupt-parent"), C{phandle("/soc/plic@c000000")});
  EXPECT_EQ(strs("/soc/test@100000", "compatible"), (S{"sifive,test1", "sifive,test0", "syscon"}));
  EXPECT_EQ(cells("/soc/test@100000", "reg"), (C{0, 0x100000, 0, 0x1000}));
  const uint32_t test = phandle("/soc/test@100000");
  EXPECT_NE(test, 0u);
  EXPECT_EQ(strs("/poweroff", "compatible"), S{"syscon-poweroff"});
  EXPECT_EQ(cells("/poweroff", "regmap"), C{test});
  EXPECT_EQ(cells("/poweroff", "offset"), C{0});
  EXPECT_EQ(cells("/poweroff", "value"), C{0x5555});
  EXPECT_EQ(strs("/reboot", "compatible"), S{"syscon-reboot"});
  EXPECT_EQ(cells("/reboot", "regmap"), C{test});
  EXPECT_EQ(cells("/reboot", "value"), C{0x7777});
}

TEST(Fdt, EteTraceUnitPerHart) {
  MachineDesc d = example();
  d.ete_base = 0x11000000;
  const std::vector<uint8_t> blob = build_fdt(d);
  for (unsigned h = 0; h < 2; h++) {
    const std::string path = "/soc/ete@" + std::to_string(11000 + h) + "000";
    const int off = fdt_path_offset(blob.data(), path.c_str());
    ASSERT_GE(off, 0) << path;
    EXPECT_STREQ(static_cast<const char*>(fdt_getprop(blob.data(), off, "compatible", nullptr)),
                 "arm,embedded-trace-extension");
    int len = 0;
    auto* reg = static_cast<const fdt32_t*>(fdt_getprop(blob.data(), off, "reg", &len));
    ASSERT_EQ(len, 16);
    EXPECT_EQ(fdt32_to_cpu(reg[1]), 0x11000000u + 0x1000 * h);
    EXPECT_EQ(fdt32_to_cpu(reg[3]), 0x1000u);
    auto* cpu = static_cast<const fdt32_t*>(fdt_getprop(blob.data(), off, "cpu", nullptr));
    const int cpu_node = fdt_path_offset(blob.data(), ("/cpus/cpu@" + std::to_string(h)).c_str());
    ASSERT_NE(cpu, nullptr);
    EXPECT_EQ(fdt32_to_cpu(*cpu), fdt_get_phandle(blob.data(), cpu_node));
  }
  // Without a base, no trace units.
  const std::vector<uint8_t> none = build_fdt(example());
  EXPECT_LT(fdt_path_offset(none.data(), "/soc/ete@11000000"), 0);
}

TEST_F(FdtTest, Chosen) {
  EXPECT_EQ(strs("/chosen", "bootargs"), S{"console=ttyS0 earlycon=sbi"});
  EXPECT_EQ(strs("/chosen", "stdout-path"), S{"/soc/serial@10000000"});
  EXPECT_EQ(cells("/chosen", "linux,initrd-start"), (C{0, 0x88200000}));
  EXPECT_EQ(cells("/chosen", "linux,initrd-end"), (C{0, 0x88300000}));
  EXPECT_EQ(cells("/chosen", "rng-seed"), (C{0x01020304, 0x05060708}));
}

TEST_F(FdtTest, Pmu) {
  EXPECT_EQ(strs("/pmu", "compatible"), S{"riscv,pmu"});
  EXPECT_EQ(cells("/pmu", "riscv,event-to-mhpmcounters"),
            (C{1, 1, 0x7fff9, 2, 2, 0x7fffc, 0x10019, 0x10021, 0x7fff8}));
  EXPECT_EQ(cells("/pmu", "riscv,event-to-mhpmevent"), (C{1, 0, 1, 2, 1, 2}));
  EXPECT_EQ(cells("/pmu", "riscv,raw-event-to-mhpmcounters"), (C{0x200, 0, 0xffffffff, 0xffff0000, 0x7fff8}));
}

TEST(Fdt, OptionalPropertiesAreLeftOut) {
  MachineDesc d;
  d.ram_size = 1 << 30;
  d.isa = "rv64imac_zicboz";
  d.mmu_type.clear();
  auto blob = build_fdt(d);
  int cpu = fdt_path_offset(blob.data(), "/cpus/cpu@0");
  int chosen = fdt_path_offset(blob.data(), "/chosen");
  int pmu = fdt_path_offset(blob.data(), "/pmu");
  ASSERT_GE(cpu, 0);
  ASSERT_GE(chosen, 0);
  ASSERT_GE(pmu, 0);
  EXPECT_EQ(fdt_getprop(blob.data(), cpu, "mmu-type", nullptr), nullptr);
  EXPECT_EQ(fdt_getprop(blob.data(), cpu, "riscv,cbom-block-size", nullptr), nullptr);
  EXPECT_NE(fdt_getprop(blob.data(), cpu, "riscv,cboz-block-size", nullptr), nullptr);
  for (const char* p : {"bootargs", "linux,initrd-start", "linux,initrd-end", "rng-seed"})
    EXPECT_EQ(fdt_getprop(blob.data(), chosen, p, nullptr), nullptr) << p;
  EXPECT_NE(fdt_getprop(blob.data(), chosen, "stdout-path", nullptr), nullptr);
  for (const char* p : {"riscv,event-to-mhpmcounters", "riscv,event-to-mhpmevent", "riscv,raw-event-to-mhpmcounters"})
    EXPECT_EQ(fdt_getprop(blob.data(), pmu, p, nullptr), nullptr) << p;
  EXPECT_GE(fdt_path_offset(blob.data(), "/cpus/cpu-map/cluster0/core0"), 0);
}

TEST(Fdt, IsaExtensions) {
  EXPECT_EQ(isa_extensions("RV32IMAC_Zicsr__Zba"), (S{"i", "m", "a", "c", "zicsr", "zba"}));
  EXPECT_EQ(isa_extensions("rv64i"), S{"i"});
  EXPECT_THROW(isa_extensions("rv64gc"), Error);
  EXPECT_THROW(isa_extensions("rv128i"), Error);
  EXPECT_THROW(isa_extensions("rv64"), Error);
  MachineDesc d;
  d.isa = "x86";
  EXPECT_THROW(build_fdt(d), Error);
  d.isa = "rv64i";
  d.num_harts = 0;
  EXPECT_THROW(build_fdt(d), Error);
}

TEST(Fdt, WriteToFile) {
  MachineDesc d;
  d.ram_size = 1 << 30;
  d.isa = "rv64ima";
  const auto blob = build_fdt(d);
  const std::string path = ::testing::TempDir() + "brisk_test_fdt.dtb";
  write_fdt(blob, path);
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> back((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(back, blob);
  std::remove(path.c_str());
  EXPECT_THROW(write_fdt(blob, "/nonexistent-dir/x.dtb"), Error);
}

}  // namespace
}  // namespace brisk
