// Smcdeleg/Ssccfg (csr/cdeleg.cpp): seed 002's exception matrix row by row, the sireg views of a
// delegated counter (MINH masked), scountinhibit, and Sscofpmf's scountovf (smcdeleg.adoc,
// sscofpmf.adoc).

#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/pmu.h"
#include "csr/table.h"
#include "csr_harness.h"

namespace brisk::test {
namespace {

using namespace csr;
using pmu::EVENT_MINH;
using pmu::EVENT_OF;
using pmu::EVENT_SINH;
using pmu::EVENT_UINH;

constexpr uint64_t bit(unsigned b) { return 1ull << b; }

class Cdeleg : public CsrTest {
 protected:
  void SetUp() override {
    CsrTest::SetUp();
    m_write(CSR_MSTATEEN0, bit(STATEEN0_CSRIND));
    m_write(CSR_MENVCFG, MENVCFG_CDE);
  }
  // sireg<k> (k = 1..6) with siselect = sel, read from p.
  CsrResult sireg(unsigned k, uint64_t sel, Priv p) {
    m_write(CSR_SISELECT, sel);
    return read(kSiregs[k - 1], p);
  }
  CsrResult sireg_write(unsigned k, uint64_t sel, uint64_t v, Priv p) {
    m_write(CSR_SISELECT, sel);
    return write(kSiregs[k - 1], v, p);
  }
  // The range's rule for a VS-mode access (V = 1).
  CsrResult vs_sireg(unsigned k, uint64_t sel) {
    return direct(Priv::S, [&](const Insn& i) { return kCounterDelegationIreg.check(h, i, sel, k, false, true); });
  }
  static constexpr uint16_t kSiregs[] = {CSR_SIREG, CSR_SIREG2, CSR_SIREG3, CSR_SIREG4, CSR_SIREG5, CSR_SIREG6};
};

// --- The delegation map ---

TEST_F(Cdeleg, DelegatedCounterReadWriteFromS) {
  m_write(CSR_MCOUNTINHIBIT, bit(3));  // hpmcounter3 counts instructions below: hold it still
  m_write(CSR_MCOUNTEREN, bit(0) | bit(2) | bit(3));
  m_write(CSR_MHPMCOUNTER3, 1234);
  m_write(CSR_MHPMEVENT3, EVENT_SINH | 0x2);
  const CsrResult c = sireg(1, 0x43, Priv::S);
  EXPECT_TRUE(Allowed(c));
  EXPECT_EQ(c.value, 1234u);
  EXPECT_EQ(sireg(2, 0x43, Priv::S).value, EVENT_SINH | 0x2);
  EXPECT_TRUE(Allowed(sireg_write(1, 0x43, 99, Priv::S)));
  EXPECT_EQ(m_read(CSR_MHPMCOUNTER3), 99u);
  EXPECT_TRUE(Allowed(sireg_write(2, 0x43, EVENT_OF | EVENT_UINH | 0x3, Priv::S)));
  EXPECT_EQ(m_read(CSR_MHPMEVENT3), EVENT_OF | EVENT_UINH | 0x3);
  // cycle and instret and their configurations, held still while the instructions below retire.
  m_write(CSR_MCOUNTINHIBIT, 5);
  m_write(CSR_MCYCLE, 500);
  m_write(CSR_MINSTRET, 600);
  EXPECT_EQ(sireg(1, 0x40, Priv::S).value, 500u);
  EXPECT_EQ(sireg(1, 0x42, Priv::S).value, 600u);
  EXPECT_TRUE(Allowed(sireg_write(2, 0x40, EVENT_UINH, Priv::S)));
  EXPECT_EQ(pmu::config(h, pmu::kCycle), EVENT_UINH);
  EXPECT_EQ(sireg(2, 0x40, Priv::S).value, EVENT_UINH);
  EXPECT_TRUE(Allowed(sireg_write(2, 0x42, EVENT_SINH, Priv::S)));
  EXPECT_EQ(pmu::config(h, pmu::kInstret), EVENT_SINH);
}

// --- Exception matrix (seed 002), one test per row ---

TEST_F(Cdeleg, RowCdeZeroIsIllegal) {
  m_write(CSR_MCOUNTEREN, ~0ull);
  m_write(CSR_MENVCFG, 0);
  for (unsigned k : {1, 2})
    for (Priv p : {Priv::M, Priv::S}) {
      EXPECT_TRUE(Illegal(sireg(k, 0x43, p))) << k;
      EXPECT_TRUE(Illegal(sireg_write(k, 0x40, 0, p))) << k;
    }
}

TEST_F(Cdeleg, RowSireg3AndSireg6AreIllegal) {
  m_write(CSR_MCOUNTEREN, ~0ull);
  for (unsigned k : {3, 6})
    for (uint64_t sel : {0x40, 0x42, 0x43, 0x5f})
      for (Priv p : {Priv::M, Priv::S}) {
        EXPECT_TRUE(Illegal(sireg(k, sel, p))) << k << " " << sel;
        EXPECT_TRUE(Illegal(sireg_write(k, sel, 0, p))) << k << " " << sel;
      }
}

TEST_F(Cdeleg, RowSireg4AndSireg5AreIllegalAtXlen64) {
  m_write(CSR_MCOUNTEREN, ~0ull);
  for (unsigned k : {4, 5})
    for (uint64_t sel : {0x40, 0x42, 0x43, 0x5f})
      for (Priv p : {Priv::M, Priv::S}) {
        EXPECT_TRUE(Illegal(sireg(k, sel, p))) << k << " " << sel;
        EXPECT_TRUE(Illegal(sireg_write(k, sel, 0, p))) << k << " " << sel;
      }
}

TEST_F(Cdeleg, RowHoleAt0x41IsAlwaysIllegal) {
  m_write(CSR_MCOUNTEREN, ~0ull);  // TM set too
  for (unsigned k = 1; k <= 6; k++)
    for (Priv p : {Priv::M, Priv::S}) {
      EXPECT_TRUE(Illegal(sireg(k, 0x41, p))) << k;
      EXPECT_TRUE(Illegal(sireg_write(k, 0x41, 0, p))) << k;
    }
}

TEST_F(Cdeleg, RowNonDelegatedCounterIsIllegal) {
  m_write(CSR_MCOUNTEREN, bit(3));
  for (unsigned i : {0u, 2u, 4u, 31u})
    for (unsigned k : {1, 2})
      for (Priv p : {Priv::M, Priv::S}) EXPECT_TRUE(Illegal(sireg(k, 0x40 + i, p))) << i << " " << k;
  EXPECT_TRUE(Allowed(sireg(1, 0x43, Priv::S)));
}

TEST_F(Cdeleg, RowMissingExtensionIsIllegal) {
  m_write(CSR_MCOUNTEREN, ~0ull);
  isa("smcntrpmf=off");  // cyclecfg and instretcfg
  for (Priv p : {Priv::M, Priv::S}) {
    EXPECT_TRUE(Illegal(sireg(2, 0x40, p)));
    EXPECT_TRUE(Illegal(sireg(2, 0x42, p)));
    EXPECT_TRUE(Allowed(sireg(1, 0x40, p)));
    EXPECT_TRUE(Allowed(sireg(2, 0x43, p)));
  }
  isa("zicntr=off");  // cycle and instret
  EXPECT_TRUE(Illegal(sireg(1, 0x40, Priv::S)));
  EXPECT_TRUE(Illegal(sireg(1, 0x42, Priv::S)));
  EXPECT_TRUE(Allowed(sireg(1, 0x43, Priv::S)));
  isa("zihpm=off");  // hpmcounter3..31 and hpmevent3..31
  for (unsigned k : {1, 2}) {
    EXPECT_TRUE(Illegal(sireg(k, 0x43, Priv::S)));
    EXPECT_TRUE(Illegal(sireg(k, 0x5f, Priv::M)));
  }
}

// Under H, VS-mode access to sireg* (really vsireg*) in this range: virtual-instruction when CDE=1
// (the hypervisor emulates a vPMU), illegal-instruction when CDE=0; for every counter and sireg.
TEST_F(Cdeleg, RowVsModeAccess) {
  m_write(CSR_MCOUNTEREN, ~0ull);
  for (unsigned k = 1; k <= 6; k++)
    for (uint64_t sel : {0x40, 0x41, 0x43}) EXPECT_TRUE(Virtual(vs_sireg(k, sel))) << k << " " << sel;
  m_write(CSR_MENVCFG, 0);
  for (unsigned k = 1; k <= 6; k++) EXPECT_TRUE(Illegal(vs_sireg(k, 0x43))) << k;
}

// --- MINH ---

TEST_F(Cdeleg, MinhReadsZeroAndKeepsMModesValue) {
  m_write(CSR_MCOUNTEREN, bit(0) | bit(3));
  m_write(CSR_MHPMEVENT3, EVENT_MINH | EVENT_SINH | 0x4);
  EXPECT_EQ(sireg(2, 0x43, Priv::S).value, EVENT_SINH | 0x4);
  EXPECT_EQ(sireg(2, 0x43, Priv::M).value, EVENT_SINH | 0x4);  // the sireg view, even from M
  // S can neither clear MINH nor set it.
  EXPECT_TRUE(Allowed(sireg_write(2, 0x43, 0x6, Priv::S)));
  EXPECT_EQ(m_read(CSR_MHPMEVENT3), EVENT_MINH | 0x6);
  m_write(CSR_MHPMEVENT3, 0x6);
  EXPECT_TRUE(Allowed(sireg_write(2, 0x43, ~0ull, Priv::S)));
  EXPECT_EQ(m_read(CSR_MHPMEVENT3) & EVENT_MINH, 0u);
  // The same for mcyclecfg.
  pmu::set_config(h, pmu::kCycle, EVENT_MINH | EVENT_UINH);
  EXPECT_EQ(sireg(2, 0x40, Priv::S).value, EVENT_UINH);
  EXPECT_TRUE(Allowed(sireg_write(2, 0x40, 0, Priv::S)));
  EXPECT_EQ(pmu::config(h, pmu::kCycle), EVENT_MINH);
}

// --- scountinhibit ---

TEST_F(Cdeleg, ScountinhibitIsAMaskedAlias) {
  m_write(CSR_MCOUNTEREN, bit(0) | bit(1) | bit(3) | bit(30));
  m_write(CSR_MCOUNTINHIBIT, 0xfffffffd);
  const CsrResult r = read(CSR_SCOUNTINHIBIT, Priv::S);
  EXPECT_TRUE(Allowed(r));
  EXPECT_EQ(r.value, bit(0) | bit(3) | bit(30));
  // Writes reach only the delegated counters' bits.
  EXPECT_TRUE(Allowed(write(CSR_SCOUNTINHIBIT, 0, Priv::S)));
  EXPECT_EQ(m_read(CSR_MCOUNTINHIBIT), 0xfffffffdu & ~(bit(0) | bit(3) | bit(30)));
  m_write(CSR_MCOUNTINHIBIT, 0);
  EXPECT_TRUE(Allowed(write(CSR_SCOUNTINHIBIT, ~0ull, Priv::S)));
  EXPECT_EQ(m_read(CSR_MCOUNTINHIBIT), bit(0) | bit(3) | bit(30));
  EXPECT_TRUE(Allowed(read(CSR_SCOUNTINHIBIT, Priv::M)));
  EXPECT_TRUE(Illegal(read(CSR_SCOUNTINHIBIT, Priv::U)));
}

TEST_F(Cdeleg, ScountinhibitIllegalWithCdeZero) {
  m_write(CSR_MCOUNTEREN, ~0ull);
  m_write(CSR_MENVCFG, 0);
  for (Priv p : {Priv::M, Priv::S}) {
    EXPECT_TRUE(Illegal(read(CSR_SCOUNTINHIBIT, p)));
    EXPECT_TRUE(Illegal(write(CSR_SCOUNTINHIBIT, 0, p)));
  }
}

TEST_F(Cdeleg, ScountinhibitFromVsAndVu) {
  for (Priv p : {Priv::S, Priv::U})
    EXPECT_TRUE(Virtual(direct(p, [&](const Insn& i) { return check_scountinhibit(h, i, false, true); })));
  m_write(CSR_MENVCFG, 0);
  for (Priv p : {Priv::S, Priv::U})
    EXPECT_TRUE(Illegal(direct(p, [&](const Insn& i) { return check_scountinhibit(h, i, false, true); })));
}

TEST_F(Cdeleg, CdeWritableOnlyWithSmcdeleg) {
  EXPECT_EQ(m_read(CSR_MENVCFG) & MENVCFG_CDE, MENVCFG_CDE);
  isa("smcdeleg=off,ssccfg=off");
  m_write(CSR_MENVCFG, MENVCFG_CDE);
  EXPECT_EQ(m_read(CSR_MENVCFG) & MENVCFG_CDE, 0u);
  EXPECT_TRUE(Illegal(read(CSR_SCOUNTINHIBIT)));
}

// --- scountovf (Sscofpmf) ---

TEST_F(Cdeleg, ScountovfShowsOverflowByMcounteren) {
  m_write(CSR_MENVCFG, 0);  // independent of delegation
  for (unsigned i : {3u, 4u, 31u}) pmu::set_config(h, i, EVENT_OF);
  m_write(CSR_MCOUNTEREN, bit(4) | bit(31));
  EXPECT_EQ(m_read(CSR_SCOUNTOVF), bit(3) | bit(4) | bit(31));
  const CsrResult s = read(CSR_SCOUNTOVF, Priv::S);
  EXPECT_TRUE(Allowed(s));
  EXPECT_EQ(s.value, bit(4) | bit(31));
  EXPECT_TRUE(Illegal(read(CSR_SCOUNTOVF, Priv::U)));
  EXPECT_TRUE(Illegal(write(CSR_SCOUNTOVF, 0)));  // read-only
  isa("sscofpmf=off");
  EXPECT_TRUE(Illegal(read(CSR_SCOUNTOVF)));
}

TEST_F(Cdeleg, ScountovfFromVsAndVu) {
  auto vs = [&](Priv p) { return direct(p, [&](const Insn& i) { return check_scountovf(h, i, false, true); }); };
  EXPECT_TRUE(Virtual(vs(Priv::S)));
  EXPECT_TRUE(Virtual(vs(Priv::U)));
  m_write(CSR_MENVCFG, 0);
  EXPECT_TRUE(Allowed(vs(Priv::S)));  // then hcounteren decides, as for the counters
}

}  // namespace
}  // namespace brisk::test
