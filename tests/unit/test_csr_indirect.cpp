// Smcsrind/Sscsrind (csr/indirect.cpp): xiselect, and how xireg* dispatch on the select value
// (smcsrind.adoc). What the counter range does is test_csr_cdeleg.cpp's.

#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/pmu.h"
#include "csr_harness.h"

namespace brisk::test {
namespace {

using namespace csr;

constexpr uint16_t kSiregs[] = {CSR_SIREG, CSR_SIREG2, CSR_SIREG3, CSR_SIREG4, CSR_SIREG5, CSR_SIREG6};
constexpr uint16_t kMiregs[] = {CSR_MIREG, CSR_MIREG2, CSR_MIREG3, CSR_MIREG4, CSR_MIREG5, CSR_MIREG6};

class Indirect : public CsrTest {
 protected:
  void SetUp() override {
    CsrTest::SetUp();
    m_write(CSR_MSTATEEN0, 1ull << STATEEN0_CSRIND);
    // Every counter delegated, so the counter range answers wherever it can.
    m_write(CSR_MENVCFG, MENVCFG_CDE);
    m_write(CSR_MCOUNTEREN, ~0ull);
  }
};

TEST_F(Indirect, SelectKeepsEveryBit) {
  for (uint16_t sel : {CSR_MISELECT, CSR_SISELECT}) {
    for (uint64_t v : {0x0ull, 0x43ull, 0xfffull, 0x8000000000000043ull, ~0ull}) {
      m_write(sel, v);
      EXPECT_EQ(m_read(sel), v);
    }
  }
  EXPECT_TRUE(Allowed(write(CSR_SISELECT, 0x8000000000000043ull, Priv::S)));
  EXPECT_EQ(read(CSR_SISELECT, Priv::S).value, 0x8000000000000043ull);
}

TEST_F(Indirect, MachineWindowIsMachineLevel) {
  EXPECT_TRUE(Illegal(read(CSR_MISELECT, Priv::S)));
  for (uint16_t n : kMiregs) EXPECT_TRUE(Illegal(read(n, Priv::S))) << n;
  EXPECT_TRUE(Illegal(read(CSR_SISELECT, Priv::U)));
  for (uint16_t n : kSiregs) EXPECT_TRUE(Illegal(read(n, Priv::U))) << n;
}

// Nothing is registered at machine level yet: every mireg* raises illegal-instruction.
TEST_F(Indirect, MiregWithoutRanges) {
  for (uint64_t v : {0x0ull, 0x30ull, 0x43ull, 0x70ull, 0x200ull, 0x8000000000000000ull}) {
    m_write(CSR_MISELECT, v);
    for (uint16_t n : kMiregs) {
      EXPECT_TRUE(Illegal(read(n))) << n << " at " << v;
      EXPECT_TRUE(Illegal(write(n, 0))) << n << " at " << v;
    }
  }
}

// Reserved standard values, and custom ones (bit 63 set, even with 0x43 below), reach nothing.
TEST_F(Indirect, UnregisteredSelectsAreIllegal) {
  for (uint64_t v : {0x0ull, 0x3full, 0x60ull, 0x1ffull, 0x300ull, 0xfffull, 0x1000ull, 0x8000000000000043ull}) {
    m_write(CSR_SISELECT, v);
    for (uint16_t n : kSiregs)
      for (Priv p : {Priv::M, Priv::S}) {
        EXPECT_TRUE(Illegal(read(n, p))) << n << " at " << v;
        EXPECT_TRUE(Illegal(write(n, 0, p))) << n << " at " << v;
      }
  }
}

// 0x40..0x5F reach the counters, at both ends; sireg is ireg 1 and sireg2 ireg 2.
TEST_F(Indirect, DispatchByRangeAndIreg) {
  m_write(CSR_MHPMCOUNTER31, 0x3131);
  m_write(CSR_MHPMEVENT31, 0x5);
  m_write(CSR_MCOUNTINHIBIT, 1);  // cycle holds still while the instructions below retire
  m_write(CSR_MCYCLE, 0x4242);
  m_write(CSR_SISELECT, 0x5f);
  EXPECT_EQ(read(CSR_SIREG, Priv::S).value, 0x3131u);
  EXPECT_EQ(read(CSR_SIREG2, Priv::S).value, 0x5u);
  EXPECT_TRUE(Allowed(write(CSR_SIREG, 0x77, Priv::S)));
  EXPECT_EQ(m_read(CSR_MHPMCOUNTER31), 0x77u);
  m_write(CSR_SISELECT, 0x40);
  const CsrResult cycle = read(CSR_SIREG, Priv::S);
  EXPECT_TRUE(Allowed(cycle));
  EXPECT_EQ(cycle.value, 0x4242u);
}

TEST_F(Indirect, AbsentWithoutTheExtensions) {
  isa("smcdeleg=off,ssccfg=off,smctr=off,ssctr=off,smcsrind=off,sscsrind=off");
  for (uint16_t n : {CSR_MISELECT, CSR_SISELECT}) EXPECT_TRUE(Illegal(read(n))) << n;
  for (uint16_t n : kMiregs) EXPECT_TRUE(Illegal(read(n))) << n;
  for (uint16_t n : kSiregs) EXPECT_TRUE(Illegal(read(n))) << n;
}

TEST_F(Indirect, SupervisorOnly) {
  isa("smcsrind=off");
  EXPECT_TRUE(Illegal(read(CSR_MISELECT)));
  EXPECT_TRUE(Allowed(read(CSR_SISELECT)));
}

}  // namespace
}  // namespace brisk::test
