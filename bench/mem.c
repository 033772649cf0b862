/* Memory kernel: a dependent pointer chase around one random cycle through 4 MiB (cache and TLB misses
 * that no prefetcher hides), memcpy of 1 MiB blocks, and a streaming triad over three 2 MiB arrays.
 * Prints a checksum that must be the same on every machine and emulator. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CHASE_ENTRIES (1u << 20) /* 4 MiB of uint32_t */
#define CHASE_STEPS (8u << 20)
#define COPY_BYTES (1u << 20)
#define COPY_ROUNDS 128
#define STREAM_WORDS (1u << 18) /* 2 MiB of uint64_t per array */
#define STREAM_ROUNDS 48

static uint32_t chain[CHASE_ENTRIES];
static uint8_t copy_src[COPY_BYTES], copy_dst[COPY_BYTES];
static uint64_t sa[STREAM_WORDS], sb[STREAM_WORDS], sc[STREAM_WORDS];
static uint64_t rng = 0x243f6a8885a308d3u;

static uint64_t next_random(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1dull;
}

/* Sattolo's shuffle makes a single cycle, so the chase visits every entry before repeating. */
static void make_cycle(void) {
  for (uint32_t i = 0; i < CHASE_ENTRIES; i++) chain[i] = i;
  for (uint32_t i = CHASE_ENTRIES - 1; i > 0; i--) {
    uint32_t j = (uint32_t)(next_random() % i);
    uint32_t t = chain[i];
    chain[i] = chain[j];
    chain[j] = t;
  }
}

static uint64_t chase(void) {
  uint32_t p = 0;
  uint64_t sum = 0;
  for (uint32_t s = 0; s < CHASE_STEPS; s++) {
    p = chain[p];
    sum += p;
  }
  return sum;
}

static uint64_t copy(void) {
  uint64_t sum = 0;
  for (uint32_t i = 0; i < COPY_BYTES; i++) copy_src[i] = (uint8_t)next_random();
  for (int r = 0; r < COPY_ROUNDS; r++) {
    /* Misaligned by a round-dependent amount, so memcpy takes its general paths as well. */
    size_t off = (size_t)r % 16, len = COPY_BYTES - 16;
    memcpy(copy_dst + (r & 1) * 8, copy_src + off, len);
    copy_src[(r * 4099) % COPY_BYTES] ^= copy_dst[(r * 65537) % COPY_BYTES];
    sum = sum * 33 + copy_dst[(r * 8191) % COPY_BYTES];
  }
  return sum;
}

static uint64_t stream(void) {
  for (uint32_t i = 0; i < STREAM_WORDS; i++) {
    sb[i] = next_random();
    sc[i] = i;
  }
  uint64_t sum = 0;
  for (int r = 0; r < STREAM_ROUNDS; r++) {
    for (uint32_t i = 0; i < STREAM_WORDS; i++) sa[i] = sb[i] + 3 * sc[i];
    for (uint32_t i = 0; i < STREAM_WORDS; i++) sc[i] = sa[i] ^ (sb[i] >> 7);
    sum += sa[r * 977 % STREAM_WORDS] + sc[r * 1231 % STREAM_WORDS];
  }
  return sum;
}

int main(void) {
  make_cycle();
  uint64_t sum = chase();
  sum = sum * 0x100000001b3ull ^ copy();
  sum = sum * 0x100000001b3ull ^ stream();
  printf("checksum %016llx\n", (unsigned long long)sum);
  return 0;
}
