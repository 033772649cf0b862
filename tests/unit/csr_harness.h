// A hart for CSR unit tests (test_csr_*.cpp): Zicsr instructions built by hand and run through
// sem_CSRRS/sem_CSRRW in a chosen privilege, with the exact trap they raise.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "csr/causes.h"
#include "csr/csr.h"
#include "runtime/semantics.h"

namespace brisk::test {

// No memory: CSR tests never load or store.
struct NoMemory : HartEnv {
  bool load(Hart&, uint64_t, void*, unsigned) override { return false; }
  bool store(Hart&, uint64_t, const void*, unsigned) override { return false; }
  void* amo(Hart&, uint64_t, unsigned) override { return nullptr; }
  bool fetch16(Hart&, uint64_t, uint16_t&) override { return false; }
  bool fetch_address(Hart&, uint64_t, uint64_t&) override { return false; }
  void watch_code(uint64_t) override {}
  void unwatch_code(uint64_t) override {}
};

// What one CSR instruction did: its status, x[rd] afterwards, and the trap it raised.
struct CsrResult {
  Status st;
  uint64_t value;
  PendingTrap trap;
  uint32_t raw;  // the instruction's encoding, which an illegal/virtual-instruction trap puts in tval
};

class CsrTest : public ::testing::Test {
 protected:
  NoMemory env;
  Hart h;

  void SetUp() override {
    h.env = &env;
    csr::reset(h);
  }

  // Turns the extensions in a QEMU-style list off (or on) for this hart, e.g. "zihpm=off".
  void isa(const char* items) { h.csr.isa.apply(std::string("rv64,") + items); }

  // csrrs x5, num, x0 (a pure read) in privilege p.
  CsrResult read(uint16_t num, Priv p = Priv::M) { return run(Op::CSRRS, 2, num, 5, 0, 0, p); }
  // csrrw x0, num, x6 (a pure write of v) in privilege p.
  CsrResult write(uint16_t num, uint64_t v, Priv p = Priv::M) { return run(Op::CSRRW, 1, num, 0, 6, v, p); }

  // Reads and writes from M that must succeed: the set-up of a test.
  uint64_t m_read(uint16_t num) {
    const CsrResult r = read(num);
    EXPECT_EQ(r.st, Status::Next) << "reading CSR " << std::hex << num;
    return r.value;
  }
  void m_write(uint16_t num, uint64_t v) {
    EXPECT_EQ(write(num, v).st, Status::Next) << "writing CSR " << std::hex << num;
  }

  // Calls an access rule directly as privilege p, for the rows that need V = 1 (no H yet, so no
  // instruction can run with V = 1): check(insn) gets an instruction whose encoding is kRawForChecks.
  template <typename Check>
  CsrResult direct(Priv p, Check check) {
    Insn i;
    i.op = Op::CSRRS;
    i.raw = kRawForChecks;
    h.trap = {};
    const Priv saved = h.priv;
    switch_to(p);
    const Status st = check(i);
    switch_to(saved);
    return {st, 0, h.trap, i.raw};
  }
  static constexpr uint32_t kRawForChecks = 0x12345673;

 private:
  // Changes privilege the way trap entry and return do, so per-mode counting stays consistent.
  void switch_to(Priv p) {
    pmu::leave_mode(h);
    h.priv = p;
  }

  CsrResult run(Op op, unsigned funct3, uint16_t num, uint8_t rd, uint8_t rs1, uint64_t v, Priv p) {
    Insn i;
    i.op = op;
    i.rd = rd;
    i.rs1 = rs1;
    i.imm = num;
    i.raw = uint32_t(num) << 20 | uint32_t(rs1) << 15 | funct3 << 12 | uint32_t(rd) << 7 | 0x73;
    h.x[rs1] = v;
    h.x[rd] = 0x5a5a5a5a;
    h.trap = {};
    const Priv saved = h.priv;
    switch_to(p);
    const Status st = kSemantics[static_cast<unsigned>(op)](h, i);
    if (st == Status::Next) h.instret++;  // it retires, as the exec loop would count it
    switch_to(saved);
    return {st, h.x[rd], h.trap, i.raw};
  }
};

inline ::testing::AssertionResult Trapped(const CsrResult& r, uint64_t cause) {
  if (r.st != Status::Trap) return ::testing::AssertionFailure() << "no trap (value " << std::hex << r.value << ")";
  if (r.trap.cause != cause || r.trap.tval != r.raw)
    return ::testing::AssertionFailure() << "cause " << r.trap.cause << " tval " << std::hex << r.trap.tval
                                         << ", expected cause " << std::dec << cause << " tval " << std::hex << r.raw;
  return ::testing::AssertionSuccess();
}
// Illegal-instruction / virtual-instruction with tval = the instruction.
inline ::testing::AssertionResult Illegal(const CsrResult& r) { return Trapped(r, cause::kIllegalInstruction); }
inline ::testing::AssertionResult Virtual(const CsrResult& r) { return Trapped(r, cause::kVirtualInstruction); }
inline ::testing::AssertionResult Allowed(const CsrResult& r) {
  if (r.st == Status::Next) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "trapped: cause " << r.trap.cause << " tval " << std::hex << r.trap.tval;
}

}  // namespace brisk::test
