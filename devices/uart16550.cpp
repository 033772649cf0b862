#include "devices/uart16550.h"

#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace brisk {

using namespace uart16550;

namespace {

// The host terminal's settings before raw mode. Kept at file scope so that an exit() that never
// destroys the Uart still restores them.
int g_raw_fd = -1;
termios g_saved_termios;

void restore_terminal() {
  if (g_raw_fd >= 0) {
    tcsetattr(g_raw_fd, TCSANOW, &g_saved_termios);
    g_raw_fd = -1;
  }
}

bool enter_raw_mode(int fd) {
  if (g_raw_fd >= 0 || !isatty(fd) || tcgetattr(fd, &g_saved_termios) != 0) return false;
  static const bool registered = std::atexit(restore_terminal) == 0;
  (void)registered;
  termios t = g_saved_termios;
  // Every key goes to the guest untouched, Ctrl-C included (Ctrl-A x is the way out); output
  // post-processing stays on so that a bare "\n" from firmware still returns the carriage.
  t.c_iflag &= ~(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
  t.c_lflag &= ~(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
  t.c_cflag = (t.c_cflag & ~(CSIZE | PARENB)) | CS8;
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  if (tcsetattr(fd, TCSANOW, &t) != 0) return false;
  g_raw_fd = fd;
  return true;
}

void write_all(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // a closed console loses output; the guest cannot be told
    p += w;
    n -= static_cast<size_t>(w);
  }
}

}  // namespace

Uart16550::Uart16550(IrqLine& irq, unsigned source, int in_fd, int out_fd,
                     std::function<void()> on_quit)
    : irq_(irq), source_(source), in_fd_(in_fd), out_fd_(out_fd), on_quit_(std::move(on_quit)) {
  if (in_fd_ >= 0) raw_terminal_ = enter_raw_mode(in_fd_);
}

Uart16550::~Uart16550() {
  if (raw_terminal_) restore_terminal();
}

bool Uart16550::read(uint64_t offset, unsigned size, uint64_t& value) {
  value = read_reg(offset);
  return true;
}

bool Uart16550::write(uint64_t offset, unsigned size, uint64_t value) {
  write_reg(offset, static_cast<uint8_t>(value));
  return true;
}

uint8_t Uart16550::iir() const {
  uint8_t id = IIR_NO_INT;
  if ((ier_ & IER_ELSI) && overrun_) {
    id = IIR_RLS;
  } else if ((ier_ & IER_ERBFI) && !rx_.empty()) {
    id = IIR_RDA;
  } else if ((ier_ & IER_ETBEI) && thr_ipending_) {
    id = IIR_THRE;
  }
  return id | (fifo_enabled_ ? IIR_FIFOS_ENABLED : 0);
}

void Uart16550::update_irq() { irq_.set_irq(source_, !(iir() & IIR_NO_INT)); }

uint8_t Uart16550::read_reg(uint64_t offset) {
  const bool dlab = lcr_ & LCR_DLAB;
  switch (offset) {
    case RBR: {
      if (dlab) return dll_;
      if (rx_.empty()) return 0;
      uint8_t c = rx_.front();
      rx_.pop_front();
      update_irq();
      return c;
    }
    case IER:
      return dlab ? dlm_ : ier_;
    case IIR: {
      uint8_t v = iir();
      // Reading IIR acknowledges a THRE interrupt, but only when it is the one reported.
      if ((v & IIR_ID_MASK) == IIR_THRE) {
        thr_ipending_ = false;
        update_irq();
      }
      return v;
    }
    case LCR:
      return lcr_;
    case MCR:
      return mcr_;
    case LSR: {
      // Output is immediate, so the transmitter is always empty.
      uint8_t v = LSR_THRE | LSR_TEMT | (rx_.empty() ? 0 : LSR_DR) | (overrun_ ? LSR_OE : 0);
      if (overrun_) {
        overrun_ = false;
        update_irq();
      }
      return v;
    }
    case MSR:
      return MSR_DCD | MSR_DSR | MSR_CTS;  // a modem that is always there
    case SCR:
      return scr_;
    default:
      return 0;
  }
}

void Uart16550::write_reg(uint64_t offset, uint8_t v) {
  const bool dlab = lcr_ & LCR_DLAB;
  switch (offset) {
    case THR:
      if (dlab) {
        dll_ = v;
        return;
      }
      if (out_fd_ >= 0) write_all(out_fd_, &v, 1);
      // Writing THR clears the THRE interrupt; the byte leaves at once, so THR is empty again and
      // the interrupt is re-armed, as on a real 16550 once the character has moved out.
      thr_ipending_ = true;
      update_irq();
      return;
    case IER: {
      if (dlab) {
        dlm_ = v;
        return;
      }
      uint8_t rising = (v & ~ier_) & IER_MASK;
      ier_ = v & IER_MASK;
      // Enabling ETBEI while THR is empty raises the interrupt even if an IIR read had
      // acknowledged it (Linux's THRE probe at startup relies on it); disabling it drops it.
      if (rising & IER_ETBEI) thr_ipending_ = true;
      if (!(ier_ & IER_ETBEI)) thr_ipending_ = false;
      update_irq();
      return;
    }
    case FCR:
      fifo_enabled_ = v & FCR_FIFO_ENABLE;
      if (v & FCR_RCVR_FIFO_RESET) rx_.clear();
      update_irq();
      return;
    case LCR:
      lcr_ = v;
      return;
    case MCR:
      mcr_ = v & MCR_MASK;  // loopback is not modelled
      return;
    case SCR:
      scr_ = v;
      return;
    default:
      return;  // LSR and MSR are read-only
  }
}

void Uart16550::receive(const uint8_t* data, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint8_t c = data[i];
    if (escape_) {
      escape_ = false;
      if (c == kQuitKey) {
        if (on_quit_) on_quit_();
        continue;
      }
      if (c != kEscape) continue;  // other escape commands are swallowed, as QEMU's unknown ones
    } else if (c == kEscape) {
      escape_ = true;
      continue;
    }
    if (rx_.size() < kRxBufferSize) {
      rx_.push_back(c);
    } else {
      overrun_ = true;
    }
  }
  update_irq();
}

uint64_t Uart16550::poll(uint64_t now) {
  if (in_fd_ < 0) return UINT64_MAX;
  pollfd p{in_fd_, POLLIN, 0};
  if (::poll(&p, 1, 0) <= 0) return UINT64_MAX;
  uint8_t buf[256];
  ssize_t n = ::read(in_fd_, buf, sizeof buf);
  if (n > 0) {
    receive(buf, static_cast<size_t>(n));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    in_fd_ = -1;  // end of input: stop asking
  }
  return UINT64_MAX;
}

}  // namespace brisk
