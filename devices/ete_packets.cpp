#include "devices/ete_packets.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runtime/error.h"
#include "runtime/output_file.h"

namespace brisk::ete {

namespace {

// Packet headers (ETE; OpenCSD's names in trc_pkt_lister's output).
constexpr uint8_t kTraceInfo = 0x01, kTimestamp = 0x02, kTraceOn = 0x04, kException = 0x06, kCycleCountF1 = 0x0e,
                  kEvent = 0x70,
                  kAddrCtxt64Is1 = 0x86, kAddrShortIs1 = 0x96, kAddrLong64Is1 = 0x9e;
// Atom packets: F1 0xf6 | E; F2 0xd8 | 2 atoms; F3 0xf8 | 3 atoms (oldest in bit 0); F6 0xc0 | n - 3
// for n E atoms then E, 0xe0 | n - 3 for n E atoms then N (3 <= n <= 23).
constexpr uint8_t kAtomF1 = 0xf6, kAtomF2 = 0xd8, kAtomF3 = 0xf8, kAtomF6 = 0xc0, kAtomF6LastN = 0x20;
constexpr unsigned kMaxPendingAtoms = 24;
constexpr unsigned kAsyncZeros = 11;  // then 0x80
// An exception packet's E1:E0: the address that follows is the preferred return address.
constexpr uint8_t kExceptionAddrReturn = 0x01;
// The context information byte: EL 1:0, SF (AArch64-sized) 4, NS 5, V (VMID follows) 6, C (CID follows) 7.
constexpr uint8_t kCtxtSf = 1u << 4, kCtxtNs = 1u << 5, kCtxtV = 1u << 6, kCtxtC = 1u << 7;

}  // namespace

void PacketEncoder::start(uint32_t trcconfigr, uint32_t trcsyncpr, uint32_t trcccctlr) {
  configr_ = trcconfigr;
  cc_threshold_ = trcccctlr & 0xfff;
  last_cc_cycle_ = 0;
  sync_period_ = trcsyncpr ? 1ull << trcsyncpr : 0;
  sync();
}

void PacketEncoder::sync() {
  flush_atoms();
  last_sync_ = out_.size();
  out_.insert(out_.end(), kAsyncZeros, 0x00);
  put(0x80);
  // Trace Info: an INFO section (bit 0: cycle counting; no conditional or load/store P0 trace)
  // and, with cycle counting, the CYCT section's threshold.
  put_header(kTraceInfo);
  if (configr_ & CONFIGR_CCI) {
    put(0x09);
    put(0x01);
    cont_field(cc_threshold_, 2);
  } else {
    put(0x01);
    put(0x00);
  }
  timestamp();
}

void PacketEncoder::cont_field(uint64_t v, unsigned max_bytes) {
  // 7-bit groups, least significant first, bit 7 set on all but the last.
  for (unsigned i = 0; i < max_bytes; i++) {
    const uint8_t low = v & 0x7f;
    v >>= 7;
    if (v == 0 || i + 1 == max_bytes) {
      put(low);
      return;
    }
    put(0x80 | low);
  }
}

void PacketEncoder::timestamp() {
  if (!(configr_ & CONFIGR_TS) || !clock_) return;
  put_header(kTimestamp);
  cont_field(clock_->now(), 9);
}

void PacketEncoder::sync_if_due(uint64_t pc) {
  if (!sync_period_ || out_.size() - last_sync_ < sync_period_) return;
  sync();
  address_context(pc);
}

void PacketEncoder::address(uint64_t a) {
  // IS1 addresses drop bit 0. A short packet replaces bits 15:1 (or 7:1) of the last address.
  if ((a >> 16) == (last_address_ >> 16)) {
    put_header(kAddrShortIs1);
    if ((a >> 8) == (last_address_ >> 8)) {
      put((a >> 1) & 0x7f);
    } else {
      put(0x80 | ((a >> 1) & 0x7f));
      put(static_cast<uint8_t>(a >> 8));
    }
  } else {
    put_header(kAddrLong64Is1);
    put((a >> 1) & 0x7f);
    for (unsigned i = 1; i < 8; i++) put(static_cast<uint8_t>(a >> (8 * i)));
  }
  last_address_ = a;
}

void PacketEncoder::address_context(uint64_t a) {
  put_header(kAddrCtxt64Is1);
  put((a >> 1) & 0x7f);
  for (unsigned i = 1; i < 8; i++) put(static_cast<uint8_t>(a >> (8 * i)));
  last_address_ = a;
  const bool cid = configr_ & CONFIGR_CID, vmid = configr_ & CONFIGR_VMID;
  put(static_cast<uint8_t>(static_cast<unsigned>(el_) | kCtxtSf | (secure(el_) ? 0 : kCtxtNs) | (vmid ? kCtxtV : 0) |
                           (cid ? kCtxtC : 0)));
  // TRCIDR2: VMIDSIZE and CIDSIZE are 32 bits, VMID first.
  for (unsigned i = 0; vmid && i < 4; i++) put(static_cast<uint8_t>(vmid_ >> (8 * i)));
  for (unsigned i = 0; cid && i < 4; i++) put(static_cast<uint8_t>(context_id_ >> (8 * i)));
}

void PacketEncoder::trace_on(uint64_t pc, El el, uint32_t context_id, uint32_t vmid) {
  el_ = el;
  context_id_ = context_id;
  vmid_ = vmid;
  if (sync_period_ && out_.size() - last_sync_ >= sync_period_) sync();
  put_header(kTraceOn);
  address_context(pc);
}

void PacketEncoder::branch(const Retired& r, uint64_t cycle, bool broadcast) {
  sync_if_due(r.pc);
  atoms_ |= uint32_t(r.taken) << atom_count_;
  if (++atom_count_ == kMaxPendingAtoms) flush_atoms();
  if ((configr_ & CONFIGR_CCI) && cycle - last_cc_cycle_ >= std::max(cc_threshold_, 1u)) {
    // Format 1 (COMMOPT 1: no commit section): the count above the threshold, at most 20 bits
    // (TRCIDR2.CCSIZE), where the count saturates.
    put_header(kCycleCountF1);
    cont_field(std::min<uint64_t>(cycle - last_cc_cycle_ - cc_threshold_, 0xfffff), 3);
    last_cc_cycle_ = cycle;
  }
  // With branch broadcasting a taken direct branch names its target as an indirect one does.
  if (r.taken && (r.kind == Retired::IndirectBranch || broadcast)) address(r.next_pc);
}

void PacketEncoder::exception(uint64_t cause, bool interrupt, uint64_t epc, uint64_t handler, El el) {
  const uint32_t type = exception_type(cause, interrupt);
  put_header(kException);
  const bool extended = type >= 32;
  put(static_cast<uint8_t>((extended ? 0x80 : 0) | (type & 0x1f) << 1 | kExceptionAddrReturn));
  if (extended) put(static_cast<uint8_t>(type >> 5));
  address(epc);
  el_ = el;
  address_context(handler);
}

void PacketEncoder::context(uint64_t pc, El el, uint32_t context_id, uint32_t vmid) {
  el_ = el;
  context_id_ = context_id;
  vmid_ = vmid;
  address_context(pc);
}

void PacketEncoder::event(unsigned events) { put_header(static_cast<uint8_t>(kEvent | (events & 0xf))); }

void PacketEncoder::flush_atoms() {
  while (atom_count_) {
    unsigned run = 0;  // E atoms, oldest first
    while (run < atom_count_ && (atoms_ >> run & 1)) run++;
    unsigned used;
    if (run >= 3 && run < atom_count_ && run <= 23) {
      put(static_cast<uint8_t>(kAtomF6 | kAtomF6LastN | (run - 3)));  // run E atoms, then the N
      used = run + 1;
    } else if (run >= 4) {
      const unsigned n = std::min(run - 1, 23u);  // n E atoms, then one more E
      put(static_cast<uint8_t>(kAtomF6 | (n - 3)));
      used = n + 1;
    } else if (atom_count_ >= 3) {
      put(static_cast<uint8_t>(kAtomF3 | (atoms_ & 7)));
      used = 3;
    } else if (atom_count_ == 2) {
      put(static_cast<uint8_t>(kAtomF2 | (atoms_ & 3)));
      used = 2;
    } else {
      put(static_cast<uint8_t>(kAtomF1 | (atoms_ & 1)));
      used = 1;
    }
    atoms_ >>= used;
    atom_count_ -= used;
  }
}

// ------------------------------------------------------------------------------ snapshot

SnapshotSource snapshot_source(EteUnit& unit) {
  SnapshotSource s;
  auto reg = [&unit](uint64_t off) { return unit.register_value(off); };
  s.trcidr0 = reg(TRCIDR0);
  s.trcidr1 = reg(TRCIDR0 + 4);
  s.trcidr2 = reg(TRCIDR0 + 8);
  s.trcidr8 = reg(TRCIDR8);
  s.trcdevarch = reg(TRCDEVARCH);
  s.trcconfigr = reg(TRCCONFIGR);
  s.trctraceidr = reg(TRCTRACEIDR);
  return s;
}

void write_snapshot(const std::string& dir, const std::vector<SnapshotSource>& sources) {
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    throw Error("--trace: cannot create directory {}: {}", dir, std::strerror(errno));
  auto write_file = [&dir](const std::string& name, const void* p, size_t n) {
    OutputFile f(dir + "/" + name, "trace snapshot");
    f.write(p, n);
    f.commit();
  };
  auto write_text = [&write_file](const std::string& name, const std::string& text) {
    write_file(name, text.data(), text.size());
  };
  std::string devices, buffers, buffer_sections, source_buffers, core_sources;
  for (size_t n = 0; n < sources.size(); n++) {
    const SnapshotSource& s = sources[n];
    devices += fmt::format("device{}=cpu_{}.ini\ndevice{}=ETE_{}.ini\n", 2 * n, n, 2 * n + 1, n);
    // OpenCSD wants an Arm core name; the stream's program flow is RISC-V (docs/ete.md).
    write_text(fmt::format("cpu_{}.ini", n),
               fmt::format("[device]\nname=cpu_{}\nclass=core\ntype=ARM-AA64\n\n[regs]\nPC(size:64)=0\n", n));
    write_text(fmt::format("ETE_{}.ini", n),
               fmt::format("[device]\nname=ETE_{}\nclass=trace_source\ntype=ETE\n\n[regs]\n"
                           "TRCCONFIGR=0x{:x}\nTRCTRACEIDR=0x{:x}\nTRCIDR0=0x{:x}\nTRCIDR1=0x{:x}\n"
                           "TRCIDR2=0x{:x}\nTRCIDR8=0x{:x}\nTRCDEVARCH=0x{:x}\n",
                           n, s.trcconfigr, s.trctraceidr, s.trcidr0, s.trcidr1, s.trcidr2, s.trcidr8,
                           s.trcdevarch));
    write_file(fmt::format("ete_{}.bin", n), s.stream.data(), s.stream.size());
    buffers += fmt::format("{}buffer{}", n ? "," : "", n);
    buffer_sections += fmt::format("[buffer{}]\nname=ETB_{}\nfile=ete_{}.bin\nformat=source_data\n\n", n, n, n);
    source_buffers += fmt::format("ETE_{}=ETB_{}\n", n, n);
    core_sources += fmt::format("cpu_{}=ETE_{}\n", n, n);
  }
  write_text("snapshot.ini", "[snapshot]\nversion=1.0\ndescription=brisk ETE trace\n\n[device_list]\n" + devices +
                                 "\n[trace]\nmetadata=trace.ini\n");
  write_text("trace.ini", "[trace_buffers]\nbuffers=" + buffers + "\n\n" + buffer_sections + "[source_buffers]\n" +
                              source_buffers + "\n[core_trace_sources]\n" + core_sources);
}

}  // namespace brisk::ete
