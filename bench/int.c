/* Integer kernel: table-driven CRC-32, a heap sort and a multiplicative hash over pseudo-random words.
 * Prints a checksum that must be the same on every machine and emulator. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define N 65536
#define ROUNDS 24

static uint32_t crc_table[256];
static uint32_t words[N];
static uint64_t rng = 0x9e3779b97f4a7c15u;

/* xorshift64*: cheap, and the same sequence everywhere. */
static uint64_t next_random(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1dull;
}

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

static uint32_t crc32(const uint8_t *p, size_t n) {
  uint32_t c = ~0u;
  while (n--) c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

static void sift_down(uint32_t *v, size_t root, size_t n) {
  uint32_t x = v[root];
  for (size_t child; (child = 2 * root + 1) < n; root = child) {
    if (child + 1 < n && v[child + 1] > v[child]) child++;
    if (v[child] <= x) break;
    v[root] = v[child];
  }
  v[root] = x;
}

static void heap_sort(uint32_t *v, size_t n) {
  for (size_t i = n / 2; i-- > 0;) sift_down(v, i, n);
  for (size_t end = n; end-- > 1;) {
    uint32_t t = v[0];
    v[0] = v[end];
    v[end] = t;
    sift_down(v, 0, end);
  }
}

int main(void) {
  crc_init();
  uint64_t sum = 0;
  for (int r = 0; r < ROUNDS; r++) {
    for (size_t i = 0; i < N; i++) words[i] = (uint32_t)(next_random() >> 32);
    /* Both targets are little-endian, so the bytes hashed are the same. */
    sum = sum * 31 + crc32((const uint8_t *)words, sizeof words);
    heap_sort(words, N);
    for (size_t i = 0; i < N; i++) sum = (sum ^ words[i]) * 0x100000001b3ull;
    sum ^= sum >> 29;
  }
  printf("checksum %016llx\n", (unsigned long long)sum);
  return 0;
}
