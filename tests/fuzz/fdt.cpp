// The device tree (devices/fdt): a machine description from --cpu, --smp, -m and --append values
// (or a raw ISA string), built into a blob that libfdt must accept in full and read back.
#include <libfdt.h>

#include "csr/extensions.h"
#include "devices/fdt.h"
#include "runtime/error.h"
#include "tests/fuzz/fuzz.h"

using namespace brisk;

namespace {

// A string property of the node at `node`, as the writer was given it.
std::string prop_string(const std::vector<uint8_t>& blob, int node, const char* name) {
  int len = 0;
  const void* p = node < 0 ? nullptr : fdt_getprop(blob.data(), node, name, &len);
  return p && len > 0 ? std::string(static_cast<const char*>(p), len - 1) : std::string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  const uint8_t control = in.take<uint8_t>();
  MachineDesc d;
  d.num_harts = control & 1 ? in.take<uint8_t>() : 1 + in.take<uint8_t>() % 64;
  d.ram_size = in.take<uint64_t>();
  const std::string cpu = in.take_string();
  if (control & 2) {
    d.isa = cpu;  // a raw riscv,isa string
  } else {
    IsaConfig isa;
    try {
      isa.apply(cpu);
    } catch (const Error&) {
      return 0;
    }
    d.isa = isa.isa_string();
  }
  d.bootargs = in.take_string();
  if (control & 4) {
    d.initrd_start = in.take<uint64_t>();
    d.initrd_end = in.take<uint64_t>();
  }
  if (control & 8) d.mmu_type.clear();
  d.rng_seed.resize(in.take<uint8_t>() % 65);
  for (auto& b : d.rng_seed) b = in.take<uint8_t>();
  for (unsigned n = in.take<uint8_t>() % 8; n; n--) {
    const auto first = in.take<uint32_t>(), last = in.take<uint32_t>(), counters = in.take<uint32_t>();
    d.pmu.event_to_mhpmcounters.push_back({first, last, counters});
    d.pmu.event_to_mhpmevent.push_back({first, in.take<uint64_t>()});
    d.pmu.raw_event_to_mhpmcounters.push_back({in.take<uint64_t>(), in.take<uint64_t>(), counters});
  }

  std::vector<uint8_t> blob;
  try {
    blob = build_fdt(d);
  } catch (const Error&) {
    return 0;
  }
  if (fdt_check_full(blob.data(), blob.size()) != 0 || fdt_totalsize(blob.data()) != blob.size()) __builtin_trap();
  if (prop_string(blob, fdt_path_offset(blob.data(), "/chosen"), "bootargs") != d.bootargs) __builtin_trap();
  unsigned harts = 0;
  const int cpus = fdt_path_offset(blob.data(), "/cpus");
  for (int n = fdt_first_subnode(blob.data(), cpus); n >= 0; n = fdt_next_subnode(blob.data(), n))
    harts += prop_string(blob, n, "device_type") == "cpu";
  if (harts != d.num_harts) __builtin_trap();
  return 0;
}
