// NS16550A UART as QEMU's virt machine has it at 0x10000000: 8-bit registers at consecutive bytes
// (reg-shift 0). Output goes to a host fd at once; input is read from a host fd in poll().
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>

#include "devices/device.h"

namespace brisk {

// Register offsets, bits and constants, named as in the National PC16550D datasheet.
namespace uart16550 {

constexpr uint64_t RBR = 0;  // receiver buffer (read, DLAB = 0)
constexpr uint64_t THR = 0;  // transmitter holding (write, DLAB = 0)
constexpr uint64_t DLL = 0;  // divisor latch LSB (DLAB = 1)
constexpr uint64_t IER = 1;  // interrupt enable (DLAB = 0)
constexpr uint64_t DLM = 1;  // divisor latch MSB (DLAB = 1)
constexpr uint64_t IIR = 2;  // interrupt identification (read)
constexpr uint64_t FCR = 2;  // FIFO control (write)
constexpr uint64_t LCR = 3;
constexpr uint64_t MCR = 4;
constexpr uint64_t LSR = 5;
constexpr uint64_t MSR = 6;
constexpr uint64_t SCR = 7;

constexpr uint8_t IER_ERBFI = 0x01;  // received data available
constexpr uint8_t IER_ETBEI = 0x02;  // transmitter holding register empty
constexpr uint8_t IER_ELSI = 0x04;   // receiver line status
constexpr uint8_t IER_MASK = 0x0f;  // the four enables; modem status (bit 3) never fires here

constexpr uint8_t IIR_NO_INT = 0x01;  // "interrupt pending" bit, active low
constexpr uint8_t IIR_ID_MASK = 0x0f;
constexpr uint8_t IIR_RLS = 0x06;  // receiver line status
constexpr uint8_t IIR_RDA = 0x04;  // received data available
constexpr uint8_t IIR_THRE = 0x02;
constexpr uint8_t IIR_FIFOS_ENABLED = 0xc0;

constexpr uint8_t FCR_FIFO_ENABLE = 0x01;
constexpr uint8_t FCR_RCVR_FIFO_RESET = 0x02;

constexpr uint8_t LCR_DLAB = 0x80;

constexpr uint8_t MCR_MASK = 0x1f;

constexpr uint8_t LSR_DR = 0x01;  // data ready
constexpr uint8_t LSR_OE = 0x02;  // overrun error
constexpr uint8_t LSR_THRE = 0x20;
constexpr uint8_t LSR_TEMT = 0x40;

constexpr uint8_t MSR_CTS = 0x10;
constexpr uint8_t MSR_DSR = 0x20;
constexpr uint8_t MSR_DCD = 0x80;

constexpr uint64_t kWindowSize = 0x100;
constexpr uint32_t kClockFrequency = 3686400;  // what QEMU's virt advertises; the divisor is not modelled

// Console escape, as QEMU's: Ctrl-A x quits, Ctrl-A Ctrl-A sends one Ctrl-A.
constexpr uint8_t kEscape = 0x01;
constexpr uint8_t kQuitKey = 'x';

// Host input waiting for the guest; bytes beyond it are dropped and reported as an overrun.
constexpr size_t kRxBufferSize = 4096;

}  // namespace uart16550

class Uart16550 final : public Device {
 public:
  // Raises PLIC source `source` on `irq`. Reads input from in_fd (< 0: none), writes output to
  // out_fd (< 0: discarded). on_quit runs when Ctrl-A x arrives. If in_fd is a terminal it is put in
  // raw mode until this object is destroyed or the process exits.
  Uart16550(IrqLine& irq, unsigned source, int in_fd, int out_fd, std::function<void()> on_quit);
  ~Uart16550() override;
  Uart16550(const Uart16550&) = delete;
  Uart16550& operator=(const Uart16550&) = delete;

  const char* name() const override { return "uart16550"; }
  // Any access size; a wider access reads or writes the register at `offset` through its low byte.
  bool read(uint64_t offset, unsigned size, uint64_t& value) override;
  bool write(uint64_t offset, unsigned size, uint64_t value) override;
  // Reads whatever input is waiting on in_fd, without blocking.
  uint64_t poll(uint64_t now) override;

  // Input bytes as typed on the host, console escape included (poll() feeds what it reads here).
  void receive(const uint8_t* data, size_t n);

 private:
  uint8_t read_reg(uint64_t offset);
  void write_reg(uint64_t offset, uint8_t v);
  uint8_t iir() const;
  void update_irq();

  IrqLine& irq_;
  unsigned source_;
  int in_fd_, out_fd_;
  std::function<void()> on_quit_;
  bool raw_terminal_ = false;

  uint8_t ier_ = 0, lcr_ = 0, mcr_ = 0, scr_ = 0, dll_ = 0, dlm_ = 0;
  bool fifo_enabled_ = false;
  bool overrun_ = false;       // LSR.OE until LSR is read
  bool thr_ipending_ = false;  // the THRE interrupt, armed by THR emptying or ETBEI rising
  bool escape_ = false;        // Ctrl-A seen, waiting for the next key
  std::deque<uint8_t> rx_;
};

}  // namespace brisk
