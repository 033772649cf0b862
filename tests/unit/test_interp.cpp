// The interpreter's decode cache: a decode is reused only for a hart with the same ISA, since one
// Interpreter serves harts of different ISAs (the -M snitch machine's DMA core, the insn fuzzer).
#include <cstring>

#include "csr_harness.h"
#include "runtime/interp.h"

namespace brisk::test {
namespace {

// Four bytes of code at address 0, fetchable in any mode.
struct OneWord : NoMemory {
  uint32_t word = 0;
  bool fetch16(Hart&, uint64_t va, uint16_t& out) override {
    if (va > 2) return false;
    std::memcpy(&out, reinterpret_cast<const char*>(&word) + va, 2);
    return true;
  }
};

class DecodeCache : public ::testing::Test {
 protected:
  OneWord code;
  Interpreter interp;

  // A hart in M-mode at pc 0 with the ISA `spec`, a QEMU-style CPU string.
  void make(Hart& h, const char* spec) {
    h.env = &code;
    IsaConfig isa;
    isa.apply(spec);
    csr::set_isa(h, isa);
    csr::reset(h);
    h.pc = 0;
  }
};

constexpr uint32_t kMulA0A1A2 = 0x02c58533;   // mul a0, a1, a2
constexpr uint32_t kAddwA0A0A1 = 0x00b5053b;  // addw a0, a0, a1
constexpr uint32_t kDmsrcA0A1 = 0x00b5002b;   // dmsrc a0, a1 (Xdma)

TEST_F(DecodeCache, AnExtensionOffOnTheNextHartIsIllegalThere) {
  code.word = kMulA0A1A2;
  Hart with_m, without_m;
  make(with_m, "rv64");
  make(without_m, "rv64,m=off");
  with_m.x[11] = 6;
  with_m.x[12] = 7;
  ASSERT_EQ(interp.step(with_m), Status::Next);
  EXPECT_EQ(with_m.x[10], 42u);
  EXPECT_EQ(interp.step(without_m), Status::Trap);
  EXPECT_EQ(without_m.trap.cause, cause::kIllegalInstruction);
  EXPECT_EQ(without_m.trap.tval, kMulA0A1A2);
  // and back: the hart with M still runs it
  with_m.pc = 0;
  EXPECT_EQ(interp.step(with_m), Status::Next);
}

TEST_F(DecodeCache, AnRv64OnlyInstructionIsIllegalOnAnRv32Hart) {
  code.word = kAddwA0A0A1;
  Hart rv64, rv32;
  make(rv64, "rv64");
  make(rv32, "rv32");
  ASSERT_EQ(interp.step(rv64), Status::Next);
  EXPECT_EQ(interp.step(rv32), Status::Trap);
  EXPECT_EQ(rv32.trap.cause, cause::kIllegalInstruction);
}

// The -M snitch machine: the compute cores (no Xdma) and the DMA core (Xdma) share code.
struct SourcePort : XdmaPort {
  uint64_t source = 0;
  void set_source(uint64_t addr) override { source = addr; }
  void set_destination(uint64_t) override {}
  void set_strides(uint64_t, uint64_t) override {}
  void set_repetitions(uint32_t) override {}
  uint32_t copy(uint32_t, uint32_t) override { return 0; }
  uint32_t status(uint32_t) override { return 0; }
};

TEST_F(DecodeCache, XdmaIsIllegalOnAComputeCoreAndRunsOnTheDmaCore) {
  code.word = kDmsrcA0A1;
  SourcePort port;
  Hart compute, dma;
  make(compute, "rv32");
  make(dma, "rv32,xdma=on");
  dma.xdma = &port;
  dma.x[10] = 0x1000;
  dma.x[11] = 0x2;
  ASSERT_EQ(interp.step(compute), Status::Trap);
  EXPECT_EQ(compute.trap.cause, cause::kIllegalInstruction);
  EXPECT_EQ(interp.step(dma), Status::Next);
  EXPECT_EQ(port.source, 0x2'0000'1000u);
}

}  // namespace
}  // namespace brisk::test
