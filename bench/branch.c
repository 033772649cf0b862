/* Branch kernel: a switch-dispatched bytecode interpreter counting Collatz steps (an indirect jump per
 * bytecode and an odd/even branch that follows the data), then binary searches for pseudo-random keys
 * in a sorted table. Prints a checksum that must be the same on every machine and emulator. */
#include <stdint.h>
#include <stdio.h>

#define COLLATZ_LIMIT 60000
#define TABLE 65536
#define SEARCHES 1200000

enum { SETI, MOV, ADDI, MULI, SHRI, ANDI, JZ, JEQI, JLE, JMP, HALT };

struct insn {
  uint8_t op, a, b; /* destination or tested register, source register */
  int32_t imm;
  int32_t target;   /* where a jump goes */
};

/* r1 = n, r2 = x, r3 = scratch, r5 = total steps, r6 = limit. */
static const struct insn collatz[] = {
    /* 0 */ {SETI, 1, 0, 1, 0},
    /* 1 */ {SETI, 5, 0, 0, 0},
    /* 2 */ {SETI, 6, 0, COLLATZ_LIMIT, 0},
    /* 3 */ {MOV, 2, 1, 0, 0},    /* x = n */
    /* 4 */ {JEQI, 2, 0, 1, 13},  /* while (x != 1) */
    /* 5 */ {ANDI, 3, 2, 1, 0},
    /* 6 */ {JZ, 3, 0, 0, 10},    /* even? */
    /* 7 */ {MULI, 2, 2, 3, 0},
    /* 8 */ {ADDI, 2, 2, 1, 0},
    /* 9 */ {JMP, 0, 0, 0, 11},
    /* 10 */ {SHRI, 2, 2, 1, 0},
    /* 11 */ {ADDI, 5, 5, 1, 0},
    /* 12 */ {JMP, 0, 0, 0, 4},
    /* 13 */ {ADDI, 1, 1, 1, 0},  /* n++ */
    /* 14 */ {JLE, 1, 6, 0, 3},   /* while (n <= limit) */
    /* 15 */ {HALT, 0, 0, 0, 0},
};

static int64_t run(const struct insn *prog) {
  int64_t r[8] = {0};
  for (const struct insn *pc = prog;;) {
    const struct insn *i = pc++;
    switch (i->op) {
      case SETI: r[i->a] = i->imm; break;
      case MOV: r[i->a] = r[i->b]; break;
      case ADDI: r[i->a] = r[i->b] + i->imm; break;
      case MULI: r[i->a] = r[i->b] * i->imm; break;
      case SHRI: r[i->a] = r[i->b] >> i->imm; break;
      case ANDI: r[i->a] = r[i->b] & i->imm; break;
      case JZ: if (r[i->a] == 0) pc = prog + i->target; break;
      case JEQI: if (r[i->a] == i->imm) pc = prog + i->target; break;
      case JLE: if (r[i->a] <= r[i->b]) pc = prog + i->target; break;
      case JMP: pc = prog + i->target; break;
      default: return r[5];
    }
  }
}

static uint32_t table[TABLE];
static uint64_t rng = 0x13198a2e03707344u;

static uint64_t next_random(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1dull;
}

/* Index of the first element >= key. */
static uint32_t lower_bound(uint32_t key) {
  uint32_t lo = 0, hi = TABLE;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (table[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int main(void) {
  uint64_t sum = (uint64_t)run(collatz);

  uint32_t v = 0;
  for (uint32_t k = 0; k < TABLE; k++) table[k] = v += 1 + (uint32_t)(next_random() % 64);
  for (uint32_t s = 0; s < SEARCHES; s++) {
    uint32_t key = (uint32_t)(next_random() % v);
    uint32_t at = lower_bound(key);
    sum = sum * 31 + at + (at < TABLE && table[at] == key);
  }
  printf("checksum %016llx\n", (unsigned long long)sum);
  return 0;
}
