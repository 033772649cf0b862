// ETE trace packets for an EteUnit's trace elements (devices/ete.h), and the OpenCSD snapshot
// directory that Arm's trace tools (trc_pkt_lister) read them from (docs/ete.md, "The stream").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devices/ete.h"

namespace brisk::ete {

// The exception type an exception packet carries for a RISC-V trap: the cause itself, plus 0x200
// for interrupts (10 bits, with the packet's second type byte from 32 up).
constexpr uint32_t exception_type(uint64_t cause, bool interrupt) {
  return static_cast<uint32_t>(cause & 0x1ff) | (interrupt ? 0x200 : 0);
}

// Encodes trace elements as the packets an ETE emits: A-Sync, Trace Info, Trace On, Address with
// Context (64-bit, IS1: RISC-V instructions are 2-byte aligned), short and long IS1 addresses
// against the last address, atoms (packed into F6, F3, F2 and F1 packets before the next other
// packet, at 24 pending atoms, and at stop), exceptions, events, and A-Sync + Trace Info again
// every 2^TRCSYNCPR bytes at the next branch or Trace On. With TRCCONFIGR.TS and a clock, a
// Timestamp packet of the clock's time follows each Trace Info and each TRCTSCTLR event. With
// TRCCONFIGR.CCI, a Cycle Count packet follows the atom of each branch at least
// TRCCCCTLR.THRESHOLD cycles after the last counted one (or the enable).
class PacketEncoder final : public TraceSink {
 public:
  explicit PacketEncoder(const Clock* clock = nullptr) : clock_(clock) {}
  const std::vector<uint8_t>& bytes() const { return out_; }

  void start(uint32_t trcconfigr, uint32_t trcsyncpr, uint32_t trcccctlr) override;
  void trace_on(uint64_t pc, El el, uint32_t context_id, uint32_t vmid) override;
  void branch(const Retired& r, uint64_t cycle, bool broadcast) override;
  void exception(uint64_t cause, bool interrupt, uint64_t epc, uint64_t handler, El el) override;
  void context(uint64_t pc, El el, uint32_t context_id, uint32_t vmid) override;
  void event(unsigned events) override;
  void timestamp() override;
  void stop() override { flush_atoms(); }

 private:
  // Every packet but an atom starts here: the atoms before it go out first.
  void put_header(uint8_t b) {
    flush_atoms();
    out_.push_back(b);
  }
  void put(uint8_t b) { out_.push_back(b); }
  void flush_atoms();
  void sync();
  void sync_if_due(uint64_t pc);
  void address(uint64_t a);
  void address_context(uint64_t a);
  void cont_field(uint64_t v, unsigned max_bytes);

  const Clock* clock_;
  std::vector<uint8_t> out_;
  uint32_t configr_ = 0;
  uint32_t cc_threshold_ = 0;
  uint64_t last_cc_cycle_ = 0;
  uint64_t sync_period_ = 0;  // bytes; 0: no periodic synchronization
  size_t last_sync_ = 0;      // out_.size() at the last A-Sync
  uint64_t last_address_ = 0;
  uint32_t atoms_ = 0;  // pending atoms, oldest in bit 0, 1 = E
  unsigned atom_count_ = 0;
  El el_ = El::EL3;
  uint32_t context_id_ = 0, vmid_ = 0;
};

// One trace unit's part of a snapshot: its registers as a decoder needs them, and its stream.
struct SnapshotSource {
  uint32_t trcconfigr = 0, trctraceidr = 0, trcidr0 = 0, trcidr1 = 0, trcidr2 = 0, trcidr8 = 0, trcdevarch = 0;
  std::vector<uint8_t> stream;
};

// The registers of `unit` a snapshot needs (read through its external debug interface).
SnapshotSource snapshot_source(EteUnit& unit);

// Writes an OpenCSD snapshot directory: snapshot.ini, cpu_<n>.ini and ETE_<n>.ini per source,
// trace.ini, and each stream unformatted in ete_<n>.bin. The directory is created if missing.
// Throws brisk::Error naming the file that cannot be written.
void write_snapshot(const std::string& dir, const std::vector<SnapshotSource>& sources);

}  // namespace brisk::ete
