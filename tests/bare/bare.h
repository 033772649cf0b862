/* Runtime of the bare-metal privileged-architecture tests (crt0.S, runtime.c).
 *
 * A test is a C program whose main() runs in M-mode and returns 0 when every CHECK held. M-mode
 * traps go to the handler installed with set_m_handler, delegated ones to set_s_handler; with
 * none installed, a trap is reported as a failure. run_in() calls a function in S or U mode.
 */
#ifndef BARE_H
#define BARE_H

#include <stdint.h>

#include "csr_ops.h"
#include "frame.h"

#define PRIV_U 0
#define PRIV_S 1
#define PRIV_M 3

/* mstatus / sstatus */
#define MSTATUS_SIE (1ul << 1)
#define MSTATUS_MIE (1ul << 3)
#define MSTATUS_SPIE (1ul << 5)
#define MSTATUS_MPIE (1ul << 7)
#define MSTATUS_SPP (1ul << 8)
#define MSTATUS_MPP (3ul << 11)
#define MSTATUS_MPP_SHIFT 11
#define MSTATUS_MPRV (1ul << 17)
#define MSTATUS_SUM (1ul << 18)
#define MSTATUS_MXR (1ul << 19)
#define MSTATUS_TVM (1ul << 20)
#define MSTATUS_TW (1ul << 21)
#define MSTATUS_TSR (1ul << 22)

/* Interrupt numbers, and the mip/mie bits */
#define IRQ_SSI 1
#define IRQ_MSI 3
#define IRQ_STI 5
#define IRQ_MTI 7
#define IRQ_SEI 9
#define IRQ_MEI 11
#define MIP_SSIP (1ul << IRQ_SSI)
#define MIP_MSIP (1ul << IRQ_MSI)
#define MIP_STIP (1ul << IRQ_STI)
#define MIP_MTIP (1ul << IRQ_MTI)
#define MIP_SEIP (1ul << IRQ_SEI)
#define MIP_MEIP (1ul << IRQ_MEI)
#define CAUSE_INTERRUPT (1ul << 63)

/* Exception codes */
#define CAUSE_FETCH_ACCESS 1
#define CAUSE_ILLEGAL 2
#define CAUSE_BREAKPOINT 3
#define CAUSE_LOAD_MISALIGNED 4
#define CAUSE_LOAD_ACCESS 5
#define CAUSE_STORE_MISALIGNED 6
#define CAUSE_STORE_ACCESS 7
#define CAUSE_ECALL_U 8
#define CAUSE_ECALL_S 9
#define CAUSE_ECALL_M 11
#define CAUSE_FETCH_PAGE 12
#define CAUSE_LOAD_PAGE 13
#define CAUSE_STORE_PAGE 15

#define MENVCFG_STCE (1ul << 63)
#define TVEC_VECTORED 1

/* QEMU virt devices */
#define CLINT_BASE 0x2000000ul
#define CLINT_MSIP(h) (CLINT_BASE + 4 * (h))
#define CLINT_MTIMECMP(h) (CLINT_BASE + 0x4000 + 8 * (h))
#define CLINT_MTIME (CLINT_BASE + 0xbff8)
#define PLIC_BASE 0xc000000ul
#define PLIC_PRIORITY(src) (PLIC_BASE + 4 * (src))
#define PLIC_ENABLE(ctx) (PLIC_BASE + 0x2000 + 0x80 * (ctx))
#define PLIC_THRESHOLD(ctx) (PLIC_BASE + 0x200000 + 0x1000 * (ctx))
#define PLIC_CLAIM(ctx) (PLIC_THRESHOLD(ctx) + 4)
#define PLIC_CTX_M 0 /* hart 0's M-mode context */
#define PLIC_CTX_S 1 /* hart 0's S-mode context */
#define UART_BASE 0x10000000ul
#define UART_IRQ 10
#define UART_IER (UART_BASE + 1)
#define IER_ETBEI 0x02 /* "transmitter holding register empty" interrupt */
#define TEST_FINISHER 0x100000ul
#define RAM_BASE 0x80000000ul
/* Nothing answers here on either machine: between the boot ROM and the test finisher. */
#define UNMAPPED_PA 0x80000ul


static inline void mmio_write32(uint64_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline uint32_t mmio_read32(uint64_t a) { return *(volatile uint32_t *)a; }
static inline void mmio_write64(uint64_t a, uint64_t v) { *(volatile uint64_t *)a = v; }
static inline uint64_t mmio_read64(uint64_t a) { return *(volatile uint64_t *)a; }
static inline void mmio_write8(uint64_t a, uint8_t v) { *(volatile uint8_t *)a = v; }
static inline uint8_t mmio_read8(uint64_t a) { return *(volatile uint8_t *)a; }

/* What crt0.S saves on trap entry. slot is the vector slot taken, or SLOT_DIRECT. */
struct frame {
  uint64_t x[32];
  uint64_t epc, cause, tval, status;
  int64_t slot;
  uint64_t pad;
};

/* Harts other than 0 wait in M-mode (WFI, with mie.MSIE set) for an IPI (CLINT_MSIP), then call
 * secondary_entry if it is set, on a 4 KiB stack of their own (one such hart), with no trap
 * handling: it must not trap, and must clear its own MSIP before it waits again. */
extern void (*volatile secondary_entry)(void);

typedef void (*trap_fn)(struct frame *f);
void set_m_handler(trap_fn fn);
void set_s_handler(trap_fn fn);

/* The last trap each of record_m/record_s saw. */
struct trap_rec {
  uint64_t count, cause, epc, tval, status;
  int64_t slot;
};
extern volatile struct trap_rec m_rec, s_rec;
/* Where record_m/record_s resume after the next exception they record; 0: after the trapping
 * instruction (its length read from memory at epc, which must then be readable). */
extern volatile uint64_t resume_at;
void record_m(struct frame *f);
void record_s(struct frame *f);
void clear_recs(void);

/* Calls fn(arg) in privilege priv (PRIV_S or PRIV_U; entered by mret) and returns its result.
 * On return mstatus holds what the closing ecall's trap left there; run_exit is that trap's frame. */
uint64_t run_in(unsigned priv, uint64_t (*fn)(uint64_t), uint64_t arg);
extern struct frame run_exit;
extern char run_trampoline[]; /* where run_in enters the lower mode */

extern char m_vectors[], s_vectors[], s_direct[];
extern char _start[], _text_end[], _end[];

/* Prints on the UART (M-mode only); bare_exit also reports PASS when code is 0. */
void putstr(const char *s);
__attribute__((noreturn)) void bare_exit(int code);

static inline uint64_t rdtime(void) { return csr_read(time); }

/* Page tables, built from a static pool. `levels` is 3, 4 or 5 (Sv39, Sv48, Sv57); pt_map maps
 * one page of size 4 KiB << (9 * level) and returns its PTE. */
#define PTE_V (1ul << 0)
#define PTE_R (1ul << 1)
#define PTE_W (1ul << 2)
#define PTE_X (1ul << 3)
#define PTE_U (1ul << 4)
#define PTE_A (1ul << 6)
#define PTE_D (1ul << 7)
#define PTE_RWX (PTE_R | PTE_W | PTE_X)
#define PTE_AD (PTE_A | PTE_D)
#define PAGE_SIZE 4096ul
#define MEGAPAGE (1ul << 21)
void pt_init(unsigned levels);
uint64_t *pt_map(uint64_t va, uint64_t pa, unsigned level, uint64_t flags);
/* Maps the program image [_start, _end) at its own addresses with 4 KiB pages: code with
 * code_flags, everything after the code with data_flags. */
void pt_map_image(uint64_t code_flags, uint64_t data_flags);
void vm_on(void);
void vm_off(void);
static inline void sfence_vma(void) { __asm__ volatile("sfence.vma" ::: "memory"); }

/* Runs the instruction(s) `insn` (norvc unless it says otherwise) and returns the address of the first. */
#define AT(insn)                                                                         \
  ({                                                                                     \
    uint64_t pc_;                                                                        \
    __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: " insn "\n.option pop" \
                     : "=&r"(pc_)::"memory");                                            \
    pc_;                                                                                 \
  })

/* LR.D and SC.D on one doubleword; sc_d returns 0 when the store happened. */
static inline uint64_t lr_d(volatile uint64_t *p) {
  uint64_t v;
  __asm__ volatile("lr.d %0, (%1)" : "=r"(v) : "r"(p) : "memory");
  return v;
}
static inline uint64_t sc_d(volatile uint64_t *p, uint64_t v) {
  uint64_t fail;
  __asm__ volatile("sc.d %0, %2, (%1)" : "=&r"(fail) : "r"(p), "r"(v) : "memory");
  return fail;
}

/* An ecall the runtime does not take for one of its own (a7 = 0); returns its address. */
static inline uint64_t ecall_at(void) {
  uint64_t pc;
  __asm__ volatile("li a7, 0\nla %0, 1f\n1: ecall" : "=&r"(pc)::"a7", "memory");
  return pc;
}

/* Jumps to `target`, where fetching must fault; the handler resumes after the jump (resume_at). */
static inline void jump_to(uint64_t target) {
  uint64_t t;
  __asm__ volatile("la %0, 1f\n sd %0, 0(%2)\n jr %1\n1:" : "=&r"(t) : "r"(target), "r"(&resume_at) : "memory");
}

/* Loads and stores that may fault (4-byte encodings, so handlers can step over them); each
 * returns the instruction's address. A faulting load leaves *v as it was. */
static inline uint64_t load64_at(uint64_t addr, uint64_t *v) {
  uint64_t pc, r = *v;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: ld %1, 0(%2)\n.option pop"
                   : "=&r"(pc), "+r"(r) : "r"(addr) : "memory");
  *v = r;
  return pc;
}
static inline uint64_t load32_at(uint64_t addr, uint32_t *v) {
  uint64_t pc, r = *v;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: lwu %1, 0(%2)\n.option pop"
                   : "=&r"(pc), "+r"(r) : "r"(addr) : "memory");
  *v = (uint32_t)r;
  return pc;
}
static inline uint64_t store32_at(uint64_t addr, uint32_t v) {
  uint64_t pc;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: sw %1, 0(%2)\n.option pop"
                   : "=&r"(pc) : "r"(v), "r"(addr) : "memory");
  return pc;
}
static inline uint64_t store64_at(uint64_t addr, uint64_t v) {
  uint64_t pc;
  __asm__ volatile(".option push\n.option norvc\nla %0, 1f\n1: sd %1, 0(%2)\n.option pop"
                   : "=&r"(pc) : "r"(v), "r"(addr) : "memory");
  return pc;
}

#endif
