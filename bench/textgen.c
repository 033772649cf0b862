/* Writes BYTES bytes of deterministic, moderately compressible text to stdout, for the xz benchmark:
 * lines of words drawn with a skewed (roughly Zipf-like) frequency from a made-up vocabulary, with
 * numbers mixed in, so that a compressor finds repeats at many distances but no long copies. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define VOCABULARY 4096

static uint64_t rng = 0x082efa98ec4e6c89u;

static uint64_t next_random(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1dull;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s BYTES\n", argv[0]);
    return 2;
  }
  long left = atol(argv[1]);
  static char words[VOCABULARY][12];
  for (int w = 0; w < VOCABULARY; w++) {
    int len = 2 + (int)(next_random() % 9);
    for (int k = 0; k < len; k++) words[w][k] = (char)('a' + next_random() % 26);
    words[w][len] = 0;
  }
  char line[256];
  while (left > 0) {
    int n = 0, count = 6 + (int)(next_random() % 10);
    for (int k = 0; k < count; k++) {
      uint64_t r = next_random();
      if (r % 11 == 0)
        n += sprintf(line + n, "%s%u", k ? " " : "", (unsigned)(r >> 40) % 100000);
      else /* a random index below a random bound favours low indices */
        n += sprintf(line + n, "%s%s", k ? " " : "", words[(r >> 20) % ((r >> 40) % VOCABULARY + 1)]);
    }
    line[n++] = '\n';
    if (n > left) n = (int)left;
    fwrite(line, 1, (size_t)n, stdout);
    left -= n;
  }
  return 0;
}
