// Smctr/Ssctr (csr/ctr.cpp): the CSRs and their access rules, the siselect 0x200..0x2FF entry
// window, SCTRCLR, the recording rules of transfers and traps, RASEMU, the cycle counter and the
// freezes (smctr.adoc), with the V=1 rows forced as brisk has no H yet; and seed 000's four
// "check yourself" questions.

#include <cstring>
#include <string>

#include "csr/csr_numbers.h"
#include "csr/ctr.h"
#include "csr/privileged.h"
#include "csr/table.h"
#include "csr_harness.h"
#include "runtime/error.h"
#include "runtime/interp.h"

namespace brisk::test {
namespace {

using namespace csr;
using namespace ctr;

constexpr uint64_t bit(unsigned b) { return 1ull << b; }
constexpr unsigned kU = 0, kS = 1, kM = 3;

// Encodings run through the interpreter at kPc.
constexpr uint64_t kPc = 0x80001000;
constexpr uint32_t kJalRa16 = 0x010000ef;     // jal ra, +16: direct call
constexpr uint32_t kJalZero16 = 0x0100006f;   // jal zero, +16: direct jump
constexpr uint32_t kJalGp16 = 0x010001ef;     // jal gp, +16: other direct jump
constexpr uint32_t kJalrRaT1 = 0x000300e7;    // jalr ra, 0(t1): indirect call
constexpr uint32_t kJalrZeroT1 = 0x00030067;  // jalr zero, 0(t1): indirect jump
constexpr uint32_t kJalrGpT1 = 0x000301e7;    // jalr gp, 0(t1): other indirect jump
constexpr uint32_t kJalrRaT0 = 0x000280e7;    // jalr ra, 0(t0): co-routine swap
constexpr uint32_t kRet = 0x00008067;         // jalr zero, 0(ra): function return
constexpr uint32_t kBeqTaken = 0x00000463;    // beq zero, zero, +8
constexpr uint32_t kBneNotTaken = 0x00001463; // bne zero, zero, +8
constexpr uint32_t kAddi = 0x00100513;        // addi a0, zero, 1

constexpr uint64_t kHandler = 0x80000400, kEpc = 0x80002000, kReturnPc = 0x80003000;
constexpr uint64_t kBreakpointCause = cause::kBreakpoint;
constexpr uint64_t kEcallFromU = 8;
constexpr uint64_t kLcofi = cause::kInterruptBit | IRQ_LCOF;
constexpr uint64_t kSupervisorTimer = cause::kInterruptBit | IRQ_S_TIMER;

class Ctr : public CsrTest {
 protected:
  Interpreter interp;

  void SetUp() override {
    CsrTest::SetUp();
    h.x[6] = 0x80004000;  // t1
    h.x[5] = 0x80005000;  // t0
    h.x[1] = 0x80006000;  // ra
  }

  // The hart runs in p from now on (as after a trap or xRET), with CTR's activity following.
  void enter(Priv p) {
    pmu::leave_mode(h);
    h.priv = p;
    sync_activity(h);
  }
  // mctrctl = v, written from the current mode as M-mode software would (write_ctrctl is the CSR's).
  void control(uint64_t v) { write_ctrctl(h, v, false); }
  // Runs the instruction `raw` at pc through the interpreter, as the exec loop would.
  Status exec(uint32_t raw, uint64_t pc = kPc) {
    h.pc = pc;
    return interp.execute(h, decode(raw, h.csr.isa));
  }
  Record entry(unsigned n) { return logical_entry(h, n); }
  unsigned wrptr() { return static_cast<unsigned>(sctrstatus(h) & SCTRSTATUS_WRPTR); }
  // A transfer the recording point qualified, after its instruction retired.
  void transfer(uint64_t source, uint64_t target, TransferType type = TransferType::DirectCall) {
    h.instret++;
    if ((record_mask(h) >> static_cast<unsigned>(type)) & 1) record(h, source, target, type, false);
  }
  // S-mode may touch CTR state and the indirect CSRs.
  void grant_s() { m_write(CSR_MSTATEEN0, bit(STATEEN0_CTR) | bit(STATEEN0_CSRIND)); }
  // sireg<k> (1..6) of siselect `sel`, read and written from p.
  CsrResult sireg(unsigned k, uint64_t sel, Priv p = Priv::M) {
    m_write(CSR_SISELECT, sel);
    return read(kSiregs[k - 1], p);
  }
  CsrResult sireg_write(unsigned k, uint64_t sel, uint64_t v, Priv p = Priv::M) {
    m_write(CSR_SISELECT, sel);
    return write(kSiregs[k - 1], v, p);
  }
  CsrResult sctrclr_in(Priv p, bool virt) {
    return direct(p, [&](const Insn& i) { return sctrclr(h, i, virt); });
  }
  // The number of physical entries that are not all zero.
  unsigned nonzero_entries() const {
    unsigned n = 0;
    for (const Entry& e : h.csr.ctr.entries) n += (e.source | e.target | e.type | e.cycles) != 0;
    return n;
  }
  static constexpr uint16_t kSiregs[] = {CSR_SIREG, CSR_SIREG2, CSR_SIREG3, CSR_SIREG4, CSR_SIREG5, CSR_SIREG6};
};

uint64_t type_of(const Record& r) { return r.data & CTRDATA_TYPE; }
uint64_t cc_of(const Record& r) { return (r.data & CTRDATA_CC) >> CTRDATA_CC_SHIFT; }
bool ccv_of(const Record& r) { return r.data & CTRDATA_CCV; }

// --- Seed 000, "Check yourself" ---

// 1. Logical entry 0 (siselect 0x200) is the youngest record, the physical entry before WRPTR.
TEST_F(Ctr, Seed000Q1YoungestEntryIsSiselect0x200) {
  grant_s();
  control(CTRCTL_U);
  enter(Priv::U);
  transfer(0x1000, 0x2000);
  transfer(0x3000, 0x4000, TransferType::DirectJump);
  enter(Priv::S);
  EXPECT_EQ(sireg(1, 0x200, Priv::S).value, 0x3000 | CTRSOURCE_V);
  EXPECT_EQ(sireg(2, 0x200, Priv::S).value, 0x4000u);
  EXPECT_EQ(sireg(3, 0x200, Priv::S).value & CTRDATA_TYPE, uint64_t(TransferType::DirectJump));
  EXPECT_EQ(sireg(1, 0x201, Priv::S).value, 0x1000 | CTRSOURCE_V);
  EXPECT_EQ(wrptr(), 2u);
  EXPECT_EQ(h.csr.ctr.entries[1].source, 0x3000 | CTRSOURCE_V);  // (WRPTR - 0 - 1) % depth
}

// 2. VS access to sctrdepth is always virtual-instruction, whatever hstateen0 says: the hypervisor
// keeps the depth to itself (for migration); mstateen0.CTR = 0 still comes first.
TEST_F(Ctr, Seed000Q2VsSctrdepthIsAlwaysVirtualInstruction) {
  auto vs = [&] { return direct(Priv::S, [&](const Insn& i) { return check_sctrdepth(h, i, true); }); };
  EXPECT_TRUE(Illegal(vs()));  // mstateen0.CTR = 0
  grant_s();
  EXPECT_TRUE(Virtual(vs()));
  h.csr.hstateen[0] = bit(STATEEN0_CTR);
  EXPECT_TRUE(Virtual(vs()));
  EXPECT_TRUE(Allowed(direct(Priv::S, [&](const Insn& i) { return check_sctrdepth(h, i, false); })));
  // sctrctl and sctrstatus, by contrast, follow hstateen0.CTR with V = 1.
  EXPECT_TRUE(Allowed(direct(Priv::S, [&](const Insn& i) { return check_ctr(h, i, true); })));
}

// 3. mstateen0.CTR guards the interface, not the recorder: S records while its CTR accesses trap.
TEST_F(Ctr, Seed000Q3RecordingContinuesWithMstateen0CtrClear) {
  ASSERT_EQ(m_read(CSR_MSTATEEN0) & bit(STATEEN0_CTR), 0u);
  m_write(CSR_MCTRCTL, CTRCTL_S);
  enter(Priv::S);
  ASSERT_EQ(exec(kJalRa16), Status::Jump);
  EXPECT_TRUE(Illegal(read(CSR_SCTRSTATUS, Priv::S)));
  EXPECT_TRUE(Illegal(sireg(1, 0x200, Priv::S)));
  EXPECT_TRUE(Illegal(sctrclr_in(Priv::S, false)));
  EXPECT_EQ(m_read(CSR_SCTRSTATUS), 1u);
  EXPECT_EQ(sireg(1, 0x200).value, kPc | CTRSOURCE_V);
  EXPECT_EQ(sireg(2, 0x200).value, kPc + 16);
}

// 4. SCTRCLR zeroes every physical entry at every depth and the cycle counter with CCV: every
// entry reads 0 until the next record, and that record has CCV = 0.
TEST_F(Ctr, Seed000Q4SctrclrGuarantees) {
  grant_s();
  control(CTRCTL_U | CTRCTL_S);
  enter(Priv::S);
  for (unsigned k = 0; k < 300; k++) transfer(0x1000 + 4 * k, 0x2000);
  ASSERT_EQ(nonzero_entries(), kMaxDepth);
  m_write(CSR_SCTRDEPTH, 0);  // depth 16: SCTRCLR must still clear the 240 entries beyond it
  h.instret += 50;
  ASSERT_TRUE(Allowed(sctrclr_in(Priv::S, false)));
  EXPECT_EQ(nonzero_entries(), 0u);
  m_write(CSR_SCTRDEPTH, 4);
  for (unsigned n = 0; n < kMaxDepth; n++)
    for (unsigned k = 1; k <= 3; k++) EXPECT_EQ(sireg(k, 0x200 + n, Priv::S).value, 0u) << n;
  transfer(0x5000, 0x6000);
  EXPECT_FALSE(ccv_of(entry(0)));
  transfer(0x5000, 0x6000);
  EXPECT_TRUE(ccv_of(entry(0)));
}

// --- CSRs: mctrctl, sctrctl, vsctrctl ---

TEST_F(Ctr, MctrctlWarlKeepsOnlyDefinedFields) {
  m_write(CSR_MCTRCTL, ~0ull);
  EXPECT_EQ(m_read(CSR_MCTRCTL), MCTRCTL_MASK);
  EXPECT_EQ(MCTRCTL_MASK & (0x78 | bit(10) | (0xfull << 60) | bit(38) | bit(39) | bit(32)), 0u);
  m_write(CSR_MCTRCTL, 0);
  EXPECT_EQ(m_read(CSR_MCTRCTL), 0u);
}

TEST_F(Ctr, SctrctlIsMctrctlWithoutMAndMte) {
  m_write(CSR_MCTRCTL, ~0ull);
  EXPECT_EQ(m_read(CSR_SCTRCTL), MCTRCTL_MASK & ~(CTRCTL_M | CTRCTL_MTE));
  m_write(CSR_SCTRCTL, 0);
  EXPECT_EQ(m_read(CSR_MCTRCTL), CTRCTL_M | CTRCTL_MTE);  // not reachable through sctrctl
  m_write(CSR_SCTRCTL, CTRCTL_U | CTRCTL_M);
  EXPECT_EQ(m_read(CSR_MCTRCTL), CTRCTL_U | CTRCTL_M | CTRCTL_MTE);
}

TEST_F(Ctr, VsctrctlIsAbsentWithoutH) {
  EXPECT_TRUE(Illegal(read(CSR_VSCTRCTL)));
  EXPECT_TRUE(Illegal(write(CSR_VSCTRCTL, 0)));
}

// With V = 1, sctrctl is vsctrctl: M and MTE read-only 0, and mctrctl untouched.
TEST_F(Ctr, SctrctlWithVForcedIsVsctrctl) {
  write_sctrctl(h, ~0ull, true);
  EXPECT_EQ(h.csr.ctr.vsctrctl, SCTRCTL_MASK);
  EXPECT_EQ(sctrctl(h, true), SCTRCTL_MASK);
  EXPECT_EQ(h.csr.ctr.mctrctl, 0u);
  EXPECT_EQ(sctrctl(h, false), 0u);
}

TEST_F(Ctr, CsrAccessByPrivilegeAndMstateen0) {
  for (uint16_t num : {CSR_SCTRCTL, CSR_SCTRSTATUS, CSR_SCTRDEPTH}) {
    EXPECT_TRUE(Allowed(read(num))) << num;  // M: no stateen bit restricts it
    EXPECT_TRUE(Illegal(read(num, Priv::U))) << num;
    EXPECT_TRUE(Illegal(read(num, Priv::S))) << num;  // mstateen0.CTR = 0
  }
  EXPECT_TRUE(Illegal(read(CSR_MCTRCTL, Priv::S)));
  grant_s();
  for (uint16_t num : {CSR_SCTRCTL, CSR_SCTRSTATUS, CSR_SCTRDEPTH}) {
    EXPECT_TRUE(Allowed(read(num, Priv::S))) << num;
    EXPECT_TRUE(Allowed(write(num, 0, Priv::S))) << num;
    EXPECT_TRUE(Illegal(read(num, Priv::U))) << num;
  }
  EXPECT_TRUE(Illegal(read(CSR_MCTRCTL, Priv::S)));
}

// hstateen0.CTR with V forced: virtual-instruction when clear, and mstateen0.CTR = 0 wins.
TEST_F(Ctr, CsrAccessWithVForcedFollowsHstateen0) {
  auto vs = [&] { return direct(Priv::S, [&](const Insn& i) { return check_ctr(h, i, true); }); };
  EXPECT_TRUE(Illegal(vs()));
  h.csr.hstateen[0] = bit(STATEEN0_CTR);
  EXPECT_TRUE(Illegal(vs()));  // mstateen0.CTR still 0
  grant_s();
  EXPECT_TRUE(Allowed(vs()));
  h.csr.hstateen[0] = 0;
  EXPECT_TRUE(Virtual(vs()));
}

TEST_F(Ctr, MstateenCtrIsWritableOnlyWithSmctr) {
  m_write(CSR_MSTATEEN0, bit(STATEEN0_CTR));
  EXPECT_EQ(m_read(CSR_MSTATEEN0), bit(STATEEN0_CTR));
  isa("smctr=off,ssctr=off");
  m_write(CSR_MSTATEEN0, bit(STATEEN0_CTR));
  EXPECT_EQ(m_read(CSR_MSTATEEN0), 0u);
}

TEST_F(Ctr, EverythingIsIllegalWithoutSmctr) {
  isa("smctr=off,ssctr=off");
  for (uint16_t num : {CSR_MCTRCTL, CSR_SCTRCTL, CSR_SCTRSTATUS, CSR_SCTRDEPTH})
    EXPECT_TRUE(Illegal(read(num))) << num;
  EXPECT_TRUE(Illegal(sireg(1, 0x200)));
  EXPECT_EQ(decode(kSctrclrRaw, h.csr.isa).op, Op::ILLEGAL);
  h.csr.ctr.mctrctl = CTRCTL_M;
  EXPECT_EQ(record_mask(h), 0u);
}

// --- sctrdepth ---

TEST_F(Ctr, SctrdepthWarlOverSupportedDepths) {
  EXPECT_EQ(m_read(CSR_SCTRDEPTH), 4u);  // the largest supported
  for (uint64_t code = 0; code < 5; code++) {
    m_write(CSR_SCTRDEPTH, code);
    EXPECT_EQ(m_read(CSR_SCTRDEPTH), code);
    EXPECT_EQ(depth(h.csr.ctr), 16u << code);
  }
  for (uint64_t bad : {5ull, 6ull, 7ull}) {
    m_write(CSR_SCTRDEPTH, bad);
    EXPECT_EQ(m_read(CSR_SCTRDEPTH), 4u) << bad;  // reserved: the old value stays
  }
  m_write(CSR_SCTRDEPTH, ~0ull & ~7ull);  // bits above DEPTH are read-only 0
  EXPECT_EQ(m_read(CSR_SCTRDEPTH), 0u);
}

TEST_F(Ctr, CtrDepthsOptionLimitsSctrdepth) {
  IsaConfig isa;
  isa.apply("rv64,ctr-depths=16,64,zba=off");
  EXPECT_EQ(isa.ctr_depths, 0b101);
  EXPECT_FALSE(isa.has(Ext::Zba));
  set_isa(h, isa);
  EXPECT_EQ(m_read(CSR_SCTRDEPTH), 2u);  // 64, the largest given
  m_write(CSR_SCTRDEPTH, 1);  // 32: unsupported, kept at 64
  EXPECT_EQ(m_read(CSR_SCTRDEPTH), 2u);
  m_write(CSR_SCTRDEPTH, 0);
  EXPECT_EQ(m_read(CSR_SCTRDEPTH), 0u);
  m_write(CSR_SCTRDEPTH, 1);  // 32: unsupported, kept at 16
  EXPECT_EQ(m_read(CSR_SCTRDEPTH), 0u);
  m_write(CSR_SCTRDEPTH, ~0ull);  // beyond the deepest: the deepest, 64
  EXPECT_EQ(m_read(CSR_SCTRDEPTH), 2u);
  csr::reset(h);
  EXPECT_EQ(m_read(CSR_SCTRDEPTH), 2u);
  IsaConfig one;
  one.apply("rv64,ctr-depths=256");
  EXPECT_EQ(one.ctr_depths, 0b10000);
}

TEST_F(Ctr, CtrDepthsOptionRejectsOtherValues) {
  for (const char* spec : {"rv64,ctr-depths=48", "rv64,ctr-depths=16,512", "rv64,ctr-depths=", "rv64,ctr-depths=0"}) {
    IsaConfig isa;
    try {
      isa.apply(spec);
      ADD_FAILURE() << spec << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("ctr-depths"), std::string::npos) << e.what();
    }
  }
}

// Smctr needs Ssctr and Sscsrind: dropping sscsrind without CTR is rejected, not silently applied.
TEST_F(Ctr, CtrNeedsSscsrindAndComesInTandem) {
  IsaConfig isa;
  EXPECT_THROW(isa.apply("rv64,smcdeleg=off,ssccfg=off,smcsrind=off,sscsrind=off"), Error);
  EXPECT_THROW(IsaConfig().apply("rv64,ssctr=off"), Error);
  EXPECT_THROW(IsaConfig().apply("rv64,smctr=off"), Error);
  IsaConfig ok;
  ok.apply("rv64,smcdeleg=off,ssccfg=off,smcsrind=off,sscsrind=off,smctr=off,ssctr=off");
  EXPECT_FALSE(ok.has(Ext::Smctr));
  const std::string s = IsaConfig().isa_string();
  EXPECT_NE(s.find("_smctr"), std::string::npos);
  EXPECT_NE(s.find("_ssctr"), std::string::npos);
}

// --- sctrstatus ---

TEST_F(Ctr, SctrstatusWrptrBitsBeyondDepthReadZero) {
  m_write(CSR_SCTRSTATUS, ~0ull);
  EXPECT_EQ(m_read(CSR_SCTRSTATUS), 0xffu | SCTRSTATUS_FROZEN);  // depth 256; bits 30:8 and 63:32 read 0
  m_write(CSR_SCTRDEPTH, 0);
  m_write(CSR_SCTRSTATUS, 0xff);
  EXPECT_EQ(m_read(CSR_SCTRSTATUS), 0xfu);
  m_write(CSR_SCTRDEPTH, 1);
  m_write(CSR_SCTRSTATUS, 0x3a);
  EXPECT_EQ(m_read(CSR_SCTRSTATUS), 0x1au);
}

TEST_F(Ctr, SctrstatusFrozenStopsRecording) {
  control(CTRCTL_U);
  enter(Priv::U);
  EXPECT_NE(record_mask(h), 0u);
  m_write(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN);
  EXPECT_TRUE(h.csr.ctr.frozen);
  EXPECT_EQ(record_mask(h), 0u);
  ASSERT_EQ(exec(kJalRa16), Status::Jump);
  EXPECT_EQ(wrptr(), 0u);
  m_write(CSR_SCTRSTATUS, 0);
  enter(Priv::U);
  ASSERT_EQ(exec(kJalRa16), Status::Jump);
  EXPECT_EQ(wrptr(), 1u);
}

// WRPTR wraps to 0 after depth - 1, the oldest record being overwritten.
void check_wrap(Hart& h, unsigned code) {
  set_depth(h, code);
  const unsigned d = 16u << code;
  for (unsigned k = 0; k <= d; k++) {
    h.instret++;
    record(h, 0x1000 + 4 * k, 0x2000, TransferType::DirectCall, false);
  }
  EXPECT_EQ(sctrstatus(h) & SCTRSTATUS_WRPTR, 1u) << d;
  EXPECT_EQ(logical_entry(h, 0).source, (0x1000 + 4 * d) | CTRSOURCE_V);
  EXPECT_EQ(logical_entry(h, d - 1).source, 0x1004 | CTRSOURCE_V);  // the first record is gone
  EXPECT_EQ(logical_entry(h, d).source, 0u);
}

TEST_F(Ctr, WrptrWrapsAtDepth16) {
  control(CTRCTL_M);
  check_wrap(h, 0);
}

TEST_F(Ctr, WrptrWrapsAtDepth256) {
  control(CTRCTL_M);
  check_wrap(h, 4);
}

// --- The entry window ---

TEST_F(Ctr, EntryWindowBeyondDepthReadsZeroAndIgnoresWrites) {
  grant_s();
  m_write(CSR_SCTRDEPTH, 0);
  for (uint64_t sel : {0x210ull, 0x2ffull}) {
    ASSERT_TRUE(Allowed(sireg_write(1, sel, 0x1234, Priv::S)));
    ASSERT_TRUE(Allowed(sireg_write(3, sel, 0x5, Priv::S)));
    EXPECT_EQ(sireg(1, sel, Priv::S).value, 0u);
    EXPECT_EQ(sireg(3, sel, Priv::S).value, 0u);
  }
  EXPECT_EQ(nonzero_entries(), 0u);
}

TEST_F(Ctr, EntryWindowSireg4To6ReadZero) {
  grant_s();
  control(CTRCTL_M);
  record(h, 0x1000, 0x2000, TransferType::DirectCall, false);
  for (unsigned k = 4; k <= 6; k++) {
    EXPECT_TRUE(Allowed(sireg_write(k, 0x200, ~0ull, Priv::S))) << k;
    EXPECT_EQ(sireg(k, 0x200, Priv::S).value, 0u) << k;
  }
  EXPECT_EQ(sireg(1, 0x200).value, 0x1000 | CTRSOURCE_V);
  EXPECT_EQ(sireg(2, 0x200).value, 0x2000u);
}

TEST_F(Ctr, EntryWindowWritesReadBack) {
  grant_s();
  m_write(CSR_SCTRSTATUS, 5);
  // Logical entry 2 is physical entry 5 - 2 - 1 = 2.
  ASSERT_TRUE(Allowed(sireg_write(1, 0x202, 0xffffffff80001235ull, Priv::S)));
  ASSERT_TRUE(Allowed(sireg_write(2, 0x202, 0x80002001ull, Priv::S)));
  const uint64_t data = 0xffffffff00000000ull | 0xabcdull << 16 | CTRDATA_CCV | 0x7ff0 | 9;
  ASSERT_TRUE(Allowed(sireg_write(3, 0x202, data, Priv::S)));
  EXPECT_EQ(sireg(1, 0x202, Priv::S).value, 0xffffffff80001235ull);  // full MXLEN width
  EXPECT_EQ(sireg(2, 0x202, Priv::S).value, 0x80002001ull);
  EXPECT_EQ(sireg(3, 0x202, Priv::S).value, 0xabcdull << 16 | CTRDATA_CCV | 9);  // WPRI bits read 0
  EXPECT_EQ(h.csr.ctr.entries[2].source, 0xffffffff80001235ull);
  // Every CC value reads back as written, with and without CCV.
  for (uint64_t cc : {0ull, 1ull, 0xfffull, 0x1000ull, 0x1fffull, 0x2000ull, 0xfffeull, 0xffffull}) {
    ASSERT_TRUE(Allowed(sireg_write(3, 0x200, cc << 16 | 4, Priv::S)));
    EXPECT_EQ(sireg(3, 0x200, Priv::S).value, cc << 16 | 4) << cc;
  }
}

TEST_F(Ctr, EntryWindowStateenGating) {
  m_write(CSR_MSTATEEN0, bit(STATEEN0_CSRIND));  // CSRIND but not CTR
  ASSERT_TRUE(Allowed(write(CSR_SISELECT, 0x200, Priv::S)));
  for (unsigned k = 1; k <= 6; k++) {
    EXPECT_TRUE(Illegal(sireg(k, 0x200, Priv::S))) << k;
    EXPECT_TRUE(Illegal(sireg_write(k, 0x2ff, 0, Priv::S))) << k;
  }
  m_write(CSR_MSTATEEN0, bit(STATEEN0_CTR));  // CTR but not CSRIND
  EXPECT_TRUE(Illegal(sireg(1, 0x200, Priv::S)));
  grant_s();
  EXPECT_TRUE(Allowed(sireg(1, 0x200, Priv::S)));
  EXPECT_TRUE(Illegal(sireg(1, 0x200, Priv::U)));
  // V forced (vsireg*): hstateen0.CTR.
  auto vs = [&] { return direct(Priv::S, [&](const Insn& i) { return kCtrEntryIreg.check(h, i, 0x200, 1, false, true); }); };
  EXPECT_TRUE(Virtual(vs()));
  h.csr.hstateen[0] = bit(STATEEN0_CTR);
  EXPECT_TRUE(Allowed(vs()));
  m_write(CSR_MSTATEEN0, bit(STATEEN0_CSRIND));
  EXPECT_TRUE(Illegal(vs()));
}

// --- SCTRCLR ---

TEST_F(Ctr, SctrclrAccessRules) {
  h.csr.ctr.entries[200].source = 1;
  EXPECT_TRUE(Allowed(sctrclr_in(Priv::M, false)));  // M: mstateen0 does not apply
  EXPECT_EQ(nonzero_entries(), 0u);
  EXPECT_TRUE(Illegal(sctrclr_in(Priv::S, false)));  // mstateen0.CTR = 0
  EXPECT_TRUE(Illegal(sctrclr_in(Priv::U, false)));
  grant_s();
  EXPECT_TRUE(Allowed(sctrclr_in(Priv::S, false)));
  EXPECT_TRUE(Illegal(sctrclr_in(Priv::U, false)));
  // V forced: VS follows hstateen0.CTR, VU is virtual-instruction.
  EXPECT_TRUE(Virtual(sctrclr_in(Priv::S, true)));
  EXPECT_TRUE(Virtual(sctrclr_in(Priv::U, true)));
  h.csr.hstateen[0] = bit(STATEEN0_CTR);
  EXPECT_TRUE(Allowed(sctrclr_in(Priv::S, true)));
  EXPECT_TRUE(Virtual(sctrclr_in(Priv::U, true)));
  m_write(CSR_MSTATEEN0, 0);
  EXPECT_TRUE(Illegal(sctrclr_in(Priv::U, true)));
}

TEST_F(Ctr, SctrclrDecodesAndRunsThroughTheInterpreter) {
  const Insn i = decode(kSctrclrRaw, h.csr.isa);
  EXPECT_EQ(i.op, Op::SCTRCLR);
  EXPECT_TRUE(op_info(i.op).flags & kEnd);
  h.csr.ctr.entries[255] = {1, 2, 3, 4};
  enter(Priv::U);
  EXPECT_EQ(exec(kSctrclrRaw), Status::Trap);
  EXPECT_EQ(h.trap.cause, cause::kIllegalInstruction);
  EXPECT_EQ(h.trap.tval, kSctrclrRaw);
  EXPECT_EQ(nonzero_entries(), 1u);
  enter(Priv::M);
  EXPECT_EQ(exec(kSctrclrRaw), Status::Next);
  EXPECT_EQ(nonzero_entries(), 0u);
}

// --- Recording: types, filters, enables ---

struct TypeCase {
  uint32_t raw;
  TransferType type;
  uint64_t target;
};

TEST_F(Ctr, EveryJumpAndBranchTypeIsRecorded) {
  control(CTRCTL_U | CTRCTL_NTBREN);
  enter(Priv::U);
  const TypeCase cases[] = {
      {kJalRa16, TransferType::DirectCall, kPc + 16},      {kJalZero16, TransferType::DirectJump, kPc + 16},
      {kJalGp16, TransferType::OtherDirectJump, kPc + 16}, {kJalrRaT1, TransferType::IndirectCall, 0x80004000},
      {kJalrZeroT1, TransferType::IndirectJump, 0x80004000}, {kJalrGpT1, TransferType::OtherIndirectJump, 0x80004000},
      {kJalrRaT0, TransferType::CoroutineSwap, 0x80005000}, {kBeqTaken, TransferType::TakenBranch, kPc + 8},
      {kBneNotTaken, TransferType::NotTakenBranch, kPc + 4},  // the fall-through pc
  };
  for (const TypeCase& c : cases) {
    const unsigned before = wrptr();
    exec(c.raw);
    ASSERT_EQ(wrptr(), before + 1) << unsigned(c.type);
    EXPECT_EQ(entry(0).source, kPc | CTRSOURCE_V) << unsigned(c.type);
    EXPECT_EQ(entry(0).target & ~CTRTARGET_MISP, c.target) << unsigned(c.type);
    EXPECT_EQ(type_of(entry(0)), uint64_t(c.type));
  }
  h.x[1] = 0x80006000;
  exec(kRet);
  EXPECT_EQ(type_of(entry(0)), uint64_t(TransferType::Return));
  EXPECT_EQ(entry(0).target, 0x80006000u);
  const unsigned before = wrptr();
  exec(kAddi);
  EXPECT_EQ(wrptr(), before);
}

TEST_F(Ctr, NotTakenBranchesNeedNtbren) {
  control(CTRCTL_U);
  enter(Priv::U);
  exec(kBneNotTaken);
  EXPECT_EQ(wrptr(), 0u);
  exec(kBeqTaken);
  EXPECT_EQ(wrptr(), 1u);
}

// Each inhibit bit 32 + TYPE removes exactly its type from the mask (NTBREN, bit 36, adds it).
TEST_F(Ctr, InhibitBitsFilterTheirTypeOnly) {
  enter(Priv::U);
  control(CTRCTL_U);
  const uint32_t all = record_mask(h);
  EXPECT_EQ(all, 0xff2eu) << std::hex << all;  // types 1-3, 5, 8-15
  for (unsigned t : {1u, 2u, 3u, 5u, 8u, 9u, 10u, 11u, 12u, 13u, 14u, 15u}) {
    control(CTRCTL_U | bit(CTRCTL_TYPE_SHIFT + t));
    EXPECT_EQ(record_mask(h), all & ~(1u << t)) << t;
  }
  control(CTRCTL_U | CTRCTL_NTBREN);
  EXPECT_EQ(record_mask(h), all | 1u << 4);
}

TEST_F(Ctr, ModeEnablesSelectTheModesThatRecord) {
  for (auto [ctl, mode] : {std::pair{CTRCTL_U, Priv::U}, std::pair{CTRCTL_S, Priv::S}, std::pair{CTRCTL_M, Priv::M}}) {
    control(ctl);
    for (Priv p : {Priv::U, Priv::S, Priv::M}) {
      enter(p);
      EXPECT_EQ(record_mask(h) != 0, p == mode) << int(p);
      EXPECT_EQ(is_active(h), p == mode);
    }
  }
}

// vsctrctl's enables and filters decide V=1 recording, and cannot affect V=0 (forced V).
TEST_F(Ctr, VsctrctlFiltersOnlyVirtualModes) {
  write_sctrctl(h, CTRCTL_U | CTRCTL_S | CTRCTL_TKBRINH, true);
  EXPECT_EQ(record_mask(h, kU, false), 0u);
  EXPECT_EQ(record_mask(h, kS, false), 0u);
  EXPECT_EQ(record_mask(h, kU, true) & (1u << 5), 0u);
  EXPECT_NE(record_mask(h, kU, true) & (1u << 9), 0u);
  EXPECT_NE(record_mask(h, kS, true), 0u);
  control(CTRCTL_U | CTRCTL_S | CTRCTL_M);
  write_sctrctl(h, 0, true);
  EXPECT_EQ(record_mask(h, kU, true), 0u);
  EXPECT_EQ(record_mask(h, kS, true), 0u);
  EXPECT_EQ(record_mask(h, kM, true), 0u);
  EXPECT_NE(record_mask(h, kU, false), 0u);
}

// --- MISP: the branch-misses predictor, run once ---

TEST_F(Ctr, MispComesFromTheBranchPredictorRunOnce) {
  control(CTRCTL_U);
  m_write(CSR_MHPMEVENT3, pmu::kBranchMisses);
  enter(Priv::U);
  pmu::Gshare reference;
  uint64_t misses = 0;
  for (unsigned k = 0; k < 6; k++) {
    const bool expect = reference.mispredicted(kPc, true);
    misses += expect;
    exec(kBeqTaken);
    EXPECT_EQ(entry(0).target & CTRTARGET_MISP, expect ? 1u : 0u) << k;
  }
  EXPECT_EQ(h.csr.pmu.predictor.history, reference.history);
  EXPECT_EQ(std::memcmp(h.csr.pmu.predictor.counter, reference.counter, sizeof reference.counter), 0);
  enter(Priv::M);
  EXPECT_EQ(m_read(CSR_MHPMCOUNTER3), misses);
}

TEST_F(Ctr, MispAloneRunsThePredictorAndJumpsHaveNone) {
  control(CTRCTL_U);
  enter(Priv::U);
  exec(kBeqTaken);
  EXPECT_EQ(entry(0).target & CTRTARGET_MISP, 1u);  // counters start at strongly not-taken
  EXPECT_EQ(h.csr.pmu.predictor.history, 1u);
  exec(kJalrRaT1);
  EXPECT_EQ(entry(0).target & CTRTARGET_MISP, 0u);
  EXPECT_EQ(h.csr.pmu.predictor.history, 1u);
  control(0);
  exec(kBeqTaken);  // neither recorded nor counted: no prediction
  EXPECT_EQ(h.csr.pmu.predictor.history, 1u);
}

// --- RASEMU ---

TEST_F(Ctr, RasemuCallsPushReturnsPopSwapsReplace) {
  control(CTRCTL_U | CTRCTL_RASEMU | CTRCTL_NTBREN);
  enter(Priv::U);
  exec(kJalRa16, 0x1000);
  exec(kJalrRaT1, 0x2000);
  ASSERT_EQ(wrptr(), 2u);
  exec(kJalrRaT0, 0x3000);  // swap: logical entry 0 rewritten, WRPTR unchanged
  EXPECT_EQ(wrptr(), 2u);
  EXPECT_EQ(entry(0).source, 0x3000 | CTRSOURCE_V);
  EXPECT_EQ(type_of(entry(0)), uint64_t(TransferType::CoroutineSwap));
  EXPECT_EQ(entry(1).source, 0x1000 | CTRSOURCE_V);
  for (uint32_t other : {kJalZero16, kJalGp16, kJalrZeroT1, kJalrGpT1, kBeqTaken, kBneNotTaken}) exec(other);
  EXPECT_EQ(wrptr(), 2u);  // other types are inhibited
  exec(kRet, 0x4000);
  EXPECT_EQ(wrptr(), 1u);
  EXPECT_EQ(entry(0).source, 0x1000 | CTRSOURCE_V);
  EXPECT_EQ(entry(kMaxDepth - 1).source, 0x3000u);  // popped: V cleared
  // Traps and trap returns are ignored, xTE included.
  control(CTRCTL_U | CTRCTL_RASEMU | CTRCTL_STE);
  enter(Priv::S);
  on_trap(h, kU, false, kS, false, kEcallFromU, kEpc, kHandler);
  on_trap_return(h, kS, false, kU, false, kEpc, kReturnPc);
  control(CTRCTL_U | CTRCTL_S | CTRCTL_RASEMU);
  on_trap(h, kS, false, kS, false, kEcallFromU, kEpc, kHandler);
  on_trap_return(h, kS, false, kU, false, kEpc, kReturnPc);
  EXPECT_EQ(wrptr(), 1u);
}

void rasemu_chain(Hart& h, unsigned code) {
  set_depth(h, code);
  const unsigned d = 16u << code, calls = d + 5;
  for (unsigned k = 0; k < calls; k++) {
    h.instret++;
    record(h, 0x10000 + 4 * k, 0x20000, TransferType::DirectCall, false);
  }
  // The stack holds the last d calls, youngest first.
  for (unsigned n = 0; n < d; n++) ASSERT_EQ(logical_entry(h, n).source, (0x10000 + 4 * (calls - 1 - n)) | 1) << n;
  for (unsigned k = 0; k < d; k++) {
    h.instret++;
    EXPECT_EQ(logical_entry(h, 0).source, (0x10000 + 4 * (calls - 1 - k)) | 1) << k;
    record(h, 0x30000, 0x10004, TransferType::Return, false);
  }
  for (unsigned n = 0; n < d; n++) EXPECT_EQ(logical_entry(h, n).source & CTRSOURCE_V, 0u) << n;
  EXPECT_EQ(sctrstatus(h) & SCTRSTATUS_WRPTR, calls % d);
}

TEST_F(Ctr, RasemuLongCallReturnChainAtDepth16) {
  control(CTRCTL_M | CTRCTL_RASEMU);
  rasemu_chain(h, 0);
}

TEST_F(Ctr, RasemuLongCallReturnChainAtDepth256) {
  control(CTRCTL_M | CTRCTL_RASEMU);
  rasemu_chain(h, 4);
}

// --- Cycle counting ---

TEST_F(Ctr, CycleCountEncodingBoundaries) {
  EXPECT_EQ(encode_cycles(0), 0u);
  EXPECT_EQ(encode_cycles(4095), 0xfffu);
  EXPECT_EQ(encode_cycles(4096), 0x1000u);
  EXPECT_EQ(encode_cycles(8191), 0x1fffu);
  EXPECT_EQ(encode_cycles(8192), 0x2000u);
  EXPECT_EQ(encode_cycles(8193), 0x2000u);  // CCE = 2 drops bit 0
  EXPECT_EQ(encode_cycles(134201343), 0xfffeu);
  EXPECT_EQ(encode_cycles(134201344), 0xffffu);
  EXPECT_EQ(encode_cycles(134201345), 0xffffu);
  EXPECT_EQ(encode_cycles(1ull << 40), 0xffffu);
  EXPECT_EQ(decode_cycles(0xffff), 134201344u);
  EXPECT_EQ(decode_cycles(0x2000), 8192u);
  for (uint64_t cc = 0; cc <= 0xffff; cc++) ASSERT_EQ(encode_cycles(decode_cycles(cc)), cc) << cc;
}

// CC counts the cycles (instructions, in brisk's model) since the previous record, through records.
TEST_F(Ctr, CycleCountInRecordsAtBoundaries) {
  control(CTRCTL_U);
  enter(Priv::U);
  record(h, 0x1000, 0x2000, TransferType::DirectCall, false);
  EXPECT_FALSE(ccv_of(entry(0)));  // the first record after an mctrctl write
  struct Case {
    uint64_t n, cc;
  };
  for (auto [n, cc] : {Case{4095, 0xfff}, Case{4096, 0x1000}, Case{8191, 0x1fff}, Case{8192, 0x2000},
                       Case{134201344, 0xffff}, Case{134201345, 0xffff}, Case{1ull << 33, 0xffff}}) {
    h.instret += n;
    record(h, 0x1000, 0x2000, TransferType::DirectCall, false);
    EXPECT_TRUE(ccv_of(entry(0))) << n;
    EXPECT_EQ(cc_of(entry(0)), cc) << n;
  }
}

TEST_F(Ctr, CycleCounterRunsOnlyWhileActiveAndResetsOnCtrctlWrite) {
  control(CTRCTL_U);
  enter(Priv::U);
  record(h, 0x1000, 0x2000, TransferType::DirectCall, false);
  h.instret += 10;
  enter(Priv::S);  // not enabled: not counted
  h.instret += 1000;
  enter(Priv::U);
  h.instret += 5;
  m_write(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN);  // frozen: not counted
  h.instret += 1000;
  m_write(CSR_SCTRSTATUS, 0);
  enter(Priv::U);  // as the xRET back from the writer would
  h.instret += 3;
  record(h, 0x1000, 0x2000, TransferType::DirectCall, false);
  EXPECT_EQ(cc_of(entry(0)), 18u);
  EXPECT_TRUE(ccv_of(entry(0)));
  h.instret += 100;
  m_write(CSR_MCTRCTL, CTRCTL_U);  // resets the counter and CCV
  enter(Priv::U);
  h.instret += 4;
  record(h, 0x1000, 0x2000, TransferType::DirectCall, false);
  EXPECT_EQ(cc_of(entry(0)), 4u);
  EXPECT_FALSE(ccv_of(entry(0)));
}

// The interpreter records after retirement: the recording jump's own cycle is in its count.
TEST_F(Ctr, InterpreterCountsTheRecordedInstruction) {
  control(CTRCTL_U);
  enter(Priv::U);
  exec(kJalRa16);
  exec(kAddi);
  exec(kAddi);
  exec(kJalRa16);
  EXPECT_EQ(cc_of(entry(0)), 3u);
  EXPECT_TRUE(ccv_of(entry(0)));
}

// --- Traps and trap returns ("Trap and Trap Return Recording") ---

// Trap, enabled -> enabled: recorded, source epc, target the handler.
TEST_F(Ctr, TrapRowEnabledToEnabledIsRecorded) {
  control(CTRCTL_U | CTRCTL_S);
  enter(Priv::S);
  on_trap(h, kU, false, kS, false, kEcallFromU, kEpc, kHandler);
  EXPECT_EQ(entry(0).source, kEpc | CTRSOURCE_V);
  EXPECT_EQ(entry(0).target, kHandler);
  EXPECT_EQ(type_of(entry(0)), uint64_t(TransferType::Exception));
  on_trap(h, kS, false, kS, false, kSupervisorTimer, kEpc, kHandler);
  EXPECT_EQ(type_of(entry(0)), uint64_t(TransferType::Interrupt));
  EXPECT_EQ(wrptr(), 2u);
}

// Trap, disabled -> enabled: recorded with ctrsource.PC = 0.
TEST_F(Ctr, TrapRowDisabledToEnabledHasSourceZero) {
  control(CTRCTL_S);
  enter(Priv::S);
  on_trap(h, kU, false, kS, false, kEcallFromU, kEpc, kHandler);
  EXPECT_EQ(entry(0).source, CTRSOURCE_V);
  EXPECT_EQ(entry(0).target, kHandler);
}

// Trap, enabled -> disabled: an external trap, not recorded by default.
TEST_F(Ctr, TrapRowEnabledToDisabledIsExternalNotRecordedByDefault) {
  control(CTRCTL_U);
  enter(Priv::S);
  on_trap(h, kU, false, kS, false, kEcallFromU, kEpc, kHandler);
  EXPECT_EQ(wrptr(), 0u);
}

// Trap, disabled -> disabled: not recorded.
TEST_F(Ctr, TrapRowDisabledToDisabledIsNotRecorded) {
  control(CTRCTL_M | CTRCTL_MTE | CTRCTL_STE);
  enter(Priv::S);
  on_trap(h, kU, false, kS, false, kEcallFromU, kEpc, kHandler);
  EXPECT_EQ(wrptr(), 0u);
}

// Trap return, enabled -> enabled: recorded.
TEST_F(Ctr, TrapReturnRowEnabledToEnabledIsRecorded) {
  control(CTRCTL_U | CTRCTL_S);
  enter(Priv::U);
  on_trap_return(h, kS, false, kU, false, kEpc, kReturnPc);
  EXPECT_EQ(entry(0).source, kEpc | CTRSOURCE_V);
  EXPECT_EQ(entry(0).target, kReturnPc);
  EXPECT_EQ(type_of(entry(0)), uint64_t(TransferType::TrapReturn));
}

// Trap return, enabled -> disabled: recorded with ctrtarget.PC = 0.
TEST_F(Ctr, TrapReturnRowEnabledToDisabledHasTargetZero) {
  control(CTRCTL_M);
  enter(Priv::S);
  on_trap_return(h, kM, false, kS, false, kEpc, kReturnPc);
  EXPECT_EQ(entry(0).source, kEpc | CTRSOURCE_V);
  EXPECT_EQ(entry(0).target, 0u);
}

// Trap return, disabled -> enabled and disabled -> disabled: not recorded.
TEST_F(Ctr, TrapReturnRowsFromDisabledAreNotRecorded) {
  control(CTRCTL_U);
  enter(Priv::U);
  on_trap_return(h, kS, false, kU, false, kEpc, kReturnPc);
  control(CTRCTL_M);
  enter(Priv::U);
  on_trap_return(h, kS, false, kU, false, kEpc, kReturnPc);
  EXPECT_EQ(wrptr(), 0u);
}

TEST_F(Ctr, TrapInhibitBits) {
  control(CTRCTL_U | CTRCTL_S | CTRCTL_EXCINH);
  enter(Priv::S);
  on_trap(h, kU, false, kS, false, kEcallFromU, kEpc, kHandler);
  EXPECT_EQ(wrptr(), 0u);
  on_trap(h, kU, false, kS, false, kSupervisorTimer, kEpc, kHandler);
  EXPECT_EQ(wrptr(), 1u);
  control(CTRCTL_U | CTRCTL_S | CTRCTL_INTRINH);
  on_trap(h, kU, false, kS, false, kSupervisorTimer, kEpc, kHandler);
  EXPECT_EQ(wrptr(), 1u);
  on_trap(h, kU, false, kS, false, kEcallFromU, kEpc, kHandler);
  EXPECT_EQ(wrptr(), 2u);
  control(CTRCTL_U | CTRCTL_S | CTRCTL_TRETINH);
  on_trap_return(h, kS, false, kU, false, kEpc, kReturnPc);
  EXPECT_EQ(wrptr(), 2u);
  control(CTRCTL_S | CTRCTL_TRETINH);  // enabled -> disabled return: inhibited too
  on_trap_return(h, kS, false, kU, false, kEpc, kReturnPc);
  EXPECT_EQ(wrptr(), 2u);
}

TEST_F(Ctr, FrozenBlocksTrapRecording) {
  control(CTRCTL_U | CTRCTL_S);
  m_write(CSR_SCTRSTATUS, SCTRSTATUS_FROZEN);
  enter(Priv::S);
  on_trap(h, kU, false, kS, false, kEcallFromU, kEpc, kHandler);
  on_trap_return(h, kS, false, kU, false, kEpc, kReturnPc);
  EXPECT_EQ(wrptr(), 0u);
}

// --- External Trap Enable Requirements ---

struct ExternalRow {
  unsigned from;
  bool from_virt;
  unsigned to;
  bool to_virt;
  uint64_t mctrctl_te;   // MTE and STE needed in mctrctl/sctrctl
  uint64_t vsctrctl_te;  // STE needed in vsctrctl
};

class CtrExternal : public Ctr {
 protected:
  // The trap of `r`, with the source mode enabled and the target disabled, under the given xTE bits.
  bool recorded(const ExternalRow& r, uint64_t m_te, uint64_t vs_te, uint64_t mcause = kEcallFromU) {
    const uint64_t m_enable = r.from_virt ? 0 : (r.from == kU ? CTRCTL_U : CTRCTL_S);
    const uint64_t vs_enable = r.from_virt ? (r.from == kU ? CTRCTL_U : CTRCTL_S) : 0;
    control(m_enable | m_te | CTRCTL_EXCINH | CTRCTL_INTRINH);  // xTE recording ignores them
    write_sctrctl(h, vs_enable | vs_te, true);
    h.csr.ctr.wrptr_off = 0;
    h.csr.ctr.entries[0] = {};
    enter(static_cast<Priv>(r.to));
    on_trap(h, r.from, r.from_virt, r.to, r.to_virt, mcause, kEpc, kHandler);
    const bool yes = wrptr() == 1;
    if (yes) {
      EXPECT_EQ(entry(0).source, kEpc | CTRSOURCE_V);
      EXPECT_EQ(entry(0).target, 0u);  // external: ctrtarget.PC = 0
    }
    return yes;
  }
  // Exactly the required bits record the trap: with all of them, and not with any one missing.
  void check(const ExternalRow& r) {
    SCOPED_TRACE(::testing::Message() << "from " << r.from << (r.from_virt ? "V" : "") << " to " << r.to
                                      << (r.to_virt ? "V" : ""));
    EXPECT_TRUE(recorded(r, r.mctrctl_te, r.vsctrctl_te));
    EXPECT_TRUE(recorded(r, r.mctrctl_te, r.vsctrctl_te, kSupervisorTimer));
    for (uint64_t b : {CTRCTL_MTE, CTRCTL_STE}) {
      if (r.mctrctl_te & b) {
        EXPECT_FALSE(recorded(r, r.mctrctl_te & ~b, r.vsctrctl_te)) << b;
      }
    }
    if (r.vsctrctl_te) {
      EXPECT_FALSE(recorded(r, r.mctrctl_te, 0));
    }
    EXPECT_FALSE(recorded(r, 0, 0));
  }
};

TEST_F(CtrExternal, UToSNeedsSte) { check({kU, false, kS, false, CTRCTL_STE, 0}); }
TEST_F(CtrExternal, UToMNeedsMteAndSte) { check({kU, false, kM, false, CTRCTL_MTE | CTRCTL_STE, 0}); }
TEST_F(CtrExternal, SToMNeedsMte) {
  check({kS, false, kM, false, CTRCTL_MTE, 0});
  EXPECT_TRUE(recorded({kS, false, kM, false, 0, 0}, CTRCTL_MTE, 0));  // STE not involved
}
// V rows, forced.
TEST_F(CtrExternal, VuToVsNeedsVsSte) { check({kU, true, kS, true, 0, CTRCTL_STE}); }
TEST_F(CtrExternal, VuToHsNeedsSteAndVsSte) { check({kU, true, kS, false, CTRCTL_STE, CTRCTL_STE}); }
TEST_F(CtrExternal, VuToMNeedsMteSteAndVsSte) { check({kU, true, kM, false, CTRCTL_MTE | CTRCTL_STE, CTRCTL_STE}); }
TEST_F(CtrExternal, VsToHsNeedsSte) { check({kS, true, kS, false, CTRCTL_STE, 0}); }
TEST_F(CtrExternal, VsToMNeedsMteAndSte) { check({kS, true, kM, false, CTRCTL_MTE | CTRCTL_STE, 0}); }

// A VU -> HS trap between enabled modes follows vsctrctl's filters, not sctrctl's (forced V).
TEST_F(Ctr, VirtualTransitionUsesVsctrctlFilters) {
  control(CTRCTL_S | CTRCTL_EXCINH);
  write_sctrctl(h, CTRCTL_U, true);
  enter(Priv::S);
  on_trap(h, kU, true, kS, false, kEcallFromU, kEpc, kHandler);
  EXPECT_EQ(wrptr(), 1u);
  write_sctrctl(h, CTRCTL_U | CTRCTL_EXCINH, true);
  on_trap(h, kU, true, kS, false, kEcallFromU, kEpc, kHandler);
  EXPECT_EQ(wrptr(), 1u);
}

// --- Freeze ---

TEST_F(Ctr, BreakpointWithBpfrzFreezesAndIsNotRecorded) {
  control(CTRCTL_U | CTRCTL_S | CTRCTL_BPFRZ);
  enter(Priv::S);
  on_trap(h, kU, false, kS, false, kBreakpointCause, kEpc, kHandler);
  EXPECT_TRUE(h.csr.ctr.frozen);
  EXPECT_EQ(m_read(CSR_SCTRSTATUS), SCTRSTATUS_FROZEN);
  EXPECT_EQ(record_mask(h), 0u);
  // Without BPFRZ a breakpoint is an ordinary exception.
  m_write(CSR_SCTRSTATUS, 0);
  control(CTRCTL_U | CTRCTL_S);
  on_trap(h, kU, false, kS, false, kBreakpointCause, kEpc, kHandler);
  EXPECT_FALSE(h.csr.ctr.frozen);
  EXPECT_EQ(wrptr(), 1u);
}

TEST_F(Ctr, LcofiWithLcofifrzFreezesAndIsNotRecorded) {
  control(CTRCTL_U | CTRCTL_M | CTRCTL_LCOFIFRZ);
  enter(Priv::M);
  on_trap(h, kU, false, kM, false, kLcofi, kEpc, kHandler);
  EXPECT_TRUE(h.csr.ctr.frozen);
  EXPECT_EQ(wrptr(), 0u);
  // LCOFIFRZ does not freeze on other interrupts, BPFRZ not on LCOFI.
  m_write(CSR_SCTRSTATUS, 0);
  on_trap(h, kU, false, kM, false, kSupervisorTimer, kEpc, kHandler);
  control(CTRCTL_U | CTRCTL_M | CTRCTL_BPFRZ);
  on_trap(h, kU, false, kM, false, kLcofi, kEpc, kHandler);
  EXPECT_FALSE(h.csr.ctr.frozen);
  EXPECT_EQ(wrptr(), 2u);
}

// A trap to VS freezes by vsctrctl's bits, one to HS or M by mctrctl's (forced V).
TEST_F(Ctr, FreezeToVsFollowsVsctrctl) {
  control(CTRCTL_BPFRZ);
  write_sctrctl(h, CTRCTL_U | CTRCTL_S, true);
  on_trap(h, kU, true, kS, true, kBreakpointCause, kEpc, kHandler);
  EXPECT_FALSE(h.csr.ctr.frozen);
  control(0);
  write_sctrctl(h, CTRCTL_U | CTRCTL_S | CTRCTL_BPFRZ, true);
  on_trap(h, kU, true, kS, true, kBreakpointCause, kEpc, kHandler);
  EXPECT_TRUE(h.csr.ctr.frozen);
  h.csr.ctr.frozen = false;
  on_trap(h, kU, true, kS, false, kBreakpointCause, kEpc, kHandler);  // to HS: sctrctl.BPFRZ = 0
  EXPECT_FALSE(h.csr.ctr.frozen);
}

// --- Trap entry and xRET wiring (csr/trap.cpp) ---

TEST_F(Ctr, TakeTrapAndSretRecordWithCycleCounts) {
  m_write(CSR_MEDELEG, bit(kEcallFromU) | bit(cause::kBreakpoint));
  m_write(CSR_STVEC, kHandler);
  control(CTRCTL_U | CTRCTL_S);
  enter(Priv::U);
  exec(kJalRa16);
  h.instret += 9;  // nine more instructions retire, then an ecall traps
  h.pc = kEpc;
  h.trap = {kEcallFromU, 0};
  take_trap(h);
  ASSERT_EQ(h.priv, Priv::S);
  EXPECT_EQ(entry(0).source, kEpc | CTRSOURCE_V);
  EXPECT_EQ(entry(0).target, kHandler);
  EXPECT_EQ(type_of(entry(0)), uint64_t(TransferType::Exception));
  EXPECT_EQ(cc_of(entry(0)), 9u);  // the ecall did not retire
  h.instret += 4;
  m_write(CSR_SEPC, kReturnPc);
  ASSERT_EQ(exec(0x10200073, kHandler + 0x40), Status::Jump);  // sret
  EXPECT_EQ(h.priv, Priv::U);
  EXPECT_EQ(entry(0).source, (kHandler + 0x40) | CTRSOURCE_V);
  EXPECT_EQ(entry(0).target, kReturnPc);
  EXPECT_EQ(type_of(entry(0)), uint64_t(TransferType::TrapReturn));
  EXPECT_EQ(cc_of(entry(0)), 6u);  // four instructions, m_write's csrrw, and the sret itself
  exec(kAddi);
  exec(kJalRa16);
  EXPECT_EQ(cc_of(entry(0)), 2u);
  // BPFRZ through take_trap.
  control(CTRCTL_U | CTRCTL_S | CTRCTL_BPFRZ);
  enter(Priv::U);
  const unsigned before = wrptr();
  h.trap = {cause::kBreakpoint, 0};
  take_trap(h);
  EXPECT_TRUE(h.csr.ctr.frozen);
  EXPECT_EQ(wrptr(), before);
}

TEST_F(Ctr, MretToADisabledModeRecordsTargetZero) {
  control(CTRCTL_M);
  m_write(CSR_MEPC, kReturnPc);
  m_write(CSR_MSTATUS, 0);  // MPP = U
  ASSERT_EQ(exec(0x30200073, 0x80000100), Status::Jump);  // mret
  EXPECT_EQ(h.priv, Priv::U);
  EXPECT_EQ(entry(0).source, 0x80000100 | CTRSOURCE_V);
  EXPECT_EQ(entry(0).target, 0u);
  EXPECT_FALSE(is_active(h));
  EXPECT_FALSE(h.csr.ctr.active);
}

}  // namespace
}  // namespace brisk::test
