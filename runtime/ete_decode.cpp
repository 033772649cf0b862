#include "runtime/ete_decode.h"

#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <deque>
#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "runtime/elf_file.h"
#include "runtime/error.h"
#include "runtime/input_file.h"
#include "runtime/output_file.h"
#include "runtime/profile.h"

namespace brisk::ete {

// ------------------------------------------------------------------------------ packets

uint8_t PacketParser::byte(size_t header) {
  if (pos_ >= size_)
    throw Error("{}: offset {}: the packet with header 0x{:02x} is cut short at the end of the stream", name_, header,
                p_[header]);
  return p_[pos_++];
}

// 7-bit groups, least significant first, bit 7 set on all but the last (the encoder's cont_field).
uint64_t PacketParser::cont_field(size_t header, unsigned max_bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < max_bytes; i++) {
    const uint8_t b = byte(header);
    v |= uint64_t(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) return v;
  }
  throw Error("{}: offset {}: a field of more than {} bytes", name_, header, max_bytes);
}

// A 64-bit IS1 address: bits 7:1, then bits 15:8 up to 63:56.
uint64_t PacketParser::address64(size_t header) {
  uint64_t a = uint64_t(byte(header) & 0x7f) << 1;
  for (unsigned i = 1; i < 8; i++) a |= uint64_t(byte(header)) << (8 * i);
  last_address_ = a;
  return a;
}

bool PacketParser::next(Packet& pk) {
  if (pos_ >= size_) return false;
  pk = Packet();
  const size_t h = pos_;
  pk.offset = h;
  const uint8_t b = p_[pos_++];
  auto atoms = [&pk](uint32_t bits, unsigned n) {
    pk.type = Packet::Atoms;
    pk.atoms = bits;
    pk.atom_count = n;
  };
  if (b == 0x00) {  // A-Sync: eleven 0x00, then 0x80
    for (unsigned i = 1; i < 11; i++)
      if (byte(h) != 0x00) throw Error("{}: offset {}: a broken A-Sync packet", name_, h);
    if (byte(h) != 0x80) throw Error("{}: offset {}: a broken A-Sync packet", name_, h);
    pk.type = Packet::Async;
  } else if (b == 0x01) {  // Trace Info: PLCTL, then the INFO, KEY, SPEC and CYCT sections it names
    pk.type = Packet::TraceInfo;
    const uint8_t plctl = byte(h);
    if (plctl & 1) pk.cc = cont_field(h, 2) & 1;
    if (plctl & 2) cont_field(h, 5);
    if (plctl & 4) cont_field(h, 5);
    if (plctl & 8) pk.value = cont_field(h, 2);
  } else if (b == 0x02 || b == 0x03) {
    pk.type = Packet::Timestamp;
    pk.value = cont_field(h, 9);
    if (b == 0x03) cont_field(h, 3);
  } else if (b == 0x04) {
    pk.type = Packet::TraceOn;
  } else if (b == 0x06) {
    pk.type = Packet::Exception;
    const uint8_t e = byte(h);
    pk.exception_type = (e >> 1) & 0x1f;
    if (e & 0x80) pk.exception_type |= uint32_t(byte(h) & 0x1f) << 5;
  } else if (b == 0x0e || b == 0x0f) {  // Cycle Count format 1 (COMMOPT 1: no commit section)
    pk.type = Packet::CycleCount;
    pk.cc_unknown = b == 0x0f;
    if (b == 0x0e) pk.value = cont_field(h, 3);
  } else if ((b & 0xf0) == 0x70) {
    pk.type = Packet::Event;
    pk.value = b & 0xf;
  } else if (b == 0x86) {  // Address with Context, 64-bit IS1, then the context information byte
    pk.type = Packet::Address;
    pk.context = true;
    pk.addr = address64(h);
    const uint8_t info = byte(h);
    pk.el = info & 3;
    pk.ns = info & 0x20;
    for (unsigned i = 0; (info & 0x40) && i < 4; i++) pk.vmid |= uint32_t(byte(h)) << (8 * i);
    for (unsigned i = 0; (info & 0x80) && i < 4; i++) pk.context_id |= uint32_t(byte(h)) << (8 * i);
  } else if (b == 0x96) {  // short IS1: bits 7:1, and with bit 7 set bits 15:8, of the last address
    pk.type = Packet::Address;
    const uint8_t b0 = byte(h);
    uint64_t a = (last_address_ & ~0xfeull) | uint64_t(b0 & 0x7f) << 1;
    if (b0 & 0x80) a = (a & ~0xff00ull) | uint64_t(byte(h)) << 8;
    pk.addr = last_address_ = a;
  } else if (b == 0x9e) {
    pk.type = Packet::Address;
    pk.addr = address64(h);
  } else if (b == 0xf6 || b == 0xf7) {
    atoms(b & 1, 1);
  } else if (b >= 0xd8 && b <= 0xdb) {
    atoms(b & 3, 2);
  } else if (b >= 0xf8) {
    atoms(b & 7, 3);
  } else if ((b & 0xc0) == 0xc0 && (b & 0x1f) <= 20) {  // F6: n = 3..23 E atoms, then E or (bit 5) N
    const unsigned n = (b & 0x1f) + 3;
    atoms(b & 0x20 ? (1u << n) - 1 : (1u << (n + 1)) - 1, n + 1);
  } else {
    throw Error("{}: offset {}: unknown packet header 0x{:02x} (not one brisk's ETE encoder writes)", name_, h, b);
  }
  return true;
}

// ------------------------------------------------------------------------------ code

void CodeImage::add_elf(const std::string& path, const char* what, uint64_t base) {
  const ElfFile f(path, what);
  if (!segs_.empty() && f.xlen() != xlen_) throw Error("{} {}: an RV{} image among RV{} ones", what, path, f.xlen(), xlen_);
  xlen_ = f.xlen();
  isa_.xlen = xlen_;
  bool any = false;
  uint64_t bias = 0;
  for (const GElf_Phdr& p : f.segments()) {
    if (p.p_type != PT_LOAD || !(p.p_flags & PF_X) || p.p_filesz == 0) continue;
    if (!any && base != UINT64_MAX) bias = base - p.p_vaddr;
    Segment s;
    s.vaddr = p.p_vaddr + bias;
    s.offset = p.p_offset;
    // The file's bytes only: a hostile p_memsz could ask for any size, and no code runs from the zeros
    // past p_filesz.
    s.size = p.p_filesz;
    s.path = path;
    s.bytes.resize(p.p_filesz);
    f.read(p.p_offset, s.bytes.data(), p.p_filesz);
    segs_.push_back(std::move(s));
    any = true;
  }
  if (!any) throw Error("{} {}: no executable segment", what, printable(path));
}

bool CodeImage::fetch(uint64_t pc, Insn& in) const {
  for (const Segment& s : segs_) {
    if (pc < s.vaddr || pc - s.vaddr + 2 > s.size) continue;
    const uint8_t* b = s.bytes.data() + (pc - s.vaddr);
    uint32_t raw = b[0] | b[1] << 8;
    if (insn_length(static_cast<uint16_t>(raw)) == 4) {
      if (pc - s.vaddr + 4 > s.size) return false;
      raw |= uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
    }
    in = decode(raw, isa_);
    return true;
  }
  return false;
}

// ------------------------------------------------------------------------------ program flow

namespace {

// The instructions that give an atom (docs/ete.md, "The hook"): conditional branches and jal
// (direct), jalr and the xRETs (a taken indirect branch, followed by the target address).
bool is_waypoint(const Insn& in) { return (in.flags() & (kBranch | kJump)) || in.op == Op::MRET || in.op == Op::SRET; }
bool is_indirect(const Insn& in) { return in.op == Op::JALR || in.op == Op::MRET || in.op == Op::SRET; }

class FlowDecoder {
 public:
  FlowDecoder(const std::string& name, const CodeImage& code, FlowSink& sink) : name_(name), code_(code), sink_(sink) {}

  void packet(const Packet& pk) {
    off_ = pk.offset;
    switch (pk.type) {
      case Packet::TraceOn:
        direct_ = false;
        want_ = Want::TraceOnAddress;
        have_pc_ = false;
        gap_ = false;
        break;
      case Packet::Atoms:
        for (unsigned i = 0; i < pk.atom_count; i++) atom(pk.atoms >> i & 1);
        break;
      case Packet::Exception:
        if (want_ != Want::None) fail("an exception packet while waiting for an address");
        direct_ = false;
        exception_type_ = pk.exception_type;
        want_ = Want::ExceptionReturn;
        break;
      case Packet::Address: address(pk); break;
      default: break;  // A-Sync, Trace Info, events, timestamps and cycle counts move no pc
    }
  }

  void finish() {
    if (want_ != Want::None) fail("the stream ends while waiting for an address");
    if (gaps_ && !known_)
      throw Error("{}: the stream never runs code of the ELF files given (it starts at 0x{:x})", name_, first_gap_);
  }

 private:
  enum class Want { None, Target, ExceptionReturn, ExceptionHandler, TraceOnAddress };

  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
    throw Error("{}: offset {}: {}; the stream does not match the program", name_, off_,
                fmt::format(f, std::forward<Args>(args)...));
  }

  // False, after entering a gap, where no ELF file has code at pc.
  bool fetch(uint64_t pc, Insn& in) {
    if (!code_.fetch(pc, in)) {
      // Code outside the ELF files (user programs under --vmlinux, firmware): unknown until the
      // next address packet, which names where the flow goes on.
      if (!gaps_++) first_gap_ = pc;
      gap_ = true;
      have_pc_ = false;
      sink_.gap(pc);
      return false;
    }
    if (in.op == Op::ILLEGAL) fail("an illegal instruction at 0x{:x} would have executed", pc);
    known_++;
    return true;
  }

  // The instructions from pc up to `target`, none of them a branch (no atom came for one).
  void walk_to(uint64_t target, const char* what) {
    while (pc_ != target) {
      Insn in;
      if (!fetch(pc_, in)) return;
      if (is_waypoint(in))
        fail("the {} 0x{:x} lies beyond the branch at 0x{:x} ({})", what, target, pc_, disassemble(in, pc_));
      sink_.insn(pc_, in);
      pc_ += in.len;
    }
  }

  void atom(bool taken) {
    if (want_ != Want::None) fail("an atom while waiting for an address");
    direct_ = false;
    if (gap_) return;  // a branch in unknown code
    if (!have_pc_) fail("an atom before any address");
    Insn in;
    if (!fetch(pc_, in)) return;
    while (!is_waypoint(in)) {
      sink_.insn(pc_, in);
      pc_ += in.len;
      if (!fetch(pc_, in)) return;
    }
    sink_.insn(pc_, in);
    if (!taken) {
      if (!(in.flags() & kBranch)) fail("an N atom for the jump at 0x{:x} ({})", pc_, disassemble(in, pc_));
      pc_ += in.len;
    } else if (is_indirect(in)) {
      from_ = pc_;
      have_pc_ = false;
      want_ = Want::Target;
    } else {
      const uint64_t to = pc_ + static_cast<uint64_t>(in.imm);
      sink_.branch(pc_, to);
      from_ = pc_;
      pc_ = to;
      direct_ = true;
    }
  }

  void address(const Packet& pk) {
    const bool direct = std::exchange(direct_, false);
    switch (want_) {
      case Want::TraceOnAddress:
        if (!pk.context) fail("Trace On without an Address with Context packet");
        el_ = pk.el;
        pc_ = pk.addr;
        have_pc_ = true;
        sink_.trace_on(pc_, el_);
        break;
      case Want::Target:
        sink_.branch(from_, pk.addr);
        pc_ = pk.addr;
        have_pc_ = true;
        break;
      case Want::ExceptionReturn:
        if (have_pc_) walk_to(pk.addr, "exception's return address");
        epc_ = pk.addr;
        want_ = Want::ExceptionHandler;
        return;
      case Want::ExceptionHandler:
        if (!pk.context) fail("an exception's handler address without its context");
        el_ = pk.el;
        gap_ = false;
        sink_.exception(exception_type_, epc_, pk.addr, el_);
        sink_.branch(epc_, pk.addr);
        pc_ = pk.addr;
        have_pc_ = true;
        break;
      case Want::None:
        if (direct && !pk.context) {
          // Branch broadcasting (TRCCONFIGR.BB): a taken direct branch's target, which the
          // program gives already.
          if (pk.addr != pc_)
            fail("the address 0x{:x} after the branch at 0x{:x} is not its target 0x{:x}", pk.addr, from_, pc_);
          break;
        }
        if (gap_) {
          // The target of a jalr or xRET in unknown code, or a context change there.
          if (pk.context) el_ = pk.el;
          Insn probe;
          if (!code_.fetch(pk.addr, probe)) break;  // still unknown code
          pc_ = pk.addr;
          have_pc_ = true;
          gap_ = false;
          sink_.resume(pc_);
          break;
        }
        // A context change (xRET, satp) or the Address with Context after a periodic A-Sync:
        // straight-line code up to it.
        if (!pk.context) fail("an address packet with no jump or exception before it");
        if (have_pc_) walk_to(pk.addr, "context address");
        el_ = pk.el;
        pc_ = pk.addr;
        have_pc_ = true;
        if (gap_) {  // the walk left the ELF files
          gap_ = false;
          sink_.resume(pc_);
        }
        break;
    }
    want_ = Want::None;
  }

  const std::string& name_;
  const CodeImage& code_;
  FlowSink& sink_;
  size_t off_ = 0;
  Want want_ = Want::None;
  bool have_pc_ = false;
  bool gap_ = false;  // in code outside the ELF files: atoms ignored until the next address
  bool direct_ = false;  // the last P0 element was a taken direct branch, from_ to pc_
  uint64_t gaps_ = 0, known_ = 0, first_gap_ = 0;
  uint64_t pc_ = 0, from_ = 0, epc_ = 0;
  uint32_t exception_type_ = 0;
  uint8_t el_ = 3;
};

}  // namespace

void decode_flow(const std::vector<uint8_t>& stream, const std::string& name, const CodeImage& code, FlowSink& sink) {
  PacketParser parser(stream.data(), stream.size(), name);
  FlowDecoder d(name, code, sink);
  Packet pk;
  while (parser.next(pk)) d.packet(pk);
  d.finish();
  sink.end();
}

// ------------------------------------------------------------------------------ snapshot

namespace {

// section -> key -> value of a small ini file; throws brisk::Error when it cannot be read.
using Ini = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

Ini read_ini(const std::string& path) {
  uint64_t size = 0;
  const int fd = open_input(path, "trace snapshot file", size);
  ::close(fd);
  std::ifstream in(path);
  if (!in) throw Error("cannot read {}", printable(path));
  Ini ini;
  std::string section, line;
  for (unsigned n = 1; std::getline(in, line); n++) {
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') throw Error("{}:{}: a malformed section header", printable(path), n);
      section = line.substr(1, line.size() - 2);
      ini[section];
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string::npos) throw Error("{}:{}: expected KEY=VALUE", printable(path), n);
    ini[section].emplace_back(trim(line.substr(0, eq)), trim(line.substr(eq + 1)));
  }
  return ini;
}

std::string value(const Ini& ini, const std::string& section, const std::string& key, const std::string& path) {
  if (auto s = ini.find(section); s != ini.end())
    for (const auto& [k, v] : s->second)
      if (k == key) return v;
  throw Error("{}: no {} in [{}]", printable(path), key, section);
}

}  // namespace

std::vector<SnapshotStream> read_snapshot(const std::string& dir) {
  const std::string snap = dir + "/snapshot.ini";
  if (::access(snap.c_str(), F_OK) != 0)
    throw Error("{} is no trace snapshot: no snapshot.ini (brisk system --trace DIR writes one)", printable(dir));
  const Ini s = read_ini(snap);
  const Ini trace = read_ini(dir + "/" + value(s, "trace", "metadata", snap));
  // Buffer name -> file, and source -> buffer name.
  std::map<std::string, std::string> buffer_file, source_buffer;
  for (const auto& [sec, kv] : trace)
    if (sec.starts_with("buffer"))
      buffer_file[value(trace, sec, "name", dir + "/trace.ini")] = value(trace, sec, "file", dir + "/trace.ini");
  if (auto sb = trace.find("source_buffers"); sb != trace.end())
    for (const auto& [k, v] : sb->second) source_buffer[k] = v;

  std::vector<SnapshotStream> out;
  if (auto dl = s.find("device_list"); dl != s.end()) {
    for (const auto& [key, file] : dl->second) {
      const std::string path = dir + "/" + file;
      const Ini dev = read_ini(path);
      if (value(dev, "device", "class", path) != "trace_source") continue;
      const std::string type = value(dev, "device", "type", path), name = value(dev, "device", "name", path);
      if (type != "ETE") throw Error("{}: a {} trace source; brisk trace-decode reads ETE streams", printable(path), type);
      SnapshotStream st;
      if (!name.starts_with("ETE_") || name.size() == 4 || name.size() > 8 ||
          !std::all_of(name.begin() + 4, name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        throw Error("{}: the device name {} is not ETE_<hart>", printable(path), name);
      st.hart = static_cast<unsigned>(std::stoul(name.substr(4)));
      if (auto r = dev.find("regs"); r != dev.end())
        for (const auto& [k, v] : r->second) {
          size_t used = 0;
          uint64_t x = 0;
          try {
            x = std::stoull(v, &used, 0);
          } catch (const std::exception&) {
          }
          if (used != v.size() || v.empty()) throw Error("{}: {}={} is no number", printable(path), k, v);
          st.regs[k] = x;
        }
      // TRCDEVARCH names an ETE (Arm, architecture 0x5a13).
      if (auto a = st.regs.find("TRCDEVARCH"); a == st.regs.end() || (a->second & 0xffff) != 0x5a13)
        throw Error("{}: TRCDEVARCH is missing or no ETE's", printable(path));
      const auto b = source_buffer.find(name);
      if (b == source_buffer.end() || !buffer_file.count(b->second))
        throw Error("{}/trace.ini: no buffer for {}", printable(dir), name);
      st.path = dir + "/" + buffer_file[b->second];
      uint64_t size = 0;
      const int fd = open_input(st.path, "trace stream", size);
      st.bytes.resize(size);
      for (size_t got = 0; got < size;) {
        const ssize_t n = ::read(fd, st.bytes.data() + got, size - got);
        if (n <= 0) {
          ::close(fd);
          throw Error("cannot read {}", printable(st.path));
        }
        got += static_cast<size_t>(n);
      }
      ::close(fd);
      out.push_back(std::move(st));
    }
  }
  if (out.empty()) throw Error("{}/snapshot.ini names no ETE trace source", printable(dir));
  std::sort(out.begin(), out.end(), [](const SnapshotStream& a, const SnapshotStream& b) { return a.hart < b.hart; });
  return out;
}

// ------------------------------------------------------------------------------ trace-decode

namespace {

const char* cause_name(uint32_t type) {
  static const char* const kExceptions[] = {
      "instruction address misaligned", "instruction access fault", "illegal instruction", "breakpoint",
      "load address misaligned", "load access fault", "store/AMO address misaligned", "store/AMO access fault",
      "ecall from U-mode", "ecall from S-mode", nullptr, "ecall from M-mode", "instruction page fault",
      "load page fault", nullptr, "store/AMO page fault"};
  static const char* const kInterrupts[] = {nullptr, "S-mode software", nullptr, "M-mode software", nullptr,
                                            "S-mode timer", nullptr, "M-mode timer", nullptr, "S-mode external",
                                            nullptr, "M-mode external", nullptr, "counter overflow"};
  if (type & 0x200) {
    const uint32_t c = type & 0x1ff;
    return c < 14 && kInterrupts[c] ? kInterrupts[c] : "interrupt";
  }
  return type < 16 && kExceptions[type] ? kExceptions[type] : "exception";
}

// The listing goes to stdout or, with -o, to a file that appears whole or not at all.
class TextOut {
 public:
  explicit TextOut(const std::string& path) {
    if (!path.empty() && path != "-") file_ = std::make_unique<OutputFile>(path, "trace-decode output");
  }
  void write(const std::string& s) {
    buf_ += s;
    if (buf_.size() >= (1 << 16)) flush();
  }
  void finish() {
    flush();
    if (file_) file_->commit();
    else if (std::fflush(stdout) != 0) throw Error("cannot write the listing to stdout");
  }

 private:
  void flush() {
    if (file_) file_->write(buf_);
    else if (std::fwrite(buf_.data(), 1, buf_.size(), stdout) != buf_.size())
      throw Error("cannot write the listing to stdout");
    buf_.clear();
  }
  std::unique_ptr<OutputFile> file_;
  std::string buf_;
};

// Counts what it is fed, for the summary line.
struct CountingSink : FlowSink {
  DecodeSummary* sum = nullptr;
  void trace_on(uint64_t, uint8_t) override { sum->trace_ons++; }
  void insn(uint64_t, const Insn&) override { sum->instructions++; }
  void branch(uint64_t, uint64_t) override { sum->branches++; }
  void exception(uint32_t, uint64_t, uint64_t, uint8_t) override { sum->exceptions++; }
  void gap(uint64_t) override { sum->gaps++; }
};

// One line per executed instruction, "0x<pc>  <disassembly>", and "# " lines where trace
// (re)starts and where an exception or interrupt was taken.
class ListingSink final : public CountingSink {
 public:
  explicit ListingSink(TextOut& out) : out_(out) {}
  void trace_on(uint64_t pc, uint8_t el) override {
    CountingSink::trace_on(pc, el);
    out_.write(fmt::format("# trace on at 0x{:x} (EL{})\n", pc, el));
  }
  void insn(uint64_t pc, const Insn& in) override {
    CountingSink::insn(pc, in);
    out_.write(fmt::format("0x{:016x}  {}\n", pc, disassemble(in, pc)));
  }
  void exception(uint32_t type, uint64_t epc, uint64_t handler, uint8_t el) override {
    CountingSink::exception(type, epc, handler, el);
    out_.write(fmt::format("# {} {} ({}) at 0x{:x}, handler 0x{:x} (EL{})\n", type & 0x200 ? "interrupt" : "exception",
                           type & 0x1ff, cause_name(type), epc, handler, el));
  }
  void gap(uint64_t pc) override {
    CountingSink::gap(pc);
    out_.write(fmt::format("# no code at 0x{:x} in the ELF files: unknown until the next address\n", pc));
  }
  void resume(uint64_t pc) override { out_.write(fmt::format("# resumed at 0x{:x}\n", pc)); }

 private:
  TextOut& out_;
};

// perf inject --itrace=iNlD's samples: every N instructions one, at that instruction, with the
// last D taken branches (exceptions and xRETs included), youngest first. The history starts
// afresh where trace does: a branch stack never spans code that was not traced.
class SampleSink final : public CountingSink {
 public:
  SampleSink(profile::Sink& out, uint64_t period, unsigned depth) : out_(out), period_(period), depth_(depth) {}
  void trace_on(uint64_t pc, uint8_t el) override {
    CountingSink::trace_on(pc, el);
    ring_.clear();
  }
  void gap(uint64_t pc) override {
    CountingSink::gap(pc);
    ring_.clear();
  }
  void insn(uint64_t pc, const Insn& in) override {
    CountingSink::insn(pc, in);
    if (++count_ < period_) return;
    count_ = 0;
    profile::Sample s;
    s.ip = pc;
    s.period = period_;
    s.branches.assign(ring_.begin(), ring_.end());
    out_.sample(s);
    sum->samples++;
  }
  void branch(uint64_t from, uint64_t to) override {
    CountingSink::branch(from, to);
    profile::Branch b;
    b.from = from;
    b.to = to;
    ring_.push_front(b);
    if (ring_.size() > depth_) ring_.pop_back();
  }

 private:
  profile::Sink& out_;
  uint64_t period_, count_ = 0;
  unsigned depth_;
  std::deque<profile::Branch> ring_;
};

}  // namespace

void parse_itrace(const std::string& itrace, DecodeOptions& o) {
  // i[PERIOD] then optionally l[DEPTH]; perf's default period is 100000, its depth 64.
  auto bad = [&itrace]() {
    return Error("--itrace {}: expected i[PERIOD][l[DEPTH]], e.g. i100000l64 (a sample every PERIOD instructions "
                 "with the last DEPTH branches)",
                 printable(itrace));
  };
  size_t i = 0;
  auto number = [&](uint64_t& v) {
    const size_t start = i;
    while (i < itrace.size() && std::isdigit(static_cast<unsigned char>(itrace[i]))) i++;
    if (i == start) return;
    if (i - start > 12) throw bad();
    v = std::stoull(itrace.substr(start, i - start));
  };
  if (itrace.empty() || itrace[0] != 'i') throw bad();
  i = 1;
  number(o.period);
  if (i < itrace.size() && itrace[i] == 'l') {
    i++;
    uint64_t d = o.depth;
    number(d);
    if (d == 0 || d > 1024) throw Error("--itrace {}: the depth must be 1 to 1024", printable(itrace));
    o.depth = static_cast<unsigned>(d);
  }
  if (i != itrace.size()) throw bad();
  if (o.period == 0) throw Error("--itrace {}: the period must be at least 1", printable(itrace));
  o.samples = true;
}

DecodeSummary trace_decode(const DecodeOptions& o) {
  std::vector<SnapshotStream> streams = read_snapshot(o.dir);
  CodeImage code;
  for (size_t i = 0; i < o.elfs.size(); i++)
    code.add_elf(o.elfs[i], i == 0 ? "--elf" : "--vmlinux", i == 0 ? o.elf_base : UINT64_MAX);
  if (o.hart >= 0) {
    std::erase_if(streams, [&o](const SnapshotStream& s) { return s.hart != static_cast<unsigned>(o.hart); });
    if (streams.empty()) throw Error("--hart {}: {} has no stream for that hart", o.hart, printable(o.dir));
  }
  DecodeSummary sum;
  if (o.samples) {
    if (o.output.empty() || o.output == "-") throw Error("--itrace needs -o FILE, where the perf-script text goes");
    profile::Event ev;
    ev.name = "instructions";
    ev.period = o.period;
    std::unique_ptr<profile::Sink> out = profile::perf_script_writer(o.output, ev);
    // llvm-profgen places the program by its MMAP2 lines, as brisk system --record's --vmlinux.
    for (const CodeImage::Segment& s : code.segments()) {
      profile::Mapping m;
      m.start = s.vaddr & ~0xfffull;
      m.len = ((s.vaddr + s.size + 0xfff) & ~0xfffull) - m.start;
      m.pgoff = s.offset & ~0xfffull;
      m.prot = PROT_READ | PROT_EXEC;
      m.flags = MAP_PRIVATE;
      m.filename = m.host_path = s.path;
      out->mmap(m);
    }
    SampleSink sink(*out, o.period, o.depth);
    sink.sum = &sum;
    for (const SnapshotStream& s : streams) {
      decode_flow(s.bytes, s.path, code, sink);
      sum.streams++;
    }
    out->finish();
  } else {
    TextOut out(o.output);
    ListingSink sink(out);
    sink.sum = &sum;
    for (const SnapshotStream& s : streams) {
      auto reg = [&s](const char* n) { return s.regs.count(n) ? s.regs.at(n) : 0; };
      out.write(fmt::format("# hart {}: {}, {} bytes, TRCCONFIGR 0x{:x}\n", s.hart, s.path, s.bytes.size(),
                            reg("TRCCONFIGR")));
      decode_flow(s.bytes, s.path, code, sink);
      sum.streams++;
    }
    out.finish();
  }
  return sum;
}

}  // namespace brisk::ete
