// The LLVM tier (jit/llvm/region.h): a region compiled from a block plan and run on a hart must
// leave the state the interpreter leaves, at the same instruction (a trap, the deadline), and a
// region LLVM cannot compile must say why instead of giving code.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <csetjmp>
#include <cstring>
#include <vector>

#include "csr_harness.h"
#include "jit/llvm/region.h"
#include "jit/x64/translator.h"
#include "runtime/host_fault.h"
#include "runtime/interp.h"

namespace brisk::test {
namespace {

// Flat guest memory as user mode has it; accesses past the end raise page faults through the env.
struct FlatMemory : NoMemory {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(1 << 16);
  bool load(Hart& h, uint64_t va, void*, unsigned) override { return (h.raise(cause::kLoadPageFault, va), false); }
  bool store(Hart& h, uint64_t va, const void*, unsigned) override {
    return (h.raise(cause::kStoreAmoPageFault, va), false);
  }
  bool fetch16(Hart&, uint64_t va, uint16_t& out) override {
    if (va + 2 > bytes.size()) return false;
    std::memcpy(&out, bytes.data() + va, 2);
    return true;
  }
  bool fetch_address(Hart&, uint64_t va, uint64_t& pa) override { return (pa = va, true); }
};

constexpr uint32_t r_type(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
  return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
constexpr uint32_t i_type(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
  return uint32_t(imm & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
constexpr uint32_t s_type(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  return uint32_t(imm >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | uint32_t(imm & 0x1f) << 7 | 0x23;
}
constexpr uint32_t b_type(int32_t off, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  const uint32_t o = static_cast<uint32_t>(off);
  return (o >> 12 & 1) << 31 | (o >> 5 & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (o >> 1 & 0xf) << 8 |
         (o >> 11 & 1) << 7 | 0x63;
}
constexpr unsigned kT0 = 5, kA0 = 10, kA1 = 11, kA2 = 12;

// A prefix sum over a2 doublewords at a0, then ecall: one block whose bne goes back to its start.
constexpr uint64_t kLoop = 0x1000;
constexpr uint32_t kPrefixSum[] = {
    i_type(0, kA0, 3, kT0, 0x03),         // ld   t0, 0(a0)
    r_type(0, kT0, kA1, 0, kA1, 0x33),    // add  a1, a1, t0
    s_type(0, kA1, kA0, 3),               // sd   a1, 0(a0)
    i_type(8, kA0, 0, kA0, 0x13),         // addi a0, a0, 8
    i_type(-1, kA2, 0, kA2, 0x13),        // addi a2, a2, -1
    b_type(-20, 0, kA2, 1),               // bne  a2, zero, loop
    0x00000073,                           // ecall
};
constexpr unsigned kBody = 6;  // instructions per iteration

constexpr uint32_t j_type(int32_t off, uint32_t rd) {
  const uint32_t o = static_cast<uint32_t>(off);
  return (o >> 20 & 1) << 31 | (o >> 1 & 0x3ff) << 21 | (o >> 11 & 1) << 20 | (o >> 12 & 0xff) << 12 | rd << 7 | 0x6f;
}
// The same loop as two blocks, the jal ending the first: a region of both runs it without leaving.
constexpr uint64_t kHead = 0x2000, kTail = 0x2100;
constexpr uint32_t kHeadCode[] = {
    i_type(0, kA0, 3, kT0, 0x03),         // ld   t0, 0(a0)
    r_type(0, kT0, kA1, 0, kA1, 0x33),    // add  a1, a1, t0
    j_type(kTail - kHead - 8, 0),         // j    tail
};
constexpr uint32_t kTailCode[] = {
    s_type(0, kA1, kA0, 3),               // sd   a1, 0(a0)
    i_type(8, kA0, 0, kA0, 0x13),         // addi a0, a0, 8
    i_type(-1, kA2, 0, kA2, 0x13),        // addi a2, a2, -1
    b_type(-int32_t(kTail - kHead + 12), 0, kA2, 1),  // bne  a2, zero, head
    0x00000073,                           // ecall
};
constexpr unsigned kTwoBlockBody = 7;

class Tier2 : public ::testing::Test {
 protected:
  FlatMemory mem;
  std::string error;
  std::unique_ptr<tier2::Compiler> compiler = tier2::Compiler::load({}, error);

  void SetUp() override {
    std::memcpy(mem.bytes.data() + kLoop, kPrefixSum, sizeof kPrefixSum);
    std::memcpy(mem.bytes.data() + kHead, kHeadCode, sizeof kHeadCode);
    std::memcpy(mem.bytes.data() + kTail, kTailCode, sizeof kTailCode);
    for (uint64_t k = 0; k < 64; k++) std::memcpy(mem.bytes.data() + 0x8000 + 8 * k, &k, 8);
  }
  void start(Hart& h, uint64_t array, uint64_t n) {
    h.env = &mem;
    csr::reset(h);
    h.mem_base = mem.bytes.data();
    h.mem_limit = mem.bytes.size();
    h.pc = kLoop;
    h.instret = 100;
    h.x[kA0] = array;
    h.x[kA2] = n;
  }
  tier2::RegionFn compile(Hart& h) {
    jit::BlockPlan plan;
    EXPECT_TRUE(jit::plan_block(h, jit::PlanConfig{}, plan));
    EXPECT_EQ(plan.insns.size(), std::size(kPrefixSum));
    if (!compiler) {
      ADD_FAILURE() << error;
      return nullptr;
    }
    tier2::Compiled c = compiler->compile(1, {plan});
    EXPECT_TRUE(c.fn) << c.error;
    return c.fn;
  }
  // The region of the two blocks at kHead and kTail, entered at kHead.
  tier2::RegionFn compile_two_blocks(Hart& h) {
    std::vector<jit::BlockPlan> plans(2);
    h.pc = kHead;
    EXPECT_TRUE(jit::plan_block(h, jit::PlanConfig{}, plans[0]));
    h.pc = kTail;
    EXPECT_TRUE(jit::plan_block(h, jit::PlanConfig{}, plans[1]));
    h.pc = kHead;
    EXPECT_EQ(plans[0].insns.size(), std::size(kHeadCode));
    EXPECT_EQ(plans[1].insns.size(), std::size(kTailCode));
    if (!compiler) {
      ADD_FAILURE() << error;
      return nullptr;
    }
    tier2::Compiled c = compiler->compile(2, plans);
    EXPECT_TRUE(c.fn) << c.error;
    return c.fn;
  }
  // The interpreter's run from the same state, to the first trap. A member, as a host fault
  // leaves interpret() by siglongjmp, past any destructor.
  Interpreter interp;
  void interpret(Hart& h) {
    while (interp.step(h) != Status::Trap) {
    }
  }
};

TEST_F(Tier2, ALoopRegionEndsInTheStateTheInterpreterReaches) {
  Hart h, ref;
  start(h, 0x8000, 10);
  tier2::RegionFn fn = compile(h);
  ASSERT_TRUE(fn);
  const std::vector<uint8_t> before = mem.bytes;
  EXPECT_EQ(fn(&h), x64::kExitTrap);  // at the ecall, after ten iterations around the back edge
  const std::vector<uint8_t> after = std::exchange(mem.bytes, before);
  start(ref, 0x8000, 10);
  interpret(ref);
  EXPECT_EQ(h.trap.cause, cause::kEcallFromM);
  EXPECT_EQ(h.pc, kLoop + 4 * kBody);
  EXPECT_EQ(h.instret, 100u + 10 * kBody);
  EXPECT_EQ(h.x[kA1], 45u);
  EXPECT_EQ(h.pc, ref.pc);
  EXPECT_EQ(h.instret, ref.instret);
  for (unsigned r = 0; r < 32; r++) EXPECT_EQ(h.x[r], ref.x[r]) << "x" << r;
  EXPECT_TRUE(after == mem.bytes);  // the prefix sums stored
}

TEST_F(Tier2, ALoopRegionStopsBeforeAnIterationThatWouldPassTheDeadline) {
  Hart h;
  start(h, 0x8000, 10);
  tier2::RegionFn fn = compile(h);
  ASSERT_TRUE(fn);
  // Three iterations fit (the check counts the whole block, ecall included), the fourth does not.
  h.deadline = 100 + 3 * kBody + std::size(kPrefixSum) - 1;
  EXPECT_EQ(fn(&h), x64::kExitDeadline);
  EXPECT_EQ(h.pc, kLoop);
  EXPECT_EQ(h.instret, 100u + 3 * kBody);
  EXPECT_EQ(h.x[kA2], 7u);
  EXPECT_EQ(h.x[kA1], 0u + 1 + 2);
}

TEST_F(Tier2, AFaultingLoadLeavesTheExactStateOfTheInterpreter) {
  Hart h, ref;
  const uint64_t array = mem.bytes.size() - 3 * 8;  // the fourth load is past the end
  start(h, array, 10);
  tier2::RegionFn fn = compile(h);
  ASSERT_TRUE(fn);
  const std::vector<uint8_t> before = mem.bytes;
  // Past the flat limit: the region leaves before the load, which the exec loop runs
  // (JitEngine::enter) and which raises the trap there.
  EXPECT_EQ(fn(&h), x64::kExitRegionStep);
  EXPECT_EQ(Interpreter().step(h), Status::Trap);
  mem.bytes = before;
  start(ref, array, 10);
  interpret(ref);
  EXPECT_EQ(h.trap.cause, cause::kLoadPageFault);
  EXPECT_EQ(h.trap.tval, mem.bytes.size());
  EXPECT_EQ(h.pc, kLoop);
  EXPECT_EQ(h.instret, 100u + 3 * kBody);
  EXPECT_EQ(h.pc, ref.pc);
  EXPECT_EQ(h.instret, ref.instret);
  EXPECT_EQ(h.trap.tval, ref.trap.tval);
  for (unsigned r = 0; r < 32; r++) EXPECT_EQ(h.x[r], ref.x[r]) << "x" << r;
}

TEST_F(Tier2, ATwoBlockLoopRegionEndsInTheStateTheInterpreterReaches) {
  Hart h, ref;
  start(h, 0x8000, 10);
  tier2::RegionFn fn = compile_two_blocks(h);
  ASSERT_TRUE(fn);
  const std::vector<uint8_t> before = mem.bytes;
  EXPECT_EQ(fn(&h), x64::kExitTrap);  // at the ecall: the jal and the bne stayed in the region
  const std::vector<uint8_t> after = mem.bytes;
  std::memcpy(mem.bytes.data(), before.data(), before.size());
  start(ref, 0x8000, 10);
  ref.pc = kHead;
  interpret(ref);
  EXPECT_EQ(h.trap.cause, cause::kEcallFromM);
  EXPECT_EQ(h.pc, kTail + 16);
  EXPECT_EQ(h.instret, 100u + 10 * kTwoBlockBody);
  EXPECT_EQ(h.x[kA1], 45u);
  EXPECT_EQ(h.pc, ref.pc);
  EXPECT_EQ(h.instret, ref.instret);
  for (unsigned r = 0; r < 32; r++) EXPECT_EQ(h.x[r], ref.x[r]) << "x" << r;
  EXPECT_TRUE(after == mem.bytes);
}

// Each block of a region checks the deadline at its entry, as a baseline block does: the tail's.
TEST_F(Tier2, ATwoBlockRegionStopsBeforeTheBlockThatWouldPassTheDeadline) {
  Hart h;
  start(h, 0x8000, 10);
  tier2::RegionFn fn = compile_two_blocks(h);
  ASSERT_TRUE(fn);
  // Three iterations and the fourth's head fit; its tail (five instructions, ecall included) does not.
  h.deadline = 100 + 3 * kTwoBlockBody + std::size(kHeadCode) + std::size(kTailCode) - 1;
  EXPECT_EQ(fn(&h), x64::kExitDeadline);
  EXPECT_EQ(h.pc, kTail);
  EXPECT_EQ(h.instret, 100u + 3 * kTwoBlockBody + std::size(kHeadCode));
  EXPECT_EQ(h.x[kA2], 7u);
  EXPECT_EQ(h.x[kT0], 3u);
  EXPECT_EQ(h.x[kA1], 0u + 1 + 2 + 3);
}

// Region code makes the flat access inline (runtime/sem_int.cpp, flat_inline): a host fault there, on
// a guest page the host maps read-only, must find the state before the store in the hart, in the
// middle of the block, as the fault handler finds it after the interpreter's.
TEST_F(Tier2, AHostFaultOnInlineFlatMemoryLeavesTheExactStateOfTheInterpreter) {
  auto* page = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(mem.bytes.data()) + 0x4fff) & ~uintptr_t{0xfff});
  const uint64_t array = static_cast<uint64_t>(page - mem.bytes.data()) - 3 * 8;  // the fourth sd faults
  for (uint64_t k = 0; k < 4; k++) {
    const uint64_t v = 5 + k;
    std::memcpy(mem.bytes.data() + array + 8 * k, &v, 8);
  }
  Hart h, ref;
  start(h, array, 10);
  tier2::RegionFn fn = compile(h);
  ASSERT_TRUE(fn);
  const std::vector<uint8_t> before = mem.bytes;
  auto run_to_fault = [&](Hart& hart, auto&& run) {
    ASSERT_EQ(mprotect(page, 4096, PROT_READ), 0);
    HostFaultScope scope(hart);
    if (!sigsetjmp(scope.resume, 0)) {
      GuestCode guest;
      run();
      ADD_FAILURE() << "no host fault";
    }
    ASSERT_EQ(mprotect(page, 4096, PROT_READ | PROT_WRITE), 0);
  };
  run_to_fault(h, [&] { fn(&h); });
  const std::vector<uint8_t> after = mem.bytes;
  std::memcpy(mem.bytes.data(), before.data(), before.size());  // in place: `page` lies in it
  start(ref, array, 10);
  run_to_fault(ref, [&] { interpret(ref); });
  EXPECT_EQ(h.trap.cause, cause::kStoreAmoPageFault);
  EXPECT_EQ(h.trap.tval, array + 3 * 8);
  EXPECT_EQ(h.pc, kLoop + 8);  // the sd
  EXPECT_EQ(h.instret, 100u + 3 * kBody + 2);
  EXPECT_EQ(h.x[kT0], 8u);
  EXPECT_EQ(h.x[kA1], 5u + 6 + 7 + 8);
  EXPECT_EQ(h.x[kA2], 7u);
  EXPECT_EQ(h.pc, ref.pc);
  EXPECT_EQ(h.instret, ref.instret);
  EXPECT_EQ(h.trap.cause, ref.trap.cause);
  EXPECT_EQ(h.trap.tval, ref.trap.tval);
  for (unsigned r = 0; r < 32; r++) EXPECT_EQ(h.x[r], ref.x[r]) << "x" << r;
  EXPECT_TRUE(after == mem.bytes);  // the three prefix sums stored, and nothing else
}

// A store that overwrote the running block's code (Hart::code_written, which JitEngine::invalidate
// sets) ends the region right after the store, as it ends a baseline block.
TEST_F(Tier2, AStoreOverTheRunningCodeLeavesRightAfterIt) {
  Hart h;
  start(h, 0x8000, 10);
  tier2::RegionFn fn = compile(h);
  ASSERT_TRUE(fn);
  h.x[kA1] = 7;
  h.code_written = true;
  EXPECT_EQ(fn(&h), x64::kExitDispatch);
  EXPECT_FALSE(h.code_written);
  EXPECT_EQ(h.pc, kLoop + 12);  // the addi after the sd
  EXPECT_EQ(h.instret, 103u);
  uint64_t stored;
  std::memcpy(&stored, mem.bytes.data() + 0x8000, 8);
  EXPECT_EQ(stored, 7u);  // 7 + table[0] = 7 + 0
  EXPECT_EQ(h.x[kA0], 0x8000u);
}

TEST(Tier2Compiler, AFailedCompilationSaysWhyAndGivesNoCode) {
  std::string error;
  tier2::Compiler::Options opt;
  opt.inject_failure = true;
  std::unique_ptr<tier2::Compiler> failing = tier2::Compiler::load(opt, error);
  ASSERT_TRUE(failing) << error;
  jit::BlockPlan plan;
  plan.pc = plan.end_pc = 0x1000;
  jit::PlanInsn p;
  p.insn.op = Op::ADDI;
  p.pc = 0x1000;
  plan.insns.push_back(p);
  plan.end_pc = 0x1004;
  const tier2::Compiled c = failing->compile(7, {plan});
  EXPECT_EQ(c.fn, nullptr);
  EXPECT_EQ(c.id, 7u);
  EXPECT_NE(c.error.find("brisk_tier2_injected_failure"), std::string::npos) << c.error;
}

}  // namespace
}  // namespace brisk::test
