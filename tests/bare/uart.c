/* The ns16550a UART: line status (THRE, TEMT), the divisor latch behind DLAB, the scratch
 * register, IIR, and a line of text through THR that CTest matches on the console. */
#include "bare.h"
#include "check.h"

#define RBR_THR 0
#define IER 1
#define IIR 2
#define LCR 3
#define LSR 5
#define SCR 7
#define LCR_DLAB 0x80
#define LCR_8N1 0x03
#define LSR_THRE 0x20
#define LSR_TEMT 0x40
#define IIR_NO_INT 0x01
#define IIR_ID 0x0e
#define IIR_THRE 0x02

static uint8_t reg(unsigned r) { return mmio_read8(UART_BASE + r); }
static void set_reg(unsigned r, uint8_t v) { mmio_write8(UART_BASE + r, v); }

/* Waits (boundedly) for all of `bits` in LSR. */
static void wait_lsr(uint8_t bits) {
  for (int i = 0; i < 1000000 && (reg(LSR) & bits) != bits; i++) {
  }
  CHECK(bits, reg(LSR) & bits);
}

int main(void) {
  wait_lsr(LSR_THRE | LSR_TEMT);

  set_reg(LCR, LCR_DLAB | LCR_8N1);
  set_reg(RBR_THR, 0x01); /* DLL: 115200 baud */
  set_reg(IER, 0x00);     /* DLM */
  CHECK(0x01, reg(RBR_THR));
  CHECK(0x00, reg(IER));
  CHECK(LCR_DLAB | LCR_8N1, reg(LCR));
  set_reg(LCR, LCR_8N1);
  CHECK(LCR_8N1, reg(LCR));

  set_reg(SCR, 0x5a);
  CHECK(0x5a, reg(SCR));

  CHECK(IIR_NO_INT, reg(IIR) & IIR_NO_INT);
  set_reg(IER, IER_ETBEI);
  CHECK(IIR_THRE, reg(IIR) & (IIR_ID | IIR_NO_INT));
  CHECK(IIR_NO_INT, reg(IIR) & IIR_NO_INT); /* reading IIR acknowledged it */
  set_reg(IER, 0);

  for (const char *s = "uart: the quick brown fox\n"; *s; s++) {
    wait_lsr(LSR_THRE);
    set_reg(RBR_THR, (uint8_t)*s);
  }
  wait_lsr(LSR_THRE | LSR_TEMT);
  return 0;
}
