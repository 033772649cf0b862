/* Trap dispatch, console, exit and page tables for the bare-metal tests (see bare.h). */
#include "bare.h"
#include "check.h"

#ifndef TEST_NAME
#error "compile with -DTEST_NAME=\"name\""
#endif

/* a7 of the ecall by which s_trap hands an unexpected S-mode trap to M: a0..a2 = cause, epc, tval. */
#define STRAP_MAGIC 0x53545250

#define UART_THR 0
#define UART_LSR 5
#define LSR_THRE 0x20

extern volatile uint64_t tohost;
__attribute__((noreturn)) void run_return(uint64_t value);

static trap_fn m_handler, s_handler;
volatile struct trap_rec m_rec, s_rec;
volatile uint64_t resume_at;
void (*volatile secondary_entry)(void);
struct frame run_exit;

void set_m_handler(trap_fn fn) { m_handler = fn; }
void set_s_handler(trap_fn fn) { s_handler = fn; }

static void putc_uart(char c) {
  while (!(mmio_read8(UART_BASE + UART_LSR) & LSR_THRE)) {
  }
  mmio_write8(UART_BASE + UART_THR, (uint8_t)c);
}

void putstr(const char *s) {
  while (*s) putc_uart(*s++);
}

#include "puthex.h"

static void putdec(uint64_t v) {
  char buf[21];
  int n = 20;
  buf[n] = 0;
  do {
    buf[--n] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  putstr(buf + n);
}

void bare_exit(int code) {
  if (code == 0) putstr("PASS " TEST_NAME "\n");
  /* HTIF first, for brisk (and spike); it notices tohost within a time slice. Machines without
     HTIF, like QEMU virt, get there after the wait and stop at the sifive_test finisher. */
  tohost = ((uint64_t)code << 1) | 1;
  for (volatile uint32_t i = 0; i < 2000000; i++) {
  }
  mmio_write32(TEST_FINISHER, code ? ((uint32_t)code << 16) | 0x3333 : 0x5555);
  for (;;) __asm__ volatile("wfi");
}

void bare_fail(uint64_t line, uint64_t expected, uint64_t got) {
  register uint64_t a0 __asm__("a0") = line;
  register uint64_t a1 __asm__("a1") = expected;
  register uint64_t a2 __asm__("a2") = got;
  register uint64_t a7 __asm__("a7") = FAIL_MAGIC;
  __asm__ volatile("ecall" ::"r"(a0), "r"(a1), "r"(a2), "r"(a7) : "memory");
  __builtin_unreachable();
}

__attribute__((noreturn)) static void report_trap(const char *mode, uint64_t cause, uint64_t epc, uint64_t tval) {
  putstr("FAIL " TEST_NAME ": unexpected trap into ");
  putstr(mode);
  putstr(": cause ");
  puthex(cause);
  putstr(" epc ");
  puthex(epc);
  putstr(" tval ");
  puthex(tval);
  putstr("\n");
  bare_exit(1);
}

static int is_ecall(uint64_t cause) {
  return cause == CAUSE_ECALL_U || cause == CAUSE_ECALL_S || cause == CAUSE_ECALL_M;
}

void m_trap(struct frame *f) {
  if (is_ecall(f->cause)) {
    switch (f->x[17]) {
      case RUN_MAGIC:
        run_exit = *f;
        run_return(f->x[10]);
      case FAIL_MAGIC:
        putstr("FAIL " TEST_NAME ": check ");
        putdec(f->x[10]);
        putstr(": expected ");
        puthex(f->x[11]);
        putstr(" got ");
        puthex(f->x[12]);
        putstr("\n");
        bare_exit(1);
      case STRAP_MAGIC:
        report_trap("S", f->x[10], f->x[11], f->x[12]);
    }
  }
  if (!m_handler) report_trap("M", f->cause, f->epc, f->tval);
  m_handler(f);
}

/* Passes the runtime's own ecalls from U on to M, where they are handled. */
static void forward_to_m(uint64_t a0v, uint64_t a1v, uint64_t a2v, uint64_t a7v) {
  register uint64_t a0 __asm__("a0") = a0v;
  register uint64_t a1 __asm__("a1") = a1v;
  register uint64_t a2 __asm__("a2") = a2v;
  register uint64_t a7 __asm__("a7") = a7v;
  __asm__ volatile("ecall" ::"r"(a0), "r"(a1), "r"(a2), "r"(a7) : "memory");
}

void s_trap(struct frame *f) {
  if (f->cause == CAUSE_ECALL_U && (f->x[17] == RUN_MAGIC || f->x[17] == FAIL_MAGIC))
    forward_to_m(f->x[10], f->x[11], f->x[12], f->x[17]);
  if (!s_handler) forward_to_m(f->cause, f->epc, f->tval, STRAP_MAGIC);
  s_handler(f);
}

static uint64_t insn_length(uint64_t pc) { return (*(volatile uint16_t *)pc & 3) == 3 ? 4 : 2; }

static void record(volatile struct trap_rec *r, struct frame *f) {
  r->count++;
  r->cause = f->cause;
  r->epc = f->epc;
  r->tval = f->tval;
  r->status = f->status;
  r->slot = f->slot;
  if (f->cause & CAUSE_INTERRUPT) return;
  if (resume_at) {
    f->epc = resume_at;
    resume_at = 0;
  } else {
    f->epc += insn_length(f->epc);
  }
}

void record_m(struct frame *f) { record(&m_rec, f); }
void record_s(struct frame *f) { record(&s_rec, f); }

void clear_recs(void) {
  m_rec.count = m_rec.cause = m_rec.epc = m_rec.tval = m_rec.status = 0;
  s_rec.count = s_rec.cause = s_rec.epc = s_rec.tval = s_rec.status = 0;
  m_rec.slot = s_rec.slot = 0;
}

/* Page tables */

#define PT_POOL_PAGES 64
static uint64_t pt_pool[PT_POOL_PAGES][512] __attribute__((aligned(4096)));
static unsigned pt_used, pt_levels;
static uint64_t *pt_root;

static uint64_t *pt_alloc(void) {
  CHECK(1, pt_used < PT_POOL_PAGES);
  uint64_t *t = pt_pool[pt_used++];
  for (int i = 0; i < 512; i++) t[i] = 0;
  return t;
}

void pt_init(unsigned levels) {
  pt_used = 0;
  pt_levels = levels;
  pt_root = pt_alloc();
}

uint64_t *pt_map(uint64_t va, uint64_t pa, unsigned level, uint64_t flags) {
  uint64_t *t = pt_root;
  for (unsigned l = pt_levels - 1; l > level; l--) {
    uint64_t *e = &t[(va >> (12 + 9 * l)) & 511];
    if (!(*e & PTE_V)) *e = ((uint64_t)pt_alloc() >> 12) << 10 | PTE_V;
    t = (uint64_t *)((*e >> 10) << 12);
  }
  uint64_t *e = &t[(va >> (12 + 9 * level)) & 511];
  *e = (pa >> 12) << 10 | flags | PTE_V;
  return e;
}

void pt_map_image(uint64_t code_flags, uint64_t data_flags) {
  for (uint64_t a = (uint64_t)_start; a < (uint64_t)_end; a += PAGE_SIZE)
    pt_map(a, a, 0, a < (uint64_t)_text_end ? code_flags : data_flags);
}

void vm_on(void) {
  csr_write(satp, (uint64_t)(pt_levels + 5) << 60 | (uint64_t)pt_root >> 12);
  sfence_vma();
}

void vm_off(void) {
  csr_write(satp, 0);
  sfence_vma();
}
