// menvcfg/senvcfg: the CMO fields exist only with their extensions, and CBIE is WARL.
#include <gtest/gtest.h>

#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr_harness.h"

namespace brisk::test {
namespace {

using namespace csr;

class Envcfg : public CsrTest {};

constexpr uint64_t kCmo = ENVCFG_CBIE | ENVCFG_CBCFE | ENVCFG_CBZE;

TEST_F(Envcfg, CmoFieldsFollowTheExtensions) {
  for (uint16_t n : {CSR_MENVCFG, CSR_SENVCFG}) {
    m_write(n, ~0ull);
    EXPECT_EQ(m_read(n) & (kCmo | ENVCFG_FIOM), kCmo | ENVCFG_FIOM) << n;
  }
  isa("zicbom=off");
  for (uint16_t n : {CSR_MENVCFG, CSR_SENVCFG}) {
    m_write(n, ~0ull);
    EXPECT_EQ(m_read(n) & kCmo, ENVCFG_CBZE) << n;  // CBIE and CBCFE are read-only zero
  }
  isa("zicbom=on,zicboz=off");
  for (uint16_t n : {CSR_MENVCFG, CSR_SENVCFG}) {
    m_write(n, ~0ull);
    EXPECT_EQ(m_read(n) & kCmo, ENVCFG_CBIE | ENVCFG_CBCFE) << n;
  }
}

TEST_F(Envcfg, ReservedCbieKeepsTheField) {
  for (uint16_t n : {CSR_MENVCFG, CSR_SENVCFG}) {
    for (uint64_t before : {uint64_t(0), ENVCFG_CBIE_FLUSH, ENVCFG_CBIE}) {
      m_write(n, before);
      m_write(n, uint64_t(2) << 4 | ENVCFG_CBZE);
      EXPECT_EQ(m_read(n) & kCmo, before | ENVCFG_CBZE) << n << " " << before;
    }
  }
}

}  // namespace
}  // namespace brisk::test
