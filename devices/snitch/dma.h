// The Snitch cluster's DMA engine as the DMA core's Xdma instructions drive it, with a cycle-level
// model of its 512-bit AXI port (docs/snitch.md, "DMA"): bursts split at 4 KiB, one address, one
// read beat and one write beat per cycle at most, memory_latency() for reads and write responses,
// a 256-byte realignment buffer. The bytes move through snitch::Memory as the beats happen.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "devices/snitch/perf_counters.h"

namespace brisk::snitch {

// The memory the DMA reads and writes, by physical address (the machine's bus). False: nothing
// there, or the access was refused.
struct Memory {
  virtual ~Memory() = default;
  virtual bool read(uint64_t addr, uint8_t* data, uint64_t size) = 0;
  virtual bool write(uint64_t addr, const uint8_t* data, uint64_t size) = 0;
};

// A Memory whose bytes the host holds: implementations say where [addr, addr + size) is, or
// nullptr.
struct HostMemory : Memory {
  virtual uint8_t* at(uint64_t addr, uint64_t size) = 0;
  bool read(uint64_t addr, uint8_t* data, uint64_t size) override;
  bool write(uint64_t addr, const uint8_t* data, uint64_t size) override;
};

class Dma {
 public:
  static constexpr unsigned kBeatBytes = 64;  // the 512-bit bus
  static constexpr uint64_t kPageBytes = 4096;
  static constexpr unsigned kBufferBytes = 256;
  static constexpr unsigned kMaxOutstanding = 8;  // AR (and AW) bursts in flight
  static constexpr unsigned kQueueDepth = 4;      // transfers accepted before dmcpy would block
  // DMCPY config bits.
  static constexpr uint32_t kConfig2d = 1u << 1;
  // DMSTAT status values.
  enum Status : unsigned { kCompletedId = 0, kNextId = 1, kBusy = 2, kWouldBlock = 3 };

  Dma(PerfCounters& counters, Memory& memory) : counters_(counters), memory_(memory) {}

  // DMSRC, DMDST, DMSTR, DMREP: the parameters the next DMCPY takes.
  void set_source(uint64_t addr) { src_ = addr; }
  void set_destination(uint64_t addr) { dst_ = addr; }
  void set_strides(uint64_t src_stride, uint64_t dst_stride) {
    src_stride_ = src_stride;
    dst_stride_ = dst_stride;
  }
  void set_repetitions(uint32_t reps) { reps_ = reps; }

  // DMCPY at `cycle`: queues a copy of `size` bytes, or with kConfig2d of `reps` rows of `size`
  // bytes, the source and destination advancing by their strides after each row. The other config
  // bits (decouple, channel) change nothing here: one engine serves every channel in order.
  // Returns the transfer's id (ids count from 1; completed id 0 means none yet). The queue takes
  // it even when full: the caller stalls the issuing hart while queued() > kQueueDepth.
  uint32_t copy(uint64_t cycle, uint32_t size, uint32_t config);

  // DMSTAT: completed id, next id, busy (a transfer queued or running), would block (a DMCPY now
  // would wait); other values read 0.
  uint32_t status(uint32_t which) const;
  uint64_t queued() const { return queue_.size(); }

  // Runs the engine through cycle `cycle` inclusive. With `stop_on_completion`, stops right after
  // the first cycle in which a transfer completes. Returns the last cycle run (`cycle` when idle).
  uint64_t run(uint64_t cycle, bool stop_on_completion = false);
  uint64_t bus_errors() const { return bus_errors_; }

 private:
  struct Transfer {
    uint32_t id;
    uint64_t src, dst, src_stride, dst_stride;
    uint32_t size, rows;
    uint64_t not_before;  // the cycle after its DMCPY
  };
  // One side's walk over the rows of a transfer, a burst at a time.
  struct Cursor {
    uint32_t row = 0;
    uint32_t offset = 0;  // within the row
  };
  // A burst in flight: [addr, addr + size), one page at most.
  struct Burst {
    uint64_t addr;
    uint64_t size;
    uint64_t done = 0;   // bytes handed over by finished beats
    uint64_t ready = 0;  // read bursts: the cycle the first beat can arrive
  };

  static bool exhausted(const Transfer& t, const Cursor& c);
  static bool next_burst(const Transfer& t, Cursor& c, bool source, Burst& burst);
  // The AR (source) or AW handshake of the next burst, unless none is left or kMaxOutstanding are
  // in flight.
  void issue(std::deque<Burst>& bursts, Cursor& c, bool source, uint64_t cycle);
  static uint64_t beats(uint64_t addr, uint64_t size);
  static uint64_t beat_bytes(const Burst& b);
  void step(uint64_t cycle);

  PerfCounters& counters_;
  Memory& memory_;
  uint64_t src_ = 0, dst_ = 0, src_stride_ = 0, dst_stride_ = 0;
  uint32_t reps_ = 0;
  uint32_t next_id_ = 1;
  uint32_t completed_id_ = 0;
  uint64_t cycle_ = 0;  // the last cycle run
  uint64_t bus_errors_ = 0;

  std::deque<Transfer> queue_;  // the front one runs
  Cursor read_, write_;
  std::deque<Burst> reads_, writes_;
  std::deque<uint64_t> responses_;  // the cycles pending B responses arrive
  std::deque<uint8_t> buffer_;
};

}  // namespace brisk::snitch
