// Smstateen/Ssstateen (csr/stateen.cpp): which mstateen bits are writable, and how each bit gates the
// state behind it from S and U (smstateen.adoc, smcsrind.adoc "Access control by the state-enable CSRs").

#include "csr/csr_numbers.h"
#include "csr/privileged.h"
#include "csr/table.h"
#include "csr_harness.h"

namespace brisk::test {
namespace {

using namespace csr;

constexpr uint64_t bit(unsigned b) { return 1ull << b; }

class Stateen : public CsrTest {};

TEST_F(Stateen, WritableBits) {
  // SE0, ENVCFG, CSRIND and CTR; CONTEXT (no scontext), AIA, IMSIC, P1P13, SRMCFG, C, FCSR, JVT read 0.
  m_write(CSR_MSTATEEN0, ~0ull);
  EXPECT_EQ(m_read(CSR_MSTATEEN0), bit(63) | bit(62) | bit(60) | bit(54));
  for (uint16_t n = CSR_MSTATEEN1; n <= CSR_MSTATEEN3; n++) {
    m_write(n, ~0ull);
    EXPECT_EQ(m_read(n), bit(63)) << n;
  }
  // sstateen bits guard user state brisk does not have: all read-only zero.
  for (uint16_t n = CSR_SSTATEEN0; n <= CSR_SSTATEEN3; n++) {
    m_write(n, ~0ull);
    EXPECT_EQ(m_read(n), 0u) << n;
  }
  // Writable bits reset to zero.
  csr::reset(h);
  EXPECT_EQ(m_read(CSR_MSTATEEN0), 0u);
}

TEST_F(Stateen, CsrindReadOnlyZeroWithoutSscsrind) {
  isa("smcdeleg=off,ssccfg=off,smctr=off,ssctr=off,smcsrind=off,sscsrind=off");
  m_write(CSR_MSTATEEN0, ~0ull);
  EXPECT_EQ(m_read(CSR_MSTATEEN0), bit(63) | bit(62));  // CTR (54) goes with Smctr, which needs Sscsrind
}

TEST_F(Stateen, MstateenIsMachineLevel) {
  for (uint16_t n = CSR_MSTATEEN0; n <= CSR_MSTATEEN3; n++) {
    EXPECT_TRUE(Illegal(read(n, Priv::S)));
    EXPECT_TRUE(Illegal(read(n, Priv::U)));
  }
}

TEST_F(Stateen, AbsentWithoutTheExtensions) {
  isa("smstateen=off,ssstateen=off");
  EXPECT_TRUE(Illegal(read(CSR_MSTATEEN0)));
  EXPECT_TRUE(Illegal(read(CSR_SSTATEEN0)));
  // Nothing gates: senvcfg and siselect are reachable from S with no stateen at all.
  EXPECT_TRUE(Allowed(read(CSR_SENVCFG, Priv::S)));
  EXPECT_TRUE(Allowed(read(CSR_SISELECT, Priv::S)));
}

// SE<n> (bit 63 of mstateen<n>) gates sstateen<n> below M.
TEST_F(Stateen, SeGatesSstateen) {
  for (unsigned n = 0; n < 4; n++) {
    const uint16_t s = CSR_SSTATEEN0 + n, m = CSR_MSTATEEN0 + n;
    m_write(m, 0);
    EXPECT_TRUE(Illegal(read(s, Priv::S))) << n;
    EXPECT_TRUE(Illegal(write(s, 0, Priv::S))) << n;
    EXPECT_TRUE(Illegal(read(s, Priv::U))) << n;
    EXPECT_TRUE(Allowed(read(s, Priv::M))) << n;
    m_write(m, bit(63));
    EXPECT_TRUE(Allowed(read(s, Priv::S))) << n;
    EXPECT_TRUE(Allowed(write(s, ~0ull, Priv::S))) << n;
    EXPECT_TRUE(Illegal(read(s, Priv::U))) << n;  // an S-level CSR
    // Another register's SE bit does not help.
    m_write(m, 0);
    for (unsigned k = 0; k < 4; k++)
      if (k != n) m_write(CSR_MSTATEEN0 + k, bit(63));
    EXPECT_TRUE(Illegal(read(s, Priv::S))) << n;
    for (unsigned k = 0; k < 4; k++) m_write(CSR_MSTATEEN0 + k, 0);
  }
}

TEST_F(Stateen, EnvcfgGatesSenvcfg) {
  m_write(CSR_MSTATEEN0, bit(63) | bit(60));
  EXPECT_TRUE(Illegal(read(CSR_SENVCFG, Priv::S)));
  EXPECT_TRUE(Illegal(write(CSR_SENVCFG, 1, Priv::S)));
  EXPECT_TRUE(Illegal(read(CSR_SENVCFG, Priv::U)));
  EXPECT_TRUE(Allowed(read(CSR_SENVCFG, Priv::M)));
  m_write(CSR_MSTATEEN0, bit(62));
  EXPECT_TRUE(Allowed(write(CSR_SENVCFG, 1, Priv::S)));
  const CsrResult r = read(CSR_SENVCFG, Priv::S);
  EXPECT_TRUE(Allowed(r));
  EXPECT_EQ(r.value, 1u);
  EXPECT_TRUE(Illegal(read(CSR_SENVCFG, Priv::U)));
}

TEST_F(Stateen, CsrindGatesSiselectAndSireg) {
  // An access that is allowed once CSRIND is set: sireg of delegated hpmcounter3.
  m_write(CSR_MENVCFG, MENVCFG_CDE);
  m_write(CSR_MCOUNTEREN, bit(3));
  m_write(CSR_SISELECT, 0x43);
  const uint16_t iregs[] = {CSR_SIREG, CSR_SIREG2, CSR_SIREG3, CSR_SIREG4, CSR_SIREG5, CSR_SIREG6};
  m_write(CSR_MSTATEEN0, bit(63) | bit(62));
  EXPECT_TRUE(Illegal(read(CSR_SISELECT, Priv::S)));
  EXPECT_TRUE(Illegal(write(CSR_SISELECT, 0x43, Priv::S)));
  for (uint16_t n : iregs) EXPECT_TRUE(Illegal(read(n, Priv::S))) << n;
  EXPECT_TRUE(Allowed(read(CSR_SISELECT, Priv::M)));
  EXPECT_TRUE(Allowed(read(CSR_SIREG, Priv::M)));
  m_write(CSR_MSTATEEN0, bit(60));
  EXPECT_TRUE(Allowed(read(CSR_SISELECT, Priv::S)));
  EXPECT_TRUE(Allowed(read(CSR_SIREG, Priv::S)));
  EXPECT_TRUE(Allowed(read(CSR_SIREG2, Priv::S)));
  EXPECT_TRUE(Illegal(read(CSR_SISELECT, Priv::U)));
  EXPECT_TRUE(Illegal(read(CSR_SIREG, Priv::U)));
}

// The predicate itself, for bits with no CSR behind them yet (CTR), and for sstateen's user bits.
TEST_F(Stateen, Predicate) {
  auto gate = [&](Priv p, unsigned b) {
    return direct(p, [&](const Insn& i) { return stateen_check(h, i, b, false); });
  };
  m_write(CSR_MSTATEEN0, 0);
  EXPECT_TRUE(Illegal(gate(Priv::S, STATEEN0_CTR)));
  EXPECT_TRUE(Illegal(gate(Priv::U, STATEEN0_CTR)));
  EXPECT_TRUE(Allowed(gate(Priv::M, STATEEN0_CTR)));
  m_write(CSR_MSTATEEN0, bit(STATEEN0_CTR));
  EXPECT_TRUE(Allowed(gate(Priv::S, STATEEN0_CTR)));
  EXPECT_TRUE(Allowed(gate(Priv::U, STATEEN0_CTR)));  // mstateen's upper half has no sstateen twin
  // Bit 63 of mstateen1 is bit 127.
  m_write(CSR_MSTATEEN1, bit(63));
  EXPECT_TRUE(Allowed(gate(Priv::S, 64 + STATEEN_SE)));
  EXPECT_TRUE(Illegal(gate(Priv::S, 128 + STATEEN_SE)));

  // A user-level bit (no writable one exists in brisk, so set the state directly): U needs it in
  // both mstateen and sstateen, S only in mstateen.
  h.csr.mstateen[0] = bit(2);
  h.csr.sstateen[0] = 0;
  EXPECT_TRUE(Allowed(gate(Priv::S, 2)));
  EXPECT_TRUE(Illegal(gate(Priv::U, 2)));
  h.csr.sstateen[0] = bit(2);
  EXPECT_TRUE(Allowed(gate(Priv::U, 2)));
  h.csr.mstateen[0] = 0;
  EXPECT_TRUE(Illegal(gate(Priv::U, 2)));
  EXPECT_TRUE(Illegal(gate(Priv::S, 2)));
}

TEST_F(Stateen, CpuOptionsKeepPairsTogether) {
  EXPECT_THROW(isa("ssstateen=off"), std::exception);
  EXPECT_THROW(isa("smcdeleg=off"), std::exception);
  EXPECT_THROW(isa("sscsrind=off"), std::exception);
}

}  // namespace
}  // namespace brisk::test
