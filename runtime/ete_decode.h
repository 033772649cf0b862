// brisk trace-decode (docs/ete.md, "Decoding"): the packets ete::PacketEncoder writes
// (devices/ete_packets.cpp), parsed back, and the RISC-V program flow they describe, rebuilt by
// walking the program's code from each address to each branch with brisk's own decoder.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "csr/extensions.h"
#include "jit/insn.h"

namespace brisk::ete {

// One packet of the stream, as the encoder wrote it.
struct Packet {
  enum Type : uint8_t {
    Async,
    TraceInfo,    // cc: cycle counting on; value: the CC threshold
    TraceOn,
    Address,      // addr; context: an Address with Context packet (el, ns, context_id, vmid)
    Atoms,        // atoms: bit i is the i-th oldest (1 = E); atom_count of them
    Exception,    // exception_type: the RISC-V cause, + 0x200 for interrupts
    Event,        // value: the events (bit n = EVENTn)
    Timestamp,    // value
    CycleCount,   // value: the count above the threshold (cc_unknown: none given)
  };
  Type type = Async;
  size_t offset = 0;  // of its header in the stream
  uint64_t addr = 0;
  bool context = false, ns = false, cc = false, cc_unknown = false;
  uint8_t el = 0;
  uint32_t context_id = 0, vmid = 0;
  uint32_t atoms = 0;
  unsigned atom_count = 0;
  uint32_t exception_type = 0;
  uint64_t value = 0;
};

// Splits a stream into packets. Short addresses complete against the last address, as the
// encoder compresses them. next() throws brisk::Error, "NAME: offset N: ...", on a header the
// encoder does not write or a packet cut short.
class PacketParser {
 public:
  PacketParser(const uint8_t* data, size_t size, std::string name) : p_(data), size_(size), name_(std::move(name)) {}
  // False at the end of the stream.
  bool next(Packet& pk);

 private:
  uint8_t byte(size_t header);
  uint64_t cont_field(size_t header, unsigned max_bytes);
  uint64_t address64(size_t header);

  const uint8_t* p_;
  size_t size_, pos_ = 0;
  std::string name_;
  uint64_t last_address_ = 0;
};

// What the flow decoder found, in program order.
struct FlowSink {
  virtual ~FlowSink() = default;
  // Trace (re)starts at pc: what ran since the last element is unknown.
  virtual void trace_on(uint64_t pc, uint8_t el) = 0;
  // An executed instruction.
  virtual void insn(uint64_t pc, const Insn& in) = 0;
  // A taken branch, jump or xRET (after its insn), or an exception (after exception()).
  virtual void branch(uint64_t from, uint64_t to) = 0;
  // An exception or interrupt: epc is the preferred return address, the handler runs at el.
  virtual void exception(uint32_t type, uint64_t epc, uint64_t handler, uint8_t el) = 0;
  // No ELF file has code at pc: what runs is unknown until resume() (or trace_on(), or an
  // exception's handler).
  virtual void gap(uint64_t) {}
  // The flow goes on at pc after a gap (a jalr's or xRET's target, a context change).
  virtual void resume(uint64_t) {}
  // The end of one hart's stream.
  virtual void end() {}
};

// The program's code: the executable PT_LOAD segments of the ELF files given.
class CodeImage {
 public:
  // Throws brisk::Error naming the file (`what`: "--elf", "--vmlinux") when it is no RISC-V ELF
  // or has no executable segment.
  // `base`: where the first executable segment was loaded, for a position-independent image
  // (OpenSBI's fw_*.elf link at 0); UINT64_MAX: at its link address.
  void add_elf(const std::string& path, const char* what, uint64_t base = UINT64_MAX);
  // Code at vaddr, for tests.
  void add_code(uint64_t vaddr, std::vector<uint8_t> bytes) {
    segs_.push_back({vaddr, 0, bytes.size(), std::move(bytes), "code"});
  }
  // The instruction at pc, false when pc is outside every segment (or the parcel is cut).
  bool fetch(uint64_t pc, Insn& in) const;
  struct Segment {
    uint64_t vaddr = 0, offset = 0, size = 0;  // size: the bytes the file holds (p_filesz)
    std::vector<uint8_t> bytes;
    std::string path;
  };
  const std::vector<Segment>& segments() const { return segs_; }
  unsigned xlen() const { return xlen_; }

 private:
  std::vector<Segment> segs_;
  IsaConfig isa_;
  unsigned xlen_ = 64;
};

// Decodes one hart's stream into `sink`. Throws brisk::Error ("NAME: offset N: ...") where the
// stream and the program disagree: an N atom for a jump, an illegal instruction on the way, an
// exception whose return address lies beyond a branch, an address nothing asked for. Code outside
// every ELF file is a gap, not an error, unless the stream never runs code inside one.
void decode_flow(const std::vector<uint8_t>& stream, const std::string& name, const CodeImage& code, FlowSink& sink);

// One trace unit of an OpenCSD snapshot directory (ete::write_snapshot).
struct SnapshotStream {
  unsigned hart = 0;
  std::map<std::string, uint64_t> regs;  // ETE_N.ini's [regs]
  std::string path;                      // ete_N.bin
  std::vector<uint8_t> bytes;
};

// Reads DIR/snapshot.ini's ETE_N.ini devices and their streams. Throws brisk::Error with one line
// when the directory, an ini file or a stream is missing or malformed, or is no ETE's.
std::vector<SnapshotStream> read_snapshot(const std::string& dir);

}  // namespace brisk::ete

namespace brisk::ete {

// brisk trace-decode's options (tools/main.cpp).
struct DecodeOptions {
  std::string dir;                // the snapshot
  std::vector<std::string> elfs;  // --elf, then --vmlinux
  uint64_t elf_base = UINT64_MAX;  // --elf-base: where --elf's first executable segment was loaded
  std::string output;             // -o; empty: the listing on stdout
  bool samples = false;           // --itrace: perf-script brstack samples instead of the listing
  uint64_t period = 100000;       // instructions per sample
  unsigned depth = 64;            // branches per sample, at most
  int hart = -1;                  // --hart; -1: every stream
};

struct DecodeSummary {
  uint64_t instructions = 0, branches = 0, exceptions = 0, trace_ons = 0, samples = 0, gaps = 0;
  unsigned streams = 0;
};

// Parses `itrace` ("i100000l64" as perf's --itrace: i and the period, l and the depth) into o;
// throws brisk::Error with one line when it is malformed.
void parse_itrace(const std::string& itrace, DecodeOptions& o);

// Reads the snapshot and the ELF files and writes the listing or the samples.
DecodeSummary trace_decode(const DecodeOptions& o);

}  // namespace brisk::ete
