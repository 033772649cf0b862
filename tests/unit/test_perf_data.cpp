// runtime/perf_data.cpp: brisk record's perf.data, read back byte by byte here and by the host's
// perf (linux-perf, installed by scripts/setup), with tests/guest/sort as the mapped program.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "jit/transfer.h"
#include "runtime/elf_file.h"
#include "runtime/error.h"
#include "runtime/profile.h"
#include "tests/unit/temp_dir.h"

namespace {

using namespace brisk::profile;
using brisk::TransferType;

constexpr uint32_t kPid = 4242, kTid2 = 4243;

// The file's bytes, with little-endian readers at offsets.
struct File {
  std::vector<uint8_t> b;
  template <typename T>
  T at(uint64_t off) const {
    T v{};
    EXPECT_LE(off + sizeof(T), b.size()) << "read past the end of the file at " << off;
    if (off + sizeof(T) <= b.size()) std::memcpy(&v, b.data() + off, sizeof(T));
    return v;
  }
  std::string str(uint64_t off) const { return std::string(reinterpret_cast<const char*>(b.data() + off)); }
};

File read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return File{std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {})};
}

// What a shell command prints (stdout and stderr, so that a warning shows); it must exit 0.
std::string run(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; p && (n = fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
  const int status = p ? pclose(p) : -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd << " failed:\n" << out;
  return out;
}

std::string hex(const std::vector<uint8_t>& id) {
  std::string s;
  for (uint8_t b : id) s += fmt::format("{:02x}", b);
  return s;
}

class PerfDataTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    path_ = dir_ + "/perf.data";
    brisk::ElfFile elf(BRISK_SORT_GUEST, "program");
    for (const char* name : {"main", "merge_sort.constprop.0", "queens.constprop.0", "fib", "ack"}) {
      auto v = elf.symbol(name);
      ASSERT_TRUE(v) << BRISK_SORT_GUEST << " has no symbol " << name;
      sym_[name] = *v;
    }
    build_id_ = elf.build_id().value_or(std::vector<uint8_t>{});
    ASSERT_EQ(build_id_.size(), 20u) << BRISK_SORT_GUEST << " has no SHA-1 build-id";
    // perf reads an ELF's build-id itself.
    ASSERT_EQ(run(std::string("perf buildid-list -i ") + BRISK_SORT_GUEST), hex(build_id_) + "\n");
  }

  Event event() const {
    Event ev;
    ev.name = "instructions:u";
    ev.type = 0;    // PERF_TYPE_HARDWARE
    ev.config = 1;  // PERF_COUNT_HW_INSTRUCTIONS
    ev.period = 100000;
    return ev;
  }
  Session session() const {
    Session s;
    s.cmdline = {"brisk", "record", "-o", path_, "--", BRISK_SORT_GUEST};
    s.nr_cpus = 1;
    s.hostname = "brisk-host";
    s.os_release = "6.1.0-test";
    return s;
  }

  // A run of tests/guest/sort with two threads: the samples sit in its functions and their
  // branch stacks go between them.
  void record(Sink& sink) {
    sink.comm({kPid, kPid, "sort", 1000});
    Mapping m;
    m.pid = m.tid = kPid;
    m.start = 0x10000;
    m.len = 0x61004;
    m.maj = 8;
    m.min = 1;
    m.ino = 1234;
    m.prot = 5;   // PROT_READ | PROT_EXEC
    m.flags = 2;  // MAP_PRIVATE
    m.filename = "/usr/bin/sort";  // the guest's name for it, as under --sysroot
    m.host_path = BRISK_SORT_GUEST;
    m.time = 1000;
    sink.mmap(m);
    sink.comm({kPid, kTid2, "sort-worker", 1500});
    sink.sample(first_sample());
    Sample s;
    s.pid = kPid;
    s.tid = kTid2;
    s.time = 3000;
    s.period = 100000;
    s.ip = sym("fib") + 2;
    s.branches = {{sym("ack") + 8, sym("fib"), false, 65535, uint8_t(TransferType::Return)}};
    sink.sample(s);
  }
  Sample first_sample() const {
    Sample s;
    s.pid = s.tid = kPid;
    s.time = 2000;
    s.period = 100000;
    s.ip = sym("merge_sort.constprop.0") + 4;
    s.branches = {
        {sym("queens.constprop.0") + 0x10, sym("merge_sort.constprop.0"), true, 7, uint8_t(TransferType::DirectCall)},
        {sym("main") + 0x20, sym("queens.constprop.0"), false, 3, uint8_t(TransferType::DirectCall)},
    };
    return s;
  }
  void write_recording() {
    auto sink = perf_data_writer(path_, event(), session());
    record(*sink);
    sink->finish();
  }
  std::string perf(const std::string& args) { return run("perf " + args + " -i " + path_); }

  uint64_t sym(const std::string& name) const { return sym_.at(name); }

  std::string path_;
  std::map<std::string, uint64_t> sym_;
  std::vector<uint8_t> build_id_;
};

// The words of each line, one space apart: perf pads its columns.
std::string squeeze(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty() && out.back() != '\n' && c != '\n') out += ' ';
    space = false;
    out += c;
  }
  return out;
}

TEST_F(PerfDataTest, PerfScriptShowsTheSamplesWithTheirBranchStacks) {
  write_recording();
  EXPECT_EQ(squeeze(perf("script -F ip,sym,brstack")),
            fmt::format("{:x} merge_sort.constprop.0 {:#x}/{:#x}/M/-/-/7/CALL {:#x}/{:#x}/P/-/-/3/CALL\n"
                        "{:x} fib {:#x}/{:#x}/P/-/-/65535/RET\n",
                        sym("merge_sort.constprop.0") + 4, sym("queens.constprop.0") + 0x10,
                        sym("merge_sort.constprop.0"), sym("main") + 0x20, sym("queens.constprop.0"),
                        sym("fib") + 2, sym("ack") + 8, sym("fib")));
  // The default fields: comm, tid, time (s), period and event, and the binary.
  EXPECT_EQ(squeeze(perf("script -F comm,tid,time,period,event,ip,sym,dso")),
            fmt::format("sort 4242 0.000002: 100000 instructions:u: {:x} merge_sort.constprop.0 ({})\n"
                        "sort-worker 4243 0.000003: 100000 instructions:u: {:x} fib ({})\n",
                        sym("merge_sort.constprop.0") + 4, BRISK_SORT_GUEST, sym("fib") + 2, BRISK_SORT_GUEST));
}

TEST_F(PerfDataTest, PerfReportFollowsTheBranchHistory) {
  write_recording();
  // Without the source lines perf guesses from the symbol table (sort.c:0, ??:0).
  const std::string out =
      std::regex_replace(squeeze(perf("report --branch-history --stdio --no-children")), std::regex(" [^ ]+:[0-9]+ "), " ");
  EXPECT_EQ(out.find("Warning"), std::string::npos) << out;
  EXPECT_NE(out.find("# Samples: 2 of event 'instructions:u'\n"), std::string::npos) << out;
  EXPECT_NE(out.find("# Event count (approx.): 200000\n"), std::string::npos) << out;
  // Each sample's chain from its newest branch, each branch as its target then its source; the
  // mispredicted call is predicted 0% of the times it was taken.
  EXPECT_NE(out.find("[.] merge_sort.constprop.0 sort - -\n|\n---merge_sort.constprop.0 (CALL predicted:0.0%)\n"
                     "queens.constprop.0 (cycles:7)\nqueens.constprop.0 (CALL)\nmain (cycles:3)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("[.] fib sort - -\n|\n---fib (RET)\nack (cycles:65535)\n"), std::string::npos) << out;
}

TEST_F(PerfDataTest, PerfReadsTheHeaderAndTheBuildIds) {
  write_recording();
  const std::string out = perf("report --header-only");
  for (const std::string& line :
       {std::string("# arch : riscv64\n"), std::string("# hostname : brisk-host\n"),
        std::string("# os release : 6.1.0-test\n"), std::string("# perf version : brisk ") + BRISK_VERSION + "\n",
        std::string("# nrcpus online : 1\n"), std::string("# nrcpus avail : 1\n"),
        fmt::format("# cmdline : brisk record -o {} -- {} \n", path_, BRISK_SORT_GUEST),
        std::string("# contains samples with branch stack\n"), std::string("# time of first sample : 0.000002\n"),
        std::string("# time of last sample : 0.000003\n"),
        std::string("# event : name = instructions:u, , id = { 1 }, size = 128, config = 0x1, "
                    "{ sample_period, sample_freq } = 100000, sample_type = IP|TID|TIME|PERIOD|BRANCH_STACK, "
                    "exclude_kernel = 1, exclude_hv = 1, mmap = 1, comm = 1, sample_id_all = 1, mmap2 = 1, "
                    "branch_sample_type = ANY\n")})
    EXPECT_NE(out.find(line), std::string::npos) << "no line " << line << " in\n" << out;
  EXPECT_EQ(perf("buildid-list"), hex(build_id_) + " " + BRISK_SORT_GUEST + "\n");
}

// The file read without perf: the header, the attr and its id, the records and the features.
TEST_F(PerfDataTest, LaysOutTheFileAsPerfDefinesIt) {
  write_recording();
  const File f = read_file(path_);
  ASSERT_GE(f.b.size(), 104u);
  EXPECT_EQ(std::string(f.b.begin(), f.b.begin() + 8), "PERFILE2");
  EXPECT_EQ(f.at<uint64_t>(8), 104u);    // header size
  EXPECT_EQ(f.at<uint64_t>(16), 144u);   // perf_file_attr: the attr and its ids section
  const uint64_t attr = f.at<uint64_t>(24), data = f.at<uint64_t>(40), data_size = f.at<uint64_t>(48);
  EXPECT_EQ(f.at<uint64_t>(32), 144u);  // one attr
  EXPECT_EQ(f.at<uint32_t>(attr + 0), 0u);    // PERF_TYPE_HARDWARE
  EXPECT_EQ(f.at<uint32_t>(attr + 4), 128u);  // PERF_ATTR_SIZE_VER7
  EXPECT_EQ(f.at<uint64_t>(attr + 8), 1u);    // PERF_COUNT_HW_INSTRUCTIONS
  EXPECT_EQ(f.at<uint64_t>(attr + 16), 100000u);
  EXPECT_EQ(f.at<uint64_t>(attr + 24), 0x907u);  // IP | TID | TIME | PERIOD | BRANCH_STACK
  // exclude_kernel, exclude_hv, mmap, comm, sample_id_all, mmap2; not disabled, not freq.
  EXPECT_EQ(f.at<uint64_t>(attr + 40), (1u << 5) | (1u << 6) | (1u << 8) | (1u << 9) | (1u << 18) | (1u << 23));
  EXPECT_EQ(f.at<uint64_t>(attr + 72), 8u);  // PERF_SAMPLE_BRANCH_ANY
  const uint64_t ids = f.at<uint64_t>(attr + 128);
  EXPECT_EQ(f.at<uint64_t>(attr + 136), 8u);
  EXPECT_EQ(f.at<uint64_t>(ids), 1u);

  std::map<uint32_t, int> count;
  uint64_t sample_at = 0;
  for (uint64_t off = data; off < data + data_size;) {
    const uint16_t size = f.at<uint16_t>(off + 6);
    ASSERT_GE(size, 8u);
    EXPECT_EQ(size % 8, 0u) << "record at " << off;
    if (count[f.at<uint32_t>(off)]++ == 0 && f.at<uint32_t>(off) == 9) sample_at = off;
    off += size;
    ASSERT_LE(off, data + data_size);
  }
  EXPECT_EQ(count, (std::map<uint32_t, int>{{3, 2}, {9, 2}, {10, 1}, {68, 1}}));  // COMM, SAMPLE, MMAP2, ROUND

  // The first sample: user mode, its fields in sample_type order, the branch stack newest first.
  const Sample s = first_sample();
  ASSERT_NE(sample_at, 0u);
  EXPECT_EQ(f.at<uint16_t>(sample_at + 4), 2u);  // PERF_RECORD_MISC_USER
  EXPECT_EQ(f.at<uint16_t>(sample_at + 6), 8 + 5 * 8 + 2 * 24);  // header, ip, pid/tid, time, period, nr
  EXPECT_EQ(f.at<uint64_t>(sample_at + 8), s.ip);
  EXPECT_EQ(f.at<uint32_t>(sample_at + 16), kPid);
  EXPECT_EQ(f.at<uint32_t>(sample_at + 20), kPid);
  EXPECT_EQ(f.at<uint64_t>(sample_at + 24), 2000u);
  EXPECT_EQ(f.at<uint64_t>(sample_at + 32), 100000u);
  EXPECT_EQ(f.at<uint64_t>(sample_at + 40), 2u);
  const uint64_t e = sample_at + 48;
  EXPECT_EQ(f.at<uint64_t>(e), s.branches[0].from);
  EXPECT_EQ(f.at<uint64_t>(e + 8), s.branches[0].to);
  // mispred, cycles 7 at bit 4, PERF_BR_CALL (4) at bit 20; then predicted, 3 cycles, a call.
  EXPECT_EQ(f.at<uint64_t>(e + 16), 1u | (7u << 4) | (4u << 20));
  EXPECT_EQ(f.at<uint64_t>(e + 24), s.branches[1].from);
  EXPECT_EQ(f.at<uint64_t>(e + 40), 2u | (3u << 4) | (4u << 20));

  // The features, in bit order after the data: BUILD_ID, HOSTNAME, OSRELEASE, VERSION, ARCH,
  // NRCPUS, CMDLINE, EVENT_DESC, BRANCH_STACK, SAMPLE_TIME.
  EXPECT_EQ(f.at<uint64_t>(72), (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 11) |
                                    (1u << 12) | (1u << 15) | (1u << 21));
  const uint64_t table = data + data_size;
  const uint64_t build_ids = f.at<uint64_t>(table);
  EXPECT_EQ(f.at<uint64_t>(table + 8), 36u + (std::strlen(BRISK_SORT_GUEST) / 64 + 1) * 64);
  EXPECT_EQ(f.at<uint16_t>(build_ids + 4), 0x8002u);  // PERF_RECORD_MISC_BUILD_ID_SIZE | USER
  EXPECT_EQ(f.at<int32_t>(build_ids + 8), -1);       // the host machine
  EXPECT_EQ(std::vector<uint8_t>(f.b.begin() + build_ids + 12, f.b.begin() + build_ids + 32), build_id_);
  EXPECT_EQ(f.at<uint8_t>(build_ids + 32), 20u);
  EXPECT_EQ(f.str(build_ids + 36), BRISK_SORT_GUEST);
  const uint64_t arch = f.at<uint64_t>(table + 4 * 16);
  EXPECT_EQ(f.at<uint64_t>(table + 4 * 16 + 8), 4u + 64u);
  EXPECT_EQ(f.at<uint32_t>(arch), 64u);
  EXPECT_EQ(f.str(arch + 4), "riscv64");
  const uint64_t times = f.at<uint64_t>(table + 9 * 16);
  EXPECT_EQ(f.at<uint64_t>(times), 2000u);
  EXPECT_EQ(f.at<uint64_t>(times + 8), 3000u);
  EXPECT_EQ(times + 16, f.b.size());
}

// A kernel image mapped in system mode is perf's [kernel.kallsyms], symbolised by --vmlinux (here
// tests/guest/sort with a _text symbol, which a vmlinux has, stands in for it), and kernel and
// M-mode samples carry their cpumode.
TEST_F(PerfDataTest, NamesTheKernelAsPerfDoes) {
  const std::string vmlinux = dir_ + "/vmlinux";
  run(std::string("riscv64-linux-gnu-objcopy --add-symbol _text=.text:0,global ") + BRISK_SORT_GUEST + " " + vmlinux);
  {
    auto sink = perf_data_writer(path_, event(), session());
    Mapping k;
    k.start = 0x10000;
    k.len = 0x61004;
    k.filename = "vmlinux";
    k.host_path = vmlinux;
    k.mode = CpuMode::Kernel;
    sink->mmap(k);
    sink->comm({1, 1, "init", 5});
    Sample s;
    s.pid = s.tid = 1;
    s.time = 10;
    s.period = 1000;
    s.mode = CpuMode::Kernel;
    s.ip = sym("fib") + 2;
    s.branches = {{sym("ack") + 8, sym("fib"), false, 1, uint8_t(TransferType::Exception)}};
    sink->sample(s);
    s.mode = CpuMode::Machine;
    s.time = 20;
    s.ip = 0x80001234;
    s.branches = {{0x80001000, 0x80001234, true, 2, uint8_t(TransferType::Interrupt)}};
    sink->sample(s);
    sink->finish();
  }
  EXPECT_EQ(perf("buildid-list"), hex(build_id_) + " [kernel.kallsyms]\n");
  EXPECT_EQ(squeeze(perf("script -F ip,sym,brstack --vmlinux " + vmlinux)),
            fmt::format("{:x} fib {:#x}/{:#x}/P/-/-/1/SYSCALL\n"
                        "80001234 [unknown] 0x80001000/0x80001234/M/-/-/2/IRQ\n",
                        sym("fib") + 2, sym("ack") + 8, sym("fib")));
  // No warning that the kernel may be relocated: the MMAP names where its _text is. The branch
  // types are perf's for an exception and an interrupt.
  const std::string report = perf("report --stdio --vmlinux " + vmlinux + " -F overhead,symbol_from,symbol_to");
  EXPECT_EQ(report.find("Warning"), std::string::npos) << report;
  EXPECT_NE(squeeze(report).find("\n50.00% [k] ack [k] fib\n50.00% [H] 0x0000000080001000 [H] 0x0000000080001234\n"),
            std::string::npos)
      << report;
  EXPECT_NE(squeeze(report).find("\n# Branch Statistics:\n#\nSYSCALL: 50.0%\nIRQ: 50.0%"), std::string::npos)
      << report;
  const std::string header = perf("report --header-only");
  EXPECT_NE(header.find("sample_type = IP|TID|TIME|PERIOD|BRANCH_STACK, mmap = 1,"), std::string::npos)
      << "kernel and M-mode samples, yet the attr excludes them:\n" << header;
}

// Samples stream out with a FINISHED_ROUND every so often, so that perf need not sort the whole
// recording at once; perf reads them all, in time order.
TEST_F(PerfDataTest, StreamsALongRecordingInRounds) {
  constexpr int kSamples = 30000;
  {
    auto sink = perf_data_writer(path_, event(), session());
    record(*sink);
    Sample s = first_sample();
    for (int i = 0; i < kSamples; i++) {
      s.time = 4000 + i;
      s.ip = sym("merge_sort.constprop.0") + 2 * (i % 64);
      sink->sample(s);
    }
    sink->finish();
  }
  const File f = read_file(path_);
  int rounds = 0;
  for (uint64_t off = f.at<uint64_t>(40), end = off + f.at<uint64_t>(48); off < end; off += f.at<uint16_t>(off + 6))
    rounds += f.at<uint32_t>(off) == 68;
  EXPECT_EQ(rounds, 1 + (kSamples * 96 + 400) / (1 << 20)) << "one per MiB of records and one at the end";
  const std::string out = perf("script -F time,ip");
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = out.find('\n', at)) != std::string::npos; at = nl + 1) lines.push_back(out.substr(at, nl - at));
  ASSERT_EQ(lines.size(), kSamples + 2u);
  EXPECT_EQ(squeeze(lines[2]), fmt::format("0.000004: {:x}", sym("merge_sort.constprop.0")));
  EXPECT_EQ(squeeze(lines.back()), fmt::format("0.000033: {:x}", sym("merge_sort.constprop.0") + 2 * ((kSamples - 1) % 64)));
}

// A dynamic program's library under --sysroot: the guest maps /lib/riscv64-linux-gnu/libc.so.6,
// which brisk read from the sysroot; perf on the host finds it there, with its dynamic symbols
// (Debian's libraries have no .symtab) and its build-id.
TEST_F(PerfDataTest, SymbolisesALibraryFromTheSysroot) {
  const std::string libc = "/usr/riscv64-linux-gnu/lib/libc.so.6";  // libc6-riscv64-cross
  std::map<std::string, uint64_t> dynsym;
  const std::string nm = run("riscv64-linux-gnu-nm -D --defined-only " + libc);
  for (const char* name : {"qsort", "strlen"}) {
    const size_t at = nm.find(std::string(" T ") + name + "@@");
    ASSERT_NE(at, std::string::npos) << libc << " exports no " << name;
    dynsym[name] = std::stoull(nm.substr(nm.rfind('\n', at) + 1, 16), nullptr, 16);
  }
  constexpr uint64_t kBase = 0x3ff7e00000;
  {
    auto sink = perf_data_writer(path_, event(), session());
    sink->comm({kPid, kPid, "sort", 1000});
    Mapping m;
    m.pid = m.tid = kPid;
    m.start = kBase;
    m.len = 0x122000;
    m.prot = 5;
    m.flags = 2;
    m.filename = "/lib/riscv64-linux-gnu/libc.so.6";
    m.host_path = libc;
    m.time = 1000;
    sink->mmap(m);
    Sample s;
    s.pid = s.tid = kPid;
    s.time = 2000;
    s.period = 100000;
    s.ip = kBase + dynsym["qsort"] + 2;  // qsort is 4 bytes, a tail call of qsort_r
    s.branches = {{kBase + dynsym["strlen"] + 0x10, kBase + dynsym["qsort"], false, 12,
                   uint8_t(TransferType::DirectCall)}};
    sink->sample(s);
    sink->finish();
  }
  // (perf puts no space between the dso and the branch stack.)
  EXPECT_EQ(squeeze(perf("script -F ip,sym,dso,brstacksym")),
            fmt::format("{:x} qsort ({})strlen+0x10({})/qsort+0x0({})/P/-/-/12/CALL\n", kBase + dynsym["qsort"] + 2, libc,
                        libc, libc));
  EXPECT_EQ(perf("buildid-list"), run("perf buildid-list -i " + libc).substr(0, 40) + " " + libc + "\n");
}

// Mapped files without a build-id (stripped of it, or not ELF at all) are left out of the table,
// and perf still reads the ELF's symbols by its name.
TEST_F(PerfDataTest, LeavesOutFilesWithoutABuildId) {
  const std::string noid = dir_ + "/vmlinux";  // removed by TearDown
  run(std::string("riscv64-linux-gnu-objcopy --remove-section=.note.gnu.build-id ") + BRISK_SORT_GUEST + " " + noid);
  {
    auto sink = perf_data_writer(path_, event(), session());
    sink->comm({kPid, kPid, "sort", 1000});
    Mapping m;
    m.pid = m.tid = kPid;
    m.start = 0x10000;
    m.len = 0x61004;
    m.prot = 5;
    m.filename = m.host_path = noid;
    sink->mmap(m);
    m.start = 0x7f0000;
    m.len = 0x1000;
    m.filename = m.host_path = "/proc/self/status";  // not ELF
    sink->mmap(m);
    sink->sample(first_sample());
    sink->finish();
  }
  EXPECT_EQ(perf("buildid-list"), "");
  EXPECT_EQ(squeeze(perf("script -F ip,sym")), fmt::format("{:x} merge_sort.constprop.0\n", first_sample().ip));
}

// -F FREQ and -j filters on a raw event (a brisk PMU event), named by brisk or, without a name, by
// perf from the attr.
TEST_F(PerfDataTest, DescribesTheEventAsSampled) {
  Event ev;
  ev.name = "branch_taken";
  ev.type = 4;  // PERF_TYPE_RAW
  ev.config = 0x1d;
  ev.freq = 4000;
  ev.branch_sample_type = (1 << 4) | (1 << 5);  // PERF_SAMPLE_BRANCH_ANY_CALL | ANY_RETURN
  auto write = [&] {
    auto sink = perf_data_writer(path_, ev, session());
    record(*sink);
    sink->finish();
  };
  write();
  const std::string out = perf("report --header-only");
  EXPECT_NE(out.find("# event : name = branch_taken, , id = { 1 }, type = 4, size = 128, config = 0x1d, "
                     "{ sample_period, sample_freq } = 4000, sample_type = IP|TID|TIME|PERIOD|BRANCH_STACK, "
                     "exclude_kernel = 1, exclude_hv = 1, mmap = 1, comm = 1, freq = 1, sample_id_all = 1, mmap2 = 1, "
                     "branch_sample_type = ANY_CALL|ANY_RETURN\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(squeeze(perf("script -F event,ip")),
            fmt::format("branch_taken: {:x}\nbranch_taken: {:x}\n", sym("merge_sort.constprop.0") + 4, sym("fib") + 2));
  ev.name.clear();
  write();
  EXPECT_EQ(squeeze(perf("script -F event,ip")),
            fmt::format("raw 0x1d:u: {:x}\nraw 0x1d:u: {:x}\n", sym("merge_sort.constprop.0") + 4, sym("fib") + 2));
}

// The message of the brisk::Error that fn throws; empty when it throws none.
template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const brisk::Error& e) {
    return e.what();
  }
  return {};
}

TEST_F(PerfDataTest, RefusesAnUnwritablePathAtOnce) {
  EXPECT_EQ(error_of([&] { perf_data_writer(dir_ + "/missing/perf.data", event(), session()); }),
            "cannot write the perf.data output " + dir_ + "/missing/perf.data: No such file or directory");
  EXPECT_EQ(error_of([&] { perf_data_writer(dir_, event(), session()); }),
            "cannot write the perf.data output " + dir_ + ": it is a directory");
  EXPECT_EQ(error_of([&] { perf_data_writer("", event(), session()); }), "the perf.data output path is empty");
}

// The names in a directory, sorted.
std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  for (dirent* e; d && (e = readdir(d));)
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.push_back(e->d_name);
  if (d) closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// A recording that ends without finish() (an error, a guest run that unwinds) leaves no file, and
// what was at the path before stays as it was.
TEST_F(PerfDataTest, LeavesNoTruncatedFileBehind) {
  {
    auto sink = perf_data_writer(path_, event(), session());
    record(*sink);
  }
  EXPECT_EQ(files_in(dir_), std::vector<std::string>{});
  { std::ofstream(path_) << "an older recording"; }
  {
    auto sink = perf_data_writer(path_, event(), session());
    record(*sink);
    EXPECT_EQ(files_in(dir_).size(), 2u) << "the temporary sits next to the target";
  }
  EXPECT_EQ(files_in(dir_), std::vector<std::string>{"perf.data"});
  const File f = read_file(path_);
  EXPECT_EQ(std::string(f.b.begin(), f.b.end()), "an older recording");
}

// The finished file replaces what was there, with the permissions the umask gives a new file.
TEST_F(PerfDataTest, ReplacesTheTargetWhenFinished) {
  { std::ofstream(path_) << "an older recording"; }
  const mode_t old_mask = umask(027);
  write_recording();
  umask(old_mask);
  EXPECT_EQ(files_in(dir_), std::vector<std::string>{"perf.data"});
  struct stat st;
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(read_file(path_).str(0).substr(0, 8), "PERFILE2");
}

// A write that fails (here at RLIMIT_FSIZE, as it would on a full disk) throws brisk::Error naming
// the file, and the temporary goes. In a child, as the limit is the process's.
TEST_F(PerfDataTest, ReportsAFailedWrite) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);  // so that the write fails with EFBIG instead of killing
    const rlimit lim{64 * 1024, 64 * 1024};
    setrlimit(RLIMIT_FSIZE, &lim);
    std::string err;
    {
      auto sink = perf_data_writer(path_, event(), session());
      err = error_of([&] {
        for (int i = 0; i < 100000; i++) sink->sample(first_sample());
        sink->finish();
      });
    }
    const bool gone = access(path_.c_str(), F_OK) != 0 && files_in(dir_).empty();
    _exit(err == "cannot write the perf.data output " + path_ + ": File too large" && gone ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

}  // namespace
