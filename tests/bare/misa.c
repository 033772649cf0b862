/* misa: MXL = 2 (64-bit), and exactly the letters of the extensions --cpu leaves on (MISA_LETTERS,
 * given per build in tests/bare/CMakeLists.txt), with S and U; a write changes nothing, as
 * brisk's misa is read-only (the spec lets it be). */
#include "bare.h"
#include "check.h"

#define L(c) (1ul << ((c) - 'A'))

#ifdef QEMU_REF /* QEMU 7.2's default CPU also has H */
#define MORE_LETTERS L('H')
#else
#define MORE_LETTERS 0
#endif

int main(void) {
  const uint64_t want = 2ul << 62 | MISA_LETTERS | MORE_LETTERS | L('S') | L('U');
  CHECK(want, csr_read(misa));
  csr_write(misa, 0);
  CHECK(want, csr_read(misa));
  csr_write(misa, ~0ul);
  CHECK(want, csr_read(misa));
  csr_clear(misa, L('C') | L('M'));
  CHECK(want, csr_read(misa));
  return 0;
}
