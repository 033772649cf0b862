// brisk record's test program (tests/integration/record_user.sh): hot_loop runs N iterations of a
// loop with a skewed branch, cold a hundredth as many; the exit status is 3, which brisk record
// must pass on. Its pid goes to stderr ("pid" and ten digits), for the samples' pid. A second
// argument sleeps that many milliseconds first, so that a recording lasts that long (the progress
// line's test).
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) long hot_loop(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) {
    if ((i & 7) == 0) s += i >> 2;
    else s ^= i * 3;
  }
  return s;
}

__attribute__((noinline)) long cold(long n) {
  long s = 1;
  for (long i = 1; i < n; i++) s = s * 31 + i;
  return s;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  // The pid in ten digits, with as many instructions whatever its value: the runs a test compares
  // have different pids, and printf's work grows with the digits.
  char line[] = "pid 0000000000\n";
  unsigned pid = (unsigned)getpid();
  for (int i = 13; i >= 4; i--, pid /= 10) line[i] = (char)('0' + pid % 10);
  if (write(2, line, sizeof line - 1) < 0) return 1;
  if (argc > 2) usleep((useconds_t)atol(argv[2]) * 1000);
  printf("%ld %ld\n", hot_loop(n), cold(n / 100));
  return 3;
}
