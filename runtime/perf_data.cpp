// brisk record's perf.data, the file `perf record` writes, for Linux perf on any host: a header
// with the one event's perf_event_attr, the records (COMM, MMAP2, SAMPLE with a branch stack, as
// the kernel would have written them to its ring buffer), then the feature sections perf's header
// code reads (arch riscv64, build-ids, event name, ...). The layouts are Linux's: the uapi's
// include/uapi/linux/perf_event.h and perf's tools/perf/util/header.h; the names below are theirs.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "jit/transfer.h"
#include "runtime/elf_file.h"
#include "runtime/error.h"
#include "runtime/output_file.h"
#include "runtime/profile.h"

namespace brisk::profile {

namespace {

struct perf_file_section {
  uint64_t offset, size;
};
static_assert(sizeof(perf_file_section) == 16);

struct perf_file_header {
  uint64_t magic;      // "PERFILE2", read as a little-endian number (which tells perf the byte order)
  uint64_t size;       // of this header
  uint64_t attr_size;  // of one perf_file_attr
  perf_file_section attrs, data, event_types;
  uint64_t adds_features[4];  // the HEADER_* feature sections that follow the data, one bit each
};
static_assert(sizeof(perf_file_header) == 104);

struct perf_event_attr {
  uint32_t type, size;
  uint64_t config;
  uint64_t sample_period_or_freq;
  uint64_t sample_type, read_format;
  uint64_t disabled : 1, inherit : 1, pinned : 1, exclusive : 1, exclude_user : 1, exclude_kernel : 1,
      exclude_hv : 1, exclude_idle : 1, mmap : 1, comm : 1, freq : 1, inherit_stat : 1, enable_on_exec : 1,
      task : 1, watermark : 1, precise_ip : 2, mmap_data : 1, sample_id_all : 1, exclude_host : 1,
      exclude_guest : 1, exclude_callchain_kernel : 1, exclude_callchain_user : 1, mmap2 : 1, comm_exec : 1,
      use_clockid : 1, context_switch : 1, write_backward : 1, namespaces : 1, ksymbol : 1, bpf_event : 1,
      aux_output : 1, cgroup : 1, text_poke : 1, build_id : 1, inherit_thread : 1, remove_on_exec : 1,
      sigtrap : 1, reserved_1 : 26;
  uint32_t wakeup_events, bp_type;
  uint64_t config1, config2;
  uint64_t branch_sample_type;
  uint64_t sample_regs_user;
  uint32_t sample_stack_user;
  int32_t clockid;
  uint64_t sample_regs_intr;
  uint32_t aux_watermark;
  uint16_t sample_max_stack, reserved_2;
  uint32_t aux_sample_size, reserved_3;
  uint64_t sig_data;
};
constexpr uint32_t PERF_ATTR_SIZE_VER7 = 128;
static_assert(sizeof(perf_event_attr) == PERF_ATTR_SIZE_VER7);

struct perf_file_attr {
  perf_event_attr attr;
  perf_file_section ids;  // where this event's sample ids are
};
static_assert(sizeof(perf_file_attr) == 144);

struct perf_event_header {
  uint32_t type;
  uint16_t misc, size;
};
static_assert(sizeof(perf_event_header) == 8);

struct perf_branch_entry {
  uint64_t from, to;
  uint64_t mispred : 1, predicted : 1, in_tx : 1, abort : 1, cycles : 16, type : 4, spec : 2, new_type : 4,
      priv : 3, reserved : 31;
};
static_assert(sizeof(perf_branch_entry) == 24);

// An entry of HEADER_BUILD_ID; the file name follows, NUL-padded to NAME_ALIGN.
struct perf_record_header_build_id {
  perf_event_header header;
  int32_t pid;
  uint8_t data[20];
  uint8_t size, reserved1, reserved2[2];
};
static_assert(sizeof(perf_record_header_build_id) == 36);

constexpr uint64_t PERF_MAGIC2 = 0x32454c4946524550;  // "PERFILE2"
constexpr size_t NAME_ALIGN = 64;                     // of the strings in feature sections

constexpr uint32_t PERF_RECORD_COMM = 3, PERF_RECORD_SAMPLE = 9, PERF_RECORD_MMAP2 = 10;
constexpr uint32_t PERF_RECORD_FINISHED_ROUND = 68;  // perf's own: earlier records may be sorted and processed

constexpr uint16_t PERF_RECORD_MISC_KERNEL = 1, PERF_RECORD_MISC_USER = 2, PERF_RECORD_MISC_HYPERVISOR = 3;
constexpr uint16_t PERF_RECORD_MISC_BUILD_ID_SIZE = 1 << 15;

constexpr uint64_t PERF_SAMPLE_IP = 1 << 0, PERF_SAMPLE_TID = 1 << 1, PERF_SAMPLE_TIME = 1 << 2,
                   PERF_SAMPLE_PERIOD = 1 << 8, PERF_SAMPLE_BRANCH_STACK = 1 << 11;
constexpr uint64_t PERF_SAMPLE_BRANCH_ANY = 1 << 3, PERF_SAMPLE_BRANCH_HW_INDEX = 1 << 17;

enum : unsigned {
  HEADER_BUILD_ID = 2,
  HEADER_HOSTNAME = 3,
  HEADER_OSRELEASE = 4,
  HEADER_VERSION = 5,
  HEADER_ARCH = 6,
  HEADER_NRCPUS = 7,
  HEADER_CMDLINE = 11,
  HEADER_EVENT_DESC = 12,
  HEADER_BRANCH_STACK = 15,
  HEADER_SAMPLE_TIME = 21,
};

enum : uint8_t {
  PERF_BR_UNKNOWN = 0,
  PERF_BR_COND = 1,
  PERF_BR_UNCOND = 2,
  PERF_BR_IND = 3,
  PERF_BR_CALL = 4,
  PERF_BR_IND_CALL = 5,
  PERF_BR_RET = 6,
  PERF_BR_SYSCALL = 7,
  PERF_BR_ERET = 11,
  PERF_BR_IRQ = 12,
};

constexpr int32_t HOST_KERNEL_ID = -1;  // perf's pid of the host machine, for kernel maps and build-ids
// What perf calls the kernel image: its MMAP is named "[kernel.kallsyms]" plus a symbol whose
// address pgoff gives, from which perf tells how far the kernel was relocated (KASLR) from where
// its vmlinux (given with --vmlinux) says. brisk's kernels run where they were linked.
constexpr std::string_view kKernelName = "[kernel.kallsyms]";
constexpr const char* kKernelRefSymbol = "_text";

// The one attr's one sample id; the samples need not carry it (PERF_SAMPLE_ID), as there is one event.
constexpr uint64_t kEventId = 1;
// The file starts with the header, the id and the attr, filled in by finish(); the data follows.
constexpr uint64_t kIdsOffset = sizeof(perf_file_header);
constexpr uint64_t kAttrsOffset = kIdsOffset + sizeof(kEventId);
constexpr uint64_t kDataOffset = kAttrsOffset + sizeof(perf_file_attr);
// A FINISHED_ROUND after about this many bytes of records lets perf sort and drop the records
// before it, instead of holding the whole recording in its ordered-events queue.
constexpr uint64_t kRoundBytes = 1 << 20;

uint16_t cpumode(CpuMode m) {
  switch (m) {
    case CpuMode::User: return PERF_RECORD_MISC_USER;
    case CpuMode::Kernel: return PERF_RECORD_MISC_KERNEL;
    case CpuMode::Machine: return PERF_RECORD_MISC_HYPERVISOR;
  }
  return PERF_RECORD_MISC_USER;
}

// The Smctr transfer type (jit/transfer.h) as perf's branch type.
uint8_t perf_branch_type(uint8_t ctr_type) {
  using T = TransferType;
  switch (static_cast<T>(ctr_type)) {
    case T::Exception: return PERF_BR_SYSCALL;
    case T::Interrupt: return PERF_BR_IRQ;
    case T::TrapReturn: return PERF_BR_ERET;
    case T::NotTakenBranch:
    case T::TakenBranch: return PERF_BR_COND;
    case T::IndirectCall: return PERF_BR_IND_CALL;
    case T::DirectCall: return PERF_BR_CALL;
    case T::IndirectJump:
    case T::OtherIndirectJump: return PERF_BR_IND;
    case T::DirectJump:
    case T::OtherDirectJump: return PERF_BR_UNCOND;
    case T::Return: return PERF_BR_RET;
    default: return PERF_BR_UNKNOWN;  // none, reserved, co-routine swap: perf has no name for them
  }
}

// perf_branch_entry's word after from and to (linux/perf_event.h's bit-fields, little-endian):
// mispred at bit 0, predicted at 1, cycles at 4..19, type at 20..23. Built in a register: an entry
// assembled field by field on the stack and then copied stalled on store forwarding, which made
// encoding most of a sample's cost in the handler (docs/profiling.md, "Cost").
uint64_t branch_flags(const Branch& b) {
  static_assert(sizeof(perf_branch_entry) == 3 * sizeof(uint64_t));
  return uint64_t{b.mispredicted} | uint64_t{!b.mispredicted} << 1 | uint64_t{b.cycles} << 4 |
         uint64_t{perf_branch_type(b.type)} << 20;
}

// Little-endian bytes of a record or a feature section (perf.data is in the writer's byte order,
// and brisk's hosts are little-endian x86-64). Reused from record to record: it grows to the
// largest and stays.
class Bytes {
 public:
  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::memcpy(grow(sizeof(T)), &v, sizeof(T));
  }
  // s and a NUL, zero-padded to a multiple of `align`.
  void put_padded(std::string_view s, size_t align) {
    const size_t n = (s.size() / align + 1) * align;
    uint8_t* p = grow(n);
    std::memcpy(p, s.data(), s.size());
    std::memset(p + s.size(), 0, n - s.size());
  }
  // A feature-section string: its padded length, then the string.
  void put_string(std::string_view s) {
    put(static_cast<uint32_t>((s.size() / NAME_ALIGN + 1) * NAME_ALIGN));
    put_padded(s, NAME_ALIGN);
  }
  void clear() { size_ = 0; }
  size_t size() const { return size_; }
  uint8_t* data() { return b_.data(); }

 private:
  uint8_t* grow(size_t n) {
    if (size_ + n > b_.size()) b_.resize(std::max(2 * b_.size(), size_ + n));
    uint8_t* p = b_.data() + size_;
    size_ += n;
    return p;
  }
  std::vector<uint8_t> b_;
  size_t size_ = 0;
};

struct BuildId {
  uint16_t misc;
  std::string filename;
  std::vector<uint8_t> id;
};

class PerfDataWriter final : public Sink {
 public:
  PerfDataWriter(const std::string& path, const Event& ev, const Session& s)
      : out_(path, "perf.data output"), ev_(ev), session_(s) {
    const uint8_t zeros[kDataOffset] = {};
    out_.write(zeros, sizeof(zeros));
  }

  void comm(const Comm& c) override {
    begin(PERF_RECORD_COMM, 0);  // the kernel's misc (no COMM_EXEC: the data model has no exec)
    rec_.put(c.pid);
    rec_.put(c.tid);
    rec_.put_padded(std::string_view(c.name).substr(0, 15), 8);  // the kernel's TASK_COMM_LEN
    sample_id(c.pid, c.tid, c.time);
    end();
  }

  void mmap(const Mapping& m) override {
    const bool kernel = m.mode == CpuMode::Kernel;
    kernel_seen_ |= kernel;
    // The kernel's map belongs to no process but to the machine.
    const uint32_t pid = kernel ? static_cast<uint32_t>(HOST_KERNEL_ID) : m.pid, tid = kernel ? 0 : m.tid;
    begin(PERF_RECORD_MMAP2, cpumode(m.mode));
    rec_.put(pid);
    rec_.put(tid);
    rec_.put(m.start);
    rec_.put(m.len);
    const std::string file = host_file(m);
    rec_.put(kernel ? kernel_ref_address(file) : m.pgoff);
    rec_.put(m.maj);
    rec_.put(m.min);
    rec_.put(m.ino);
    rec_.put(uint64_t(0));  // ino_generation
    rec_.put(m.prot);
    rec_.put(m.flags);
    rec_.put_padded(kernel ? std::string(kKernelName) + kKernelRefSymbol : file, 8);
    sample_id(pid, tid, m.time);
    end();
    add_build_id(m.mode, kernel ? std::string(kKernelName) : file, file);
  }

  void sample(const Sample& s) override {
    // A full CTR buffer is 256 entries; a record's 16-bit size holds 2700.
    if (s.branches.size() > 256)
      throw Error("{}: a sample with {} branches is more than CTR holds", out_.path(), s.branches.size());
    kernel_seen_ |= s.mode == CpuMode::Kernel;
    hv_seen_ |= s.mode == CpuMode::Machine;
    if (!nr_samples_++) first_time_ = s.time;
    last_time_ = s.time;
    // Most of what brisk record writes: built in the file's buffer, as in no other record.
    struct Fixed {
      perf_event_header header;
      uint64_t ip;
      uint32_t pid, tid;
      uint64_t time, period, nr;
    };
    static_assert(sizeof(Fixed) == 48, "PERF_SAMPLE_IP | TID | TIME | PERIOD, then the branch stack's nr");
    const size_t size = sizeof(Fixed) + s.branches.size() * sizeof(perf_branch_entry);
    out_.append(size, [&](uint8_t* p) {
      const Fixed f{{PERF_RECORD_SAMPLE, cpumode(s.mode), static_cast<uint16_t>(size)}, s.ip, s.pid, s.tid, s.time,
                    s.period, s.branches.size()};
      std::memcpy(p, &f, sizeof(f));
      p += sizeof(f);
      for (const Branch& b : s.branches) {
        const uint64_t flags = branch_flags(b);
        std::memcpy(p, &b.from, 8);
        std::memcpy(p + 8, &b.to, 8);
        std::memcpy(p + 16, &flags, 8);
        p += sizeof(perf_branch_entry);
      }
      return size;
    });
    counted(size);
  }

  void finish() override {
    finished_round();
    const uint64_t data_size = out_.size() - kDataOffset;

    // The feature sections: a table of their places, in HEADER_* order, then their contents.
    std::map<unsigned, Bytes> feats;
    Bytes& ids = feats[HEADER_BUILD_ID];
    for (const BuildId& b : build_ids_) {
      perf_record_header_build_id h{};
      h.header.misc = b.misc | PERF_RECORD_MISC_BUILD_ID_SIZE;
      h.header.size = static_cast<uint16_t>(sizeof(h) + (b.filename.size() / NAME_ALIGN + 1) * NAME_ALIGN);
      h.pid = HOST_KERNEL_ID;  // perf keys build-ids by machine, the host's being this; not by process
      std::memcpy(h.data, b.id.data(), b.id.size());
      h.size = static_cast<uint8_t>(b.id.size());
      ids.put(h);
      ids.put_padded(b.filename, NAME_ALIGN);
    }
    if (!session_.hostname.empty()) feats[HEADER_HOSTNAME].put_string(session_.hostname);
    if (!session_.os_release.empty()) feats[HEADER_OSRELEASE].put_string(session_.os_release);
    feats[HEADER_VERSION].put_string(std::string("brisk ") + BRISK_VERSION);
    feats[HEADER_ARCH].put_string("riscv64");
    Bytes& cpus = feats[HEADER_NRCPUS];
    cpus.put(static_cast<uint32_t>(session_.nr_cpus));  // available
    cpus.put(static_cast<uint32_t>(session_.nr_cpus));  // online
    Bytes& cmdline = feats[HEADER_CMDLINE];
    cmdline.put(static_cast<uint32_t>(session_.cmdline.size()));
    for (const std::string& arg : session_.cmdline) cmdline.put_string(arg);
    const perf_event_attr attr = event_attr();
    if (!ev_.name.empty()) {  // else perf names the event from the attr
      Bytes& desc = feats[HEADER_EVENT_DESC];
      desc.put(uint32_t(1));  // events
      desc.put(static_cast<uint32_t>(sizeof(attr)));
      desc.put(attr);
      desc.put(uint32_t(1));  // ids
      desc.put_string(ev_.name);
      desc.put(kEventId);
    }
    feats[HEADER_BRANCH_STACK];  // empty: its presence says the samples have branch stacks
    Bytes& times = feats[HEADER_SAMPLE_TIME];
    times.put(first_time_);
    times.put(last_time_);

    perf_file_header h{};
    h.magic = PERF_MAGIC2;
    h.size = sizeof(h);
    h.attr_size = sizeof(perf_file_attr);
    h.attrs = {kAttrsOffset, sizeof(perf_file_attr)};
    h.data = {kDataOffset, data_size};
    uint64_t at = out_.size() + feats.size() * sizeof(perf_file_section);
    for (auto& [f, bytes] : feats) {
      h.adds_features[f / 64] |= uint64_t(1) << (f % 64);
      const perf_file_section sec{at, bytes.size()};
      out_.write(&sec, sizeof(sec));
      at += bytes.size();
    }
    for (auto& [f, bytes] : feats) out_.write(bytes.data(), bytes.size());

    const perf_file_attr fattr{attr, {kIdsOffset, sizeof(kEventId)}};
    out_.write_at(0, &h, sizeof(h));
    out_.write_at(kIdsOffset, &kEventId, sizeof(kEventId));
    out_.write_at(kAttrsOffset, &fattr, sizeof(fattr));
    out_.commit();
  }

 private:
  perf_event_attr event_attr() const {
    perf_event_attr a{};
    a.type = ev_.type;
    a.size = sizeof(a);
    a.config = ev_.config;
    a.freq = ev_.freq != 0;
    a.sample_period_or_freq = ev_.freq ? ev_.freq : ev_.period;
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK;
    // The privileges sampled, as the recording shows them: perf report warns of unresolvable
    // kernel symbols unless the kernel is excluded, which a user-mode recording's is.
    a.exclude_kernel = !kernel_seen_;
    a.exclude_hv = !hv_seen_;
    a.mmap = a.comm = a.mmap2 = 1;
    a.sample_id_all = 1;
    // The branch stacks carry no hw_idx word, so the HW_INDEX flag must stay clear.
    a.branch_sample_type =
        (ev_.branch_sample_type ? ev_.branch_sample_type : PERF_SAMPLE_BRANCH_ANY) & ~PERF_SAMPLE_BRANCH_HW_INDEX;
    return a;
  }

  void begin(uint32_t type, uint16_t misc) {
    rec_.clear();
    rec_.put(perf_event_header{type, misc, 0});
  }
  // The fields of sample_type that sample_id_all appends to the other records.
  void sample_id(uint32_t pid, uint32_t tid, uint64_t time) {
    rec_.put(pid);
    rec_.put(tid);
    rec_.put(time);
  }
  void end() {
    const uint16_t size = static_cast<uint16_t>(rec_.size());
    std::memcpy(rec_.data() + offsetof(perf_event_header, size), &size, sizeof(size));
    out_.write(rec_.data(), rec_.size());
    counted(rec_.size());
  }
  void counted(size_t record_bytes) {
    if ((round_bytes_ += record_bytes) >= kRoundBytes) finished_round();
  }
  void finished_round() {
    const perf_event_header h{PERF_RECORD_FINISHED_ROUND, 0, sizeof(h)};
    out_.write(&h, sizeof(h));
    round_bytes_ = 0;
  }

  // The file perf is to read a mapping's symbols from: perf runs on the host, where a guest path
  // (under --sysroot) would need a --symfs that a program outside the sysroot could not share.
  // Absolute, so that perf finds it from any directory; PATH_MAX at most, as the kernel's d_path
  // gives, which keeps the record within its 16-bit size.
  static std::string host_file(const Mapping& m) {
    std::error_code ec;
    const std::filesystem::path p = m.host_path.empty() ? m.filename : m.host_path;
    const std::filesystem::path abs = std::filesystem::absolute(p, ec);
    return (ec ? p : abs.lexically_normal()).string().substr(0, 4095);
  }

  // Where the kernel image has its reference symbol; 0 when it has none (or no symbols), which
  // perf takes as "not known" and warns that kernel symbols may be misresolved.
  static uint64_t kernel_ref_address(const std::string& file) {
    try {
      return ElfFile(file, "kernel").symbol(kKernelRefSymbol).value_or(0);
    } catch (const Error&) {
      return 0;
    }
  }

  // The build-id of each mapped file, read once, under the name its MMAP2 gives it.
  void add_build_id(CpuMode mode, std::string name, const std::string& file) {
    if (!build_id_seen_.emplace(cpumode(mode), name).second) return;
    std::optional<std::vector<uint8_t>> id;
    try {
      id = ElfFile(file, "mapped file").build_id();
    } catch (const Error&) {
      return;  // not a RISC-V ELF (or gone): perf finds it by name alone
    }
    // perf keeps 20 bytes, a SHA-1's; longer ids cannot be told apart there.
    if (!id || id->size() > sizeof(perf_record_header_build_id::data)) return;
    build_ids_.push_back({cpumode(mode), std::move(name), std::move(*id)});
  }

  OutputFile out_;
  const Event ev_;
  const Session session_;
  Bytes rec_;
  uint64_t round_bytes_ = 0;
  uint64_t nr_samples_ = 0, first_time_ = 0, last_time_ = 0;
  bool kernel_seen_ = false, hv_seen_ = false;
  std::set<std::pair<uint16_t, std::string>> build_id_seen_;
  std::vector<BuildId> build_ids_;
};

}  // namespace

std::unique_ptr<Sink> perf_data_writer(const std::string& path, const Event& ev, const Session& s) {
  return std::make_unique<PerfDataWriter>(path, ev, s);
}

}  // namespace brisk::profile
