// The small interface MMIO devices see (docs/architecture.md, "Where each concern lives"): reads and
// writes at an offset of their window, a clock, and interrupt lines. Devices know nothing of harts'
// internals or the JIT.
#pragma once

#include <cstdint>

namespace brisk {

struct Device {
  virtual ~Device() = default;
  virtual const char* name() const = 0;
  // One access of 1, 2, 4 or 8 bytes at `offset` inside the window. False: the access faults
  // (the hart raises an access fault).
  virtual bool read(uint64_t offset, unsigned size, uint64_t& value) = 0;
  virtual bool write(uint64_t offset, unsigned size, uint64_t value) = 0;
  // For a device that is plain memory (an SRAM): host bytes of [offset, offset + size), which
  // atomics act on in place. nullptr for any other device: atomics on it fault.
  virtual uint8_t* memory(uint64_t offset, uint64_t size) { return nullptr; }
  // Called by the machine between slices of execution, with the current time: polls input,
  // re-evaluates timers. Returns the next time (in timebase ticks) the device wants to be polled
  // again for a deadline of its own, or UINT64_MAX.
  virtual uint64_t poll(uint64_t now) { return UINT64_MAX; }
};

// Interrupt pending bits a device drives in a hart's mip (csr/privileged.h: IRQ_M_SOFT, IRQ_M_TIMER,
// IRQ_S_EXT, IRQ_M_EXT).
// Level-triggered: set(level) holds until changed.
struct InterruptSink {
  virtual ~InterruptSink() = default;
  virtual void set_mip(unsigned hart, unsigned bit, bool level) = 0;
};

// A level-triggered interrupt source wire into an interrupt controller (PLIC source number).
struct IrqLine {
  virtual ~IrqLine() = default;
  virtual void set_irq(unsigned source, bool level) = 0;
};

// The machine's timebase: mtime, in ticks of timebase-frequency. M-mode may set it.
struct Clock {
  virtual ~Clock() = default;
  virtual uint64_t now() const = 0;
  virtual void set(uint64_t now) = 0;
};

}  // namespace brisk
