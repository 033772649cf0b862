// What `brisk record` writes (docs/profiling.md): the samples taken from the CTR buffer and the
// process events (COMM, MMAP2) that place them, handed to one or more sinks in order: perf.data
// (runtime/perf_data.h) and perf-script text for llvm-profgen (runtime/perf_script.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace brisk::profile {

// The privilege a sample was taken in, as perf's cpumode (PERF_RECORD_MISC_USER / _KERNEL; M-mode
// firmware is reported as the hypervisor, perf's name for "below the kernel").
enum class CpuMode : uint8_t { User, Kernel, Machine };

// One branch-stack entry, as perf_branch_entry holds it.
struct Branch {
  uint64_t from = 0, to = 0;
  bool mispredicted = false;  // ctrtarget.MISP; predicted is its inverse
  uint16_t cycles = 0;        // elapsed cycles since the previous entry (decoded CC; 0 when CCV = 0)
  uint8_t type = 0;           // the Smctr TYPE (jit/transfer.h)
};

// What was sampled, for perf_event_attr and for the text headers.
struct Event {
  std::string name;      // "instructions", "cycles", "branches", or a brisk PMU event's name
  uint32_t type = 0;     // perf_event_attr.type: PERF_TYPE_HARDWARE or PERF_TYPE_RAW
  uint64_t config = 0;   // PERF_COUNT_HW_* or the raw brisk event number (csr/pmu.h)
  uint64_t period = 0;   // -c PERIOD (0 with freq)
  uint64_t freq = 0;     // -F FREQ (0 with period)
  uint64_t branch_sample_type = 0;  // PERF_SAMPLE_BRANCH_* bits the -j filters stand for
};

struct Comm {
  uint32_t pid = 0, tid = 0;
  std::string name;  // at most 15 characters, like the kernel's comm
  uint64_t time = 0;
};

// An executable mapping of a file (PERF_RECORD_MMAP2).
struct Mapping {
  uint32_t pid = 0, tid = 0;
  uint64_t start = 0, len = 0, pgoff = 0;
  uint32_t maj = 0, min = 0;
  uint64_t ino = 0;
  uint32_t prot = 0, flags = 0;  // PROT_* and MAP_* as Linux numbers them
  std::string filename;          // the path the guest knows it by
  std::string host_path;         // where brisk read it (differs under --sysroot); for the build-id
  uint64_t time = 0;
  CpuMode mode = CpuMode::User;  // Kernel for the kernel image in system mode
};

struct Sample {
  uint64_t ip = 0;
  uint32_t pid = 0, tid = 0;
  uint64_t time = 0;    // ns since the start of the run (host monotonic clock)
  uint64_t period = 0;  // events since the previous sample
  CpuMode mode = CpuMode::User;
  std::vector<Branch> branches;  // youngest first
};

// A consumer of the recording, fed in time order. Throws brisk::Error naming its file when it
// cannot write. finish() completes the output; without it (an error, a crash of the guest run
// that unwinds) the destructor removes what was written, so no truncated file is left.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void comm(const Comm& c) = 0;
  virtual void mmap(const Mapping& m) = 0;
  virtual void sample(const Sample& s) = 0;
  virtual void finish() = 0;
};

// What the perf.data header says about the run (HEADER_CMDLINE, HEADER_NRCPUS, ...); the arch is
// always riscv64.
struct Session {
  std::vector<std::string> cmdline;  // brisk's own command line
  unsigned nr_cpus = 1;              // harts
  std::string hostname, os_release;  // the host's, as perf record writes them
};

// The writers. Each opens (creates) its output at once and throws brisk::Error naming the path
// when it cannot, before anything runs.
// perf.data, for Debian's host perf (runtime/perf_data.cpp).
std::unique_ptr<Sink> perf_data_writer(const std::string& path, const Event& ev, const Session& s);
// perf script -F ip,brstack text with PERF_RECORD_MMAP2 lines, for llvm-profgen --perfscript
// (runtime/perf_script.cpp).
std::unique_ptr<Sink> perf_script_writer(const std::string& path, const Event& ev);
// --exact: fed every recorded transfer (each sample's branches are all those since the previous
// sample, youngest first, none lost), it counts every taken branch and every fall-through range
// and writes llvm-profgen's unsymbolized profile (runtime/exact_profile.cpp).
std::unique_ptr<Sink> exact_writer(const std::string& path);

}  // namespace brisk::profile
