// The flattened device tree of the virt machine, in the shape QEMU's virt gives it, for OpenSBI
// (generic platform) and Linux.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace brisk {

// One row of riscv,event-to-mhpmcounters: events first..last may count on the mhpmcounters in the bitmap.
struct PmuEventCounters {
  uint32_t first_event, last_event, counters;
};
// One row of riscv,event-to-mhpmevent: the mhpmevent value that selects `event`.
struct PmuEventSelector {
  uint32_t event;
  uint64_t selector;
};
// One row of riscv,raw-event-to-mhpmcounters: raw events e with (e & mask) == match may count on `counters`.
struct PmuRawEventCounters {
  uint64_t match, mask;
  uint32_t counters;
};

// What the device tree describes. Defaults are QEMU virt's memory map; the machine maps its devices
// at these same addresses.
struct MachineDesc {
  uint64_t ram_base = 0x80000000;
  uint64_t ram_size = 0;
  unsigned num_harts = 1;
  // riscv,isa, e.g. "rv64imafdc_zicsr_zifencei_sscofpmf": riscv,isa-base and riscv,isa-extensions are
  // derived from it (see isa_extensions()).
  std::string isa;
  std::string mmu_type = "riscv,sv57";  // empty: no mmu-type property
  uint32_t timebase_frequency = 10'000'000;
  // Emitted when zicbom / zicboz is in the ISA.
  uint32_t cbom_block_size = 64;
  uint32_t cboz_block_size = 64;

  std::string bootargs;
  uint64_t initrd_start = 0, initrd_end = 0;  // no initrd when end <= start
  std::vector<uint8_t> rng_seed;              // empty: no rng-seed

  struct {
    uint64_t base = 0x10000000;
    uint32_t irq = 10;  // PLIC source
  } uart;
  uint64_t clint_base = 0x2000000;
  struct {
    uint64_t base = 0xc000000;
    uint32_t ndev = 95;  // sources 1..ndev
  } plic;
  uint64_t test_base = 0x100000;
  // Hart h's ETE trace unit (devices/ete.h) at ete_base + h * 4 KiB; 0: none.
  uint64_t ete_base = 0;

  struct {
    std::vector<PmuEventCounters> event_to_mhpmcounters;
    std::vector<PmuEventSelector> event_to_mhpmevent;
    std::vector<PmuRawEventCounters> raw_event_to_mhpmcounters;
  } pmu;
};

// The extension names of an ISA string in riscv,isa-extensions form: "rv64imac_zicsr" ->
// {"i", "m", "a", "c", "zicsr"}. Lower case. Throws brisk::Error if it does not start with rv32/rv64
// or uses "g" (spell out imafd_zicsr_zifencei).
std::vector<std::string> isa_extensions(std::string_view isa);

// The blob, exactly as large as its content: whoever loads it leaves room after it for OpenSBI's
// fix-ups. Throws brisk::Error on a bad description.
std::vector<uint8_t> build_fdt(const MachineDesc& desc);

// For --dumpdtb. Throws brisk::Error if the file cannot be written.
void write_fdt(const std::vector<uint8_t>& blob, const std::string& path);

}  // namespace brisk
