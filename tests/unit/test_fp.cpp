// F and D semantics (runtime/fp.cpp), bit-exact results and fflags. Expected values follow the spec; the
// less obvious ones (RMM, tininess, saturation) were checked against qemu-riscv64's softfloat.

#include <gtest/gtest.h>
#include <xmmintrin.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/fp.h"
#include "runtime/semantics.h"

namespace brisk {
namespace {

using namespace fflag;

constexpr uint8_t RNE = 0, RTZ = 1, RDN = 2, RUP = 3, RMM = 4, DYN = 7;

// Register contents: a NaN-boxed single, or a double.
constexpr uint64_t S(float v) { return 0xffffffff00000000ull | std::bit_cast<uint32_t>(v); }
constexpr uint64_t Sb(uint32_t bits) { return 0xffffffff00000000ull | bits; }
constexpr uint64_t D(double v) { return std::bit_cast<uint64_t>(v); }

constexpr uint64_t kSNanS = Sb(0x7f800001), kQNanS = Sb(0x7fc12345), kCanonS = Sb(0x7fc00000);
constexpr uint64_t kSNanD = 0x7ff0000000000001, kQNanD = 0x7ff8000000012345, kCanonD = 0x7ff8000000000000;
constexpr uint64_t kMaxS = Sb(0x7f7fffff), kInfS = Sb(0x7f800000), kMinSubS = Sb(0x00000001);
constexpr uint64_t kMaxD = 0x7fefffffffffffff, kInfD = 0x7ff0000000000000;

struct Out {
  Status st;
  uint64_t f;  // f[rd]
  uint64_t x;  // x[rd]
  uint8_t flags;
};

class Fp : public ::testing::Test {
 protected:
  Hart h;
  static constexpr uint8_t kRd = 4;

  // Runs one instruction with rs1 = f1/x1 = a, rs2 = f2 = b, rs3 = f3 = c, rd = f4/x4; fflags start clear.
  Out run(SemFn fn, Op op, uint8_t rm, uint64_t a, uint64_t b = 0, uint64_t c = 0) {
    h.x[1] = a;
    h.f[1] = a;
    h.f[2] = b;
    h.f[3] = c;
    h.f[kRd] = h.x[kRd] = 0x5a5a5a5a5a5a5a5a;
    h.fflags = 0;
    Insn i;
    i.op = op;
    i.rd = kRd;
    i.rs1 = 1;
    i.rs2 = 2;
    i.rs3 = 3;
    i.rm = rm;
    i.raw = 0x12345678;
    const Status st = fn(h, i);
    return {st, h.f[kRd], h.x[kRd], h.fflags};
  }
};

#define RUN(NAME, ...) run(sem_##NAME, Op::NAME, __VA_ARGS__)

// One comparable line per result, so a mismatch shows the bits and flags in hex.
std::string show(Status st, uint64_t value, unsigned flags) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "status %u value %#018llx flags %#04x", unsigned(st), (unsigned long long)value,
                flags);
  return buf;
}

std::string show_f(const Out& o) { return show(o.st, o.f, o.flags); }
std::string show_x(const Out& o) { return show(o.st, o.x, o.flags); }

// Result in f[rd] (EXPECT_F) or x[rd] (EXPECT_X), and fflags.
#define EXPECT_F(out, bits, fl) EXPECT_EQ(show_f(out), show(Status::Next, uint64_t(bits), unsigned(fl)))
#define EXPECT_X(out, value, fl) EXPECT_EQ(show_x(out), show(Status::Next, uint64_t(value), unsigned(fl)))

// ------------------------------------------------------------------------------------------------------------
// Rounding modes and RMM ties

TEST_F(Fp, AddSingleTieInEveryMode) {
  const uint64_t one = S(1.0f), half_ulp = S(0x1p-24f);
  EXPECT_F(RUN(FADD_S, RNE, one, half_ulp), S(1.0f), kNX);
  EXPECT_F(RUN(FADD_S, RTZ, one, half_ulp), S(1.0f), kNX);
  EXPECT_F(RUN(FADD_S, RDN, one, half_ulp), S(1.0f), kNX);
  EXPECT_F(RUN(FADD_S, RUP, one, half_ulp), Sb(0x3f800001), kNX);
  EXPECT_F(RUN(FADD_S, RMM, one, half_ulp), Sb(0x3f800001), kNX);
  const uint64_t mone = S(-1.0f), mhalf_ulp = S(-0x1p-24f);
  EXPECT_F(RUN(FADD_S, RNE, mone, mhalf_ulp), S(-1.0f), kNX);
  EXPECT_F(RUN(FADD_S, RTZ, mone, mhalf_ulp), S(-1.0f), kNX);
  EXPECT_F(RUN(FADD_S, RDN, mone, mhalf_ulp), Sb(0xbf800001), kNX);
  EXPECT_F(RUN(FADD_S, RUP, mone, mhalf_ulp), S(-1.0f), kNX);
  EXPECT_F(RUN(FADD_S, RMM, mone, mhalf_ulp), Sb(0xbf800001), kNX);
  // A tie that RNE already rounds away from zero, and a quarter-ulp that is no tie.
  EXPECT_F(RUN(FADD_S, RMM, Sb(0x3f800001), half_ulp), Sb(0x3f800002), kNX);
  EXPECT_F(RUN(FADD_S, RMM, one, S(0x1p-25f)), S(1.0f), kNX);
  // Exact results raise nothing.
  EXPECT_F(RUN(FADD_S, RMM, one, S(2.0f)), S(3.0f), 0);
}

TEST_F(Fp, AddDoubleTieInEveryMode) {
  const uint64_t one = D(1.0), half_ulp = D(0x1p-53);
  EXPECT_F(RUN(FADD_D, RNE, one, half_ulp), D(1.0), kNX);
  EXPECT_F(RUN(FADD_D, RTZ, one, half_ulp), D(1.0), kNX);
  EXPECT_F(RUN(FADD_D, RDN, one, half_ulp), D(1.0), kNX);
  EXPECT_F(RUN(FADD_D, RUP, one, half_ulp), 0x3ff0000000000001, kNX);
  EXPECT_F(RUN(FADD_D, RMM, one, half_ulp), 0x3ff0000000000001, kNX);
  EXPECT_F(RUN(FADD_D, RMM, D(-1.0), D(-0x1p-53)), 0xbff0000000000001, kNX);
  EXPECT_F(RUN(FADD_D, RDN, D(-1.0), D(-0x1p-53)), 0xbff0000000000001, kNX);
  EXPECT_F(RUN(FADD_D, RUP, D(-1.0), D(-0x1p-53)), D(-1.0), kNX);
  EXPECT_F(RUN(FADD_D, RMM, one, D(0x1p-54)), D(1.0), kNX);
}

TEST_F(Fp, SubtractSignOfZeroFollowsRoundingMode) {
  EXPECT_F(RUN(FSUB_S, RNE, S(1.0f), S(1.0f)), S(0.0f), 0);
  EXPECT_F(RUN(FSUB_S, RDN, S(1.0f), S(1.0f)), S(-0.0f), 0);
  EXPECT_F(RUN(FSUB_D, RNE, D(1.0), D(1.0)), D(0.0), 0);
  EXPECT_F(RUN(FSUB_D, RDN, D(1.0), D(1.0)), D(-0.0), 0);
  EXPECT_F(RUN(FSUB_S, RMM, S(1.0f), S(-0x1p-24f)), Sb(0x3f800001), kNX);
  EXPECT_F(RUN(FSUB_D, RNE, D(3.0), D(0.5)), D(2.5), 0);
}

TEST_F(Fp, MultiplyTies) {
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: halfway between two floats.
  const uint64_t s = S(1.0f + 0x1p-12f);
  EXPECT_F(RUN(FMUL_S, RNE, s, s), S(1.0f + 0x1p-11f), kNX);
  EXPECT_F(RUN(FMUL_S, RMM, s, s), S(1.0f + 0x1p-11f + 0x1p-23f), kNX);
  EXPECT_F(RUN(FMUL_S, RMM, S(-1.0f - 0x1p-12f), s), S(-1.0f - 0x1p-11f - 0x1p-23f), kNX);
  // (1 + 2^-27)(1 + 2^-26) = 1 + 2^-26 + 2^-27 + 2^-53: halfway between two doubles.
  const uint64_t a = D(1.0 + 0x1p-27), b = D(1.0 + 0x1p-26);
  EXPECT_F(RUN(FMUL_D, RNE, a, b), D(1.0 + 0x1p-26 + 0x1p-27), kNX);
  EXPECT_F(RUN(FMUL_D, RMM, a, b), D(1.0 + 0x1p-26 + 0x1p-27 + 0x1p-52), kNX);
  EXPECT_F(RUN(FMUL_D, RMM, a, D(-1.0 - 0x1p-26)), D(-1.0 - 0x1p-26 - 0x1p-27 - 0x1p-52), kNX);
  // 2^-150 is halfway between 0 and the smallest subnormal.
  EXPECT_F(RUN(FMUL_S, RNE, S(0x1p-75f), S(0x1p-75f)), S(0.0f), kUF | kNX);
  EXPECT_F(RUN(FMUL_S, RMM, S(0x1p-75f), S(0x1p-75f)), kMinSubS, kUF | kNX);
  EXPECT_F(RUN(FMUL_S, RMM, S(-0x1p-75f), S(0x1p-75f)), Sb(0x80000001), kUF | kNX);
  EXPECT_F(RUN(FMUL_D, RNE, D(0x1p-600), D(0x1p-475)), D(0.0), kUF | kNX);
  EXPECT_F(RUN(FMUL_D, RMM, D(0x1p-600), D(0x1p-475)), 1, kUF | kNX);
  EXPECT_F(RUN(FMUL_D, RNE, D(3.0), D(-0.5)), D(-1.5), 0);
}

TEST_F(Fp, DivideTiesAndDivideByZero) {
  // 5 * 2^-149 / 2 = 2.5 smallest subnormals.
  EXPECT_F(RUN(FDIV_S, RNE, Sb(5), S(2.0f)), Sb(2), kUF | kNX);
  EXPECT_F(RUN(FDIV_S, RMM, Sb(5), S(2.0f)), Sb(3), kUF | kNX);
  EXPECT_F(RUN(FDIV_S, RMM, Sb(0x80000005), S(2.0f)), Sb(0x80000003), kUF | kNX);
  EXPECT_F(RUN(FDIV_S, RMM, Sb(3), S(2.0f)), Sb(2), kUF | kNX);  // RNE's choice is already away
  EXPECT_F(RUN(FDIV_D, RNE, 5, D(2.0)), 2, kUF | kNX);
  EXPECT_F(RUN(FDIV_D, RMM, 5, D(2.0)), 3, kUF | kNX);
  EXPECT_F(RUN(FDIV_D, RMM, 0x8000000000000005, D(-2.0)), 3, kUF | kNX);
  // 1/3 in the directed modes.
  EXPECT_F(RUN(FDIV_S, RNE, S(1.0f), S(3.0f)), Sb(0x3eaaaaab), kNX);
  EXPECT_F(RUN(FDIV_S, RTZ, S(1.0f), S(3.0f)), Sb(0x3eaaaaaa), kNX);
  EXPECT_F(RUN(FDIV_S, RMM, S(1.0f), S(3.0f)), Sb(0x3eaaaaab), kNX);
  EXPECT_F(RUN(FDIV_D, RNE, D(1.0), D(3.0)), 0x3fd5555555555555, kNX);
  EXPECT_F(RUN(FDIV_D, RUP, D(1.0), D(3.0)), 0x3fd5555555555556, kNX);
  EXPECT_F(RUN(FDIV_S, RNE, S(1.0f), S(0.0f)), kInfS, kDZ);
  EXPECT_F(RUN(FDIV_S, RNE, S(-1.0f), S(0.0f)), Sb(0xff800000), kDZ);
  EXPECT_F(RUN(FDIV_D, RNE, D(1.0), D(-0.0)), 0xfff0000000000000, kDZ);
  EXPECT_F(RUN(FDIV_S, RNE, S(0.0f), S(0.0f)), kCanonS, kNV);
  EXPECT_F(RUN(FDIV_D, RNE, kInfD, kInfD), kCanonD, kNV);
  EXPECT_F(RUN(FDIV_D, RNE, D(1.0), kInfD), D(0.0), 0);
}

TEST_F(Fp, SquareRoot) {
  EXPECT_F(RUN(FSQRT_S, RNE, S(4.0f)), S(2.0f), 0);
  EXPECT_F(RUN(FSQRT_S, RNE, S(2.0f)), Sb(0x3fb504f3), kNX);
  EXPECT_F(RUN(FSQRT_S, RTZ, S(2.0f)), Sb(0x3fb504f3), kNX);
  EXPECT_F(RUN(FSQRT_S, RUP, S(2.0f)), Sb(0x3fb504f4), kNX);
  EXPECT_F(RUN(FSQRT_S, RMM, S(2.0f)), Sb(0x3fb504f3), kNX);
  EXPECT_F(RUN(FSQRT_D, RNE, D(2.0)), 0x3ff6a09e667f3bcd, kNX);
  EXPECT_F(RUN(FSQRT_D, RDN, D(2.0)), 0x3ff6a09e667f3bcc, kNX);
  EXPECT_F(RUN(FSQRT_D, RMM, D(2.0)), 0x3ff6a09e667f3bcd, kNX);
  EXPECT_F(RUN(FSQRT_S, RNE, S(-0.0f)), S(-0.0f), 0);
  EXPECT_F(RUN(FSQRT_D, RNE, D(-0.0)), D(-0.0), 0);
  EXPECT_F(RUN(FSQRT_S, RNE, S(-1.0f)), kCanonS, kNV);
  EXPECT_F(RUN(FSQRT_D, RNE, D(-1.0)), kCanonD, kNV);
  EXPECT_F(RUN(FSQRT_D, RNE, 0xfff0000000000000), kCanonD, kNV);
  EXPECT_F(RUN(FSQRT_D, RNE, kInfD), kInfD, 0);
  EXPECT_F(RUN(FSQRT_S, RNE, kQNanS), kCanonS, 0);
  EXPECT_F(RUN(FSQRT_S, RNE, kSNanS), kCanonS, kNV);
  EXPECT_F(RUN(FSQRT_D, RNE, 1), 0x1e60000000000000, 0);  // sqrt(2^-1074) = 2^-537
}

TEST_F(Fp, OverflowPerRoundingMode) {
  const uint64_t two = S(2.0f), mtwo = S(-2.0f);
  EXPECT_F(RUN(FMUL_S, RNE, kMaxS, two), kInfS, kOF | kNX);
  EXPECT_F(RUN(FMUL_S, RTZ, kMaxS, two), kMaxS, kOF | kNX);
  EXPECT_F(RUN(FMUL_S, RDN, kMaxS, two), kMaxS, kOF | kNX);
  EXPECT_F(RUN(FMUL_S, RUP, kMaxS, two), kInfS, kOF | kNX);
  EXPECT_F(RUN(FMUL_S, RMM, kMaxS, two), kInfS, kOF | kNX);
  EXPECT_F(RUN(FMUL_S, RTZ, kMaxS, mtwo), Sb(0xff7fffff), kOF | kNX);
  EXPECT_F(RUN(FMUL_S, RDN, kMaxS, mtwo), Sb(0xff800000), kOF | kNX);
  EXPECT_F(RUN(FMUL_S, RUP, kMaxS, mtwo), Sb(0xff7fffff), kOF | kNX);
  EXPECT_F(RUN(FADD_D, RNE, kMaxD, kMaxD), kInfD, kOF | kNX);
  EXPECT_F(RUN(FADD_D, RTZ, kMaxD, kMaxD), kMaxD, kOF | kNX);
  EXPECT_F(RUN(FADD_D, RMM, kMaxD, kMaxD), kInfD, kOF | kNX);
  EXPECT_F(RUN(FADD_D, RUP, kMaxD | (1ull << 63), kMaxD | (1ull << 63)), kMaxD | (1ull << 63), kOF | kNX);
  // MAX + half an ulp is a tie that rounds to infinity in both RNE and RMM.
  EXPECT_F(RUN(FADD_S, RMM, kMaxS, S(0x1p103f)), kInfS, kOF | kNX);
  EXPECT_F(RUN(FADD_S, RMM, kMaxS, S(0x1p102f)), kMaxS, kNX);
}

TEST_F(Fp, UnderflowIsTininessAfterRoundingAndInexact) {
  // Largest subnormal * (1 + 2^-23) = 2^-126 - 2^-172: rounds to the smallest normal, so not tiny after
  // rounding in RNE (NX only); in RTZ it stays subnormal (UF).
  EXPECT_F(RUN(FMUL_S, RNE, Sb(0x007fffff), Sb(0x3f800001)), Sb(0x00800000), kNX);
  EXPECT_F(RUN(FMUL_S, RTZ, Sb(0x007fffff), Sb(0x3f800001)), Sb(0x007fffff), kUF | kNX);
  EXPECT_F(RUN(FMUL_D, RNE, 0x000fffffffffffff, 0x3ff0000000000001), 0x0010000000000000, kNX);
  EXPECT_F(RUN(FMUL_D, RDN, 0x000fffffffffffff, 0x3ff0000000000001), 0x000fffffffffffff, kUF | kNX);
  // Exact subnormal results are not underflow.
  EXPECT_F(RUN(FMUL_S, RNE, Sb(6), S(0.5f)), Sb(3), 0);
  EXPECT_F(RUN(FSUB_S, RNE, Sb(0x00800001), Sb(0x00800000)), Sb(1), 0);
  EXPECT_F(RUN(FMUL_S, RNE, Sb(3), S(0.5f)), Sb(2), kUF | kNX);
  EXPECT_F(RUN(FMUL_S, RUP, S(0x1p-100f), S(0x1p-100f)), kMinSubS, kUF | kNX);
}

// ------------------------------------------------------------------------------------------------------------
// Fused multiply-add

TEST_F(Fp, FusedMultiplyAddSigns) {
  const uint64_t a = S(2.0f), b = S(3.0f), c = S(1.0f);
  EXPECT_F(RUN(FMADD_S, RNE, a, b, c), S(7.0f), 0);
  EXPECT_F(RUN(FMSUB_S, RNE, a, b, c), S(5.0f), 0);
  EXPECT_F(RUN(FNMSUB_S, RNE, a, b, c), S(-5.0f), 0);
  EXPECT_F(RUN(FNMADD_S, RNE, a, b, c), S(-7.0f), 0);
  EXPECT_F(RUN(FMADD_D, RNE, D(2.0), D(3.0), D(1.0)), D(7.0), 0);
  EXPECT_F(RUN(FMSUB_D, RNE, D(2.0), D(3.0), D(1.0)), D(5.0), 0);
  EXPECT_F(RUN(FNMSUB_D, RNE, D(2.0), D(3.0), D(1.0)), D(-5.0), 0);
  EXPECT_F(RUN(FNMADD_D, RNE, D(2.0), D(3.0), D(1.0)), D(-7.0), 0);
  // The product is negated, not the sum: -(0 * 1) - 0 = -0, -(0 * 1) + 0 = +0.
  EXPECT_F(RUN(FNMADD_S, RNE, S(0.0f), S(1.0f), S(0.0f)), S(-0.0f), 0);
  EXPECT_F(RUN(FNMSUB_S, RNE, S(0.0f), S(1.0f), S(0.0f)), S(0.0f), 0);
  EXPECT_F(RUN(FMADD_D, RNE, D(0.0), D(-1.0), D(0.0)), D(0.0), 0);
  EXPECT_F(RUN(FMADD_D, RDN, D(0.0), D(-1.0), D(0.0)), D(-0.0), 0);
}

TEST_F(Fp, FusedMultiplyAddRoundsOnce) {
  // (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly; a separate multiply would round the product to 1.
  EXPECT_F(RUN(FMADD_S, RNE, S(1.0f + 0x1p-23f), S(1.0f - 0x1p-23f), S(-1.0f)), S(-0x1p-46f), 0);
  EXPECT_F(RUN(FMADD_D, RNE, D(1.0 + 0x1p-52), D(1.0 - 0x1p-52), D(-1.0)), D(-0x1p-104), 0);
  EXPECT_F(RUN(FMADD_S, RUP, kMaxS, S(2.0f), kMaxS | (1u << 31)), kMaxS, 0);  // no intermediate overflow
  EXPECT_F(RUN(FMADD_S, RNE, kMaxS, S(2.0f), S(0.0f)), kInfS, kOF | kNX);
}

TEST_F(Fp, FusedMultiplyAddTies) {
  const uint64_t s = S(1.0f + 0x1p-12f);
  const float tie_lo = 1.0f + 0x1p-11f, tie_hi = 1.0f + 0x1p-11f + 0x1p-23f;
  EXPECT_F(RUN(FMADD_S, RNE, s, s, S(0.0f)), S(tie_lo), kNX);
  EXPECT_F(RUN(FMADD_S, RMM, s, s, S(0.0f)), S(tie_hi), kNX);
  EXPECT_F(RUN(FNMADD_S, RMM, s, s, S(-0.0f)), S(-tie_hi), kNX);
  EXPECT_F(RUN(FMSUB_S, RMM, s, s, S(1.0f)), S(0x1p-11f + 0x1p-24f), 0);
  // A tiny addend moves the exact value off the midpoint: below it both modes round down.
  EXPECT_F(RUN(FMADD_S, RMM, s, s, Sb(0x80000001)), S(tie_lo), kNX);
  EXPECT_F(RUN(FMADD_S, RMM, s, s, Sb(0x00000001)), S(tie_hi), kNX);
  EXPECT_F(RUN(FNMSUB_S, RMM, s, s, Sb(0x00000001)), S(-tie_lo), kNX);
  // Addend making a midpoint from an exact product: 1 + 2^-24 = 1 + (2^-24 * 1).
  EXPECT_F(RUN(FMADD_S, RMM, S(0x1p-24f), S(1.0f), S(1.0f)), Sb(0x3f800001), kNX);
  EXPECT_F(RUN(FMADD_S, RNE, S(0x1p-24f), S(1.0f), S(1.0f)), S(1.0f), kNX);

  const uint64_t a = D(1.0 + 0x1p-27), b = D(1.0 + 0x1p-26);
  const double dlo = 1.0 + 0x1p-26 + 0x1p-27, dhi = dlo + 0x1p-52;
  EXPECT_F(RUN(FMADD_D, RNE, a, b, D(0.0)), D(dlo), kNX);
  EXPECT_F(RUN(FMADD_D, RMM, a, b, D(0.0)), D(dhi), kNX);
  EXPECT_F(RUN(FNMSUB_D, RMM, a, b, D(0.0)), D(-dhi), kNX);
  EXPECT_F(RUN(FMADD_D, RMM, a, b, 0x8000000000000001), D(dlo), kNX);
  EXPECT_F(RUN(FMADD_D, RMM, a, b, 1), D(dhi), kNX);
  EXPECT_F(RUN(FMADD_D, RMM, D(0x1p-53), D(-1.0), D(-1.0)), 0xbff0000000000001, kNX);
}

TEST_F(Fp, FusedMultiplyAddInvalidAndNaNs) {
  // inf * 0 signals NV even when the addend is a quiet NaN (x86 stays silent there).
  EXPECT_F(RUN(FMADD_S, RNE, kInfS, S(0.0f), kQNanS), kCanonS, kNV);
  EXPECT_F(RUN(FMSUB_S, RNE, S(-0.0f), kInfS, kQNanS), kCanonS, kNV);
  EXPECT_F(RUN(FNMSUB_S, RNE, S(0.0f), Sb(0xff800000), kCanonS), kCanonS, kNV);
  EXPECT_F(RUN(FNMADD_S, RNE, kInfS, S(0.0f), 0x7fc00000 /* improperly boxed */), kCanonS, kNV);
  EXPECT_F(RUN(FMADD_D, RNE, D(0.0), kInfD, kQNanD), kCanonD, kNV);
  EXPECT_F(RUN(FNMADD_D, RNE, kInfD, D(-0.0), kQNanD), kCanonD, kNV);
  EXPECT_F(RUN(FMADD_D, RNE, kInfD, D(0.0), D(1.0)), kCanonD, kNV);
  EXPECT_F(RUN(FMADD_S, RNE, kInfS, S(1.0f), Sb(0xff800000)), kCanonS, kNV);  // inf - inf
  // Quiet NaN operands alone raise nothing; signalling ones raise NV.
  EXPECT_F(RUN(FMADD_S, RNE, S(1.0f), S(2.0f), kQNanS), kCanonS, 0);
  EXPECT_F(RUN(FMADD_D, RNE, kQNanD, D(0.0), D(1.0)), kCanonD, 0);
  EXPECT_F(RUN(FMADD_D, RNE, kInfD, kQNanD, D(1.0)), kCanonD, 0);
  EXPECT_F(RUN(FMADD_D, RNE, D(1.0), D(2.0), kSNanD), kCanonD, kNV);
  EXPECT_F(RUN(FMSUB_S, RNE, kSNanS, S(2.0f), S(1.0f)), kCanonS, kNV);
}

// ------------------------------------------------------------------------------------------------------------
// NaNs and NaN-boxing

TEST_F(Fp, NaNResultsAreCanonical) {
  EXPECT_F(RUN(FADD_S, RNE, kQNanS, S(1.0f)), kCanonS, 0);
  EXPECT_F(RUN(FADD_S, RNE, Sb(0xffc00000), S(1.0f)), kCanonS, 0);
  EXPECT_F(RUN(FADD_S, RNE, S(1.0f), kSNanS), kCanonS, kNV);
  EXPECT_F(RUN(FSUB_S, RNE, kInfS, kInfS), kCanonS, kNV);
  EXPECT_F(RUN(FMUL_S, RNE, kInfS, S(0.0f)), kCanonS, kNV);
  EXPECT_F(RUN(FADD_D, RNE, kQNanD, D(1.0)), kCanonD, 0);
  EXPECT_F(RUN(FADD_D, RNE, 0xfff8000000000000, D(1.0)), kCanonD, 0);
  EXPECT_F(RUN(FSUB_D, RNE, D(1.0), kSNanD), kCanonD, kNV);
  EXPECT_F(RUN(FADD_D, RNE, kInfD, 0xfff0000000000000), kCanonD, kNV);
  EXPECT_F(RUN(FMUL_D, RNE, kQNanD, kSNanD), kCanonD, kNV);
  EXPECT_F(RUN(FDIV_D, RNE, kSNanD, D(1.0)), kCanonD, kNV);
}

TEST_F(Fp, ImproperlyBoxedSinglesReadAsCanonicalNaN) {
  const uint64_t bad = 0x000000003f800000, bad2 = 0x7fffffff3f800000;  // 1.0f without a full box
  EXPECT_F(RUN(FADD_S, RNE, bad, S(1.0f)), kCanonS, 0);
  EXPECT_F(RUN(FMUL_S, RNE, S(1.0f), bad2), kCanonS, 0);
  EXPECT_F(RUN(FMADD_S, RNE, S(1.0f), S(1.0f), bad), kCanonS, 0);
  EXPECT_F(RUN(FSGNJ_S, RNE, bad, S(-1.0f)), Sb(0xffc00000), 0);
  EXPECT_F(RUN(FSGNJ_S, RNE, S(2.0f), bad), S(2.0f), 0);
  EXPECT_F(RUN(FMIN_S, RNE, bad, S(3.0f)), S(3.0f), 0);
  EXPECT_F(RUN(FMAX_S, RNE, bad, bad2), kCanonS, 0);
  EXPECT_X(RUN(FEQ_S, RNE, bad, bad), 0, 0);
  EXPECT_X(RUN(FLT_S, RNE, S(1.0f), bad), 0, kNV);
  EXPECT_X(RUN(FCLASS_S, RNE, bad), 1u << 9, 0);
  EXPECT_X(RUN(FCVT_W_S, RNE, bad), 0x7fffffff, kNV);
  EXPECT_F(RUN(FCVT_D_S, RNE, bad), kCanonD, 0);
  // Transfers out of the register ignore the upper bits.
  EXPECT_X(RUN(FMV_X_W, RNE, bad), 0x3f800000, 0);
  EXPECT_X(RUN(FMV_X_W, RNE, 0x00000000bf800000), 0xffffffffbf800000, 0);
}

// ------------------------------------------------------------------------------------------------------------
// Sign injection, min/max, compare, classify

TEST_F(Fp, SignInjectionWorksOnRawBits) {
  EXPECT_F(RUN(FSGNJ_S, RNE, S(1.0f), S(-2.0f)), S(-1.0f), 0);
  EXPECT_F(RUN(FSGNJN_S, RNE, S(1.0f), S(-2.0f)), S(1.0f), 0);
  EXPECT_F(RUN(FSGNJX_S, RNE, S(-1.0f), S(-2.0f)), S(1.0f), 0);
  EXPECT_F(RUN(FSGNJX_S, RNE, S(-1.0f), S(2.0f)), S(-1.0f), 0);
  // NaN payloads survive, signalling NaNs raise nothing.
  EXPECT_F(RUN(FSGNJ_S, RNE, kSNanS, S(-1.0f)), Sb(0xff800001), 0);
  EXPECT_F(RUN(FSGNJN_S, RNE, kQNanS, kQNanS), Sb(0xffc12345), 0);
  EXPECT_F(RUN(FSGNJ_D, RNE, D(1.0), D(-2.0)), D(-1.0), 0);
  EXPECT_F(RUN(FSGNJN_D, RNE, kSNanD, kSNanD), kSNanD | (1ull << 63), 0);
  EXPECT_F(RUN(FSGNJX_D, RNE, D(-3.0), D(-0.0)), D(3.0), 0);
  EXPECT_F(RUN(FSGNJX_D, RNE, kQNanD | (1ull << 63), D(1.0)), kQNanD | (1ull << 63), 0);
}

TEST_F(Fp, MinMaxAreMinimumNumberAndMaximumNumber) {
  EXPECT_F(RUN(FMIN_S, RNE, S(1.0f), S(2.0f)), S(1.0f), 0);
  EXPECT_F(RUN(FMAX_S, RNE, S(1.0f), S(2.0f)), S(2.0f), 0);
  EXPECT_F(RUN(FMIN_S, RNE, S(0.0f), S(-0.0f)), S(-0.0f), 0);
  EXPECT_F(RUN(FMIN_S, RNE, S(-0.0f), S(0.0f)), S(-0.0f), 0);
  EXPECT_F(RUN(FMAX_S, RNE, S(-0.0f), S(0.0f)), S(0.0f), 0);
  EXPECT_F(RUN(FMAX_S, RNE, S(0.0f), S(-0.0f)), S(0.0f), 0);
  EXPECT_F(RUN(FMIN_S, RNE, kQNanS, S(1.0f)), S(1.0f), 0);
  EXPECT_F(RUN(FMAX_S, RNE, S(1.0f), kQNanS), S(1.0f), 0);
  EXPECT_F(RUN(FMIN_S, RNE, kSNanS, S(1.0f)), S(1.0f), kNV);
  EXPECT_F(RUN(FMAX_S, RNE, S(-1.0f), kSNanS), S(-1.0f), kNV);
  EXPECT_F(RUN(FMIN_S, RNE, kQNanS, kQNanS), kCanonS, 0);
  EXPECT_F(RUN(FMAX_S, RNE, kSNanS, kQNanS), kCanonS, kNV);
  EXPECT_F(RUN(FMIN_S, RNE, Sb(0xff800000), kInfS), Sb(0xff800000), 0);
  EXPECT_F(RUN(FMIN_D, RNE, D(-1.0), D(2.0)), D(-1.0), 0);
  EXPECT_F(RUN(FMAX_D, RNE, D(-1.0), D(2.0)), D(2.0), 0);
  EXPECT_F(RUN(FMIN_D, RNE, D(0.0), D(-0.0)), D(-0.0), 0);
  EXPECT_F(RUN(FMAX_D, RNE, D(-0.0), D(0.0)), D(0.0), 0);
  EXPECT_F(RUN(FMIN_D, RNE, kQNanD, D(5.0)), D(5.0), 0);
  EXPECT_F(RUN(FMAX_D, RNE, D(5.0), kSNanD), D(5.0), kNV);
  EXPECT_F(RUN(FMAX_D, RNE, kQNanD, kQNanD), kCanonD, 0);
  EXPECT_F(RUN(FMIN_D, RNE, kSNanD, kSNanD), kCanonD, kNV);
}

TEST_F(Fp, CompareSignalRules) {
  EXPECT_X(RUN(FEQ_S, RNE, S(1.0f), S(1.0f)), 1, 0);
  EXPECT_X(RUN(FEQ_S, RNE, S(-0.0f), S(0.0f)), 1, 0);
  EXPECT_X(RUN(FLT_S, RNE, S(-0.0f), S(0.0f)), 0, 0);
  EXPECT_X(RUN(FLE_S, RNE, S(-0.0f), S(0.0f)), 1, 0);
  EXPECT_X(RUN(FLT_S, RNE, S(1.0f), S(2.0f)), 1, 0);
  EXPECT_X(RUN(FLE_S, RNE, S(2.0f), S(1.0f)), 0, 0);
  EXPECT_X(RUN(FEQ_S, RNE, kQNanS, S(1.0f)), 0, 0);
  EXPECT_X(RUN(FEQ_S, RNE, kQNanS, kQNanS), 0, 0);
  EXPECT_X(RUN(FEQ_S, RNE, S(1.0f), kSNanS), 0, kNV);
  EXPECT_X(RUN(FLT_S, RNE, kQNanS, S(1.0f)), 0, kNV);
  EXPECT_X(RUN(FLE_S, RNE, S(1.0f), kQNanS), 0, kNV);
  EXPECT_X(RUN(FEQ_D, RNE, D(2.0), D(2.0)), 1, 0);
  EXPECT_X(RUN(FLT_D, RNE, D(-1.0), D(2.0)), 1, 0);
  EXPECT_X(RUN(FLE_D, RNE, D(2.0), D(2.0)), 1, 0);
  EXPECT_X(RUN(FLT_D, RNE, 0xfff0000000000000, kInfD), 1, 0);
  EXPECT_X(RUN(FEQ_D, RNE, kQNanD, kQNanD), 0, 0);
  EXPECT_X(RUN(FEQ_D, RNE, kSNanD, D(1.0)), 0, kNV);
  EXPECT_X(RUN(FLT_D, RNE, kQNanD, D(1.0)), 0, kNV);
  EXPECT_X(RUN(FLE_D, RNE, D(1.0), kQNanD), 0, kNV);
}

TEST_F(Fp, ClassifyAllTenClasses) {
  const uint32_t s[10] = {0xff800000, 0xbf800000, 0x807fffff, 0x80000000, 0x00000000,
                          0x00000001, 0x3f800000, 0x7f800000, 0x7f800001, 0x7fc00000};
  const uint64_t d[10] = {0xfff0000000000000, 0xbff0000000000000, 0x800fffffffffffff, 0x8000000000000000,
                          0,                  1,                  0x3ff0000000000000, 0x7ff0000000000000,
                          0x7ff0000000000001, 0x7ff8000000000000};
  for (unsigned k = 0; k < 10; ++k) {
    EXPECT_X(RUN(FCLASS_S, RNE, Sb(s[k])), 1u << k, 0) << k;
    EXPECT_X(RUN(FCLASS_D, RNE, d[k]), 1u << k, 0) << k;
  }
  EXPECT_X(RUN(FCLASS_S, RNE, Sb(0xffbfffff)), 1u << 8, 0);  // negative sNaN
  EXPECT_X(RUN(FCLASS_D, RNE, 0xfff8000000000000), 1u << 9, 0);
}

// ------------------------------------------------------------------------------------------------------------
// Conversions

TEST_F(Fp, FloatToIntRoundsInEveryMode) {
  struct Case {
    float in;
    uint8_t rm;
    int64_t out;
  };
  const Case cases[] = {
      {2.5f, RNE, 2},   {2.5f, RTZ, 2},   {2.5f, RDN, 2},   {2.5f, RUP, 3},   {2.5f, RMM, 3},
      {-2.5f, RNE, -2}, {-2.5f, RTZ, -2}, {-2.5f, RDN, -3}, {-2.5f, RUP, -2}, {-2.5f, RMM, -3},
      {0.5f, RNE, 0},   {0.5f, RMM, 1},   {-0.5f, RMM, -1}, {1.5f, RNE, 2},   {1.5f, RMM, 2},
      {3.5f, RNE, 4},   {-3.5f, RNE, -4}, {0.7f, RTZ, 0},   {-0.7f, RNE, -1}, {2.4f, RMM, 2},
  };
  for (const Case& c : cases) {
    EXPECT_X(RUN(FCVT_W_S, c.rm, S(c.in)), c.out, kNX) << c.in << " rm " << int(c.rm);
    EXPECT_X(RUN(FCVT_L_S, c.rm, S(c.in)), c.out, kNX) << c.in << " rm " << int(c.rm);
    EXPECT_X(RUN(FCVT_W_D, c.rm, D(c.in)), c.out, kNX) << c.in << " rm " << int(c.rm);
    EXPECT_X(RUN(FCVT_L_D, c.rm, D(c.in)), c.out, kNX) << c.in << " rm " << int(c.rm);
  }
  EXPECT_X(RUN(FCVT_W_S, RNE, S(-7.0f)), -7, 0);
  EXPECT_X(RUN(FCVT_L_D, RNE, D(0x1p62)), 1ll << 62, 0);
  EXPECT_X(RUN(FCVT_WU_S, RMM, S(2.5f)), 3, kNX);
  EXPECT_X(RUN(FCVT_LU_D, RDN, D(2.5)), 2, kNX);
  EXPECT_X(RUN(FCVT_W_D, RNE, D(-0x1p-1074)), 0, kNX);
}

TEST_F(Fp, FloatToIntSaturates) {
  const uint64_t ninf = 0xfff0000000000000, ninf_s = Sb(0xff800000);
  // fcvt.w: [-2^31, 2^31 - 1], results sign-extended.
  EXPECT_X(RUN(FCVT_W_S, RNE, kQNanS), 0x7fffffff, kNV);
  EXPECT_X(RUN(FCVT_W_S, RNE, Sb(0xffc00000)), 0x7fffffff, kNV);
  EXPECT_X(RUN(FCVT_W_S, RNE, kInfS), 0x7fffffff, kNV);
  EXPECT_X(RUN(FCVT_W_S, RNE, ninf_s), 0xffffffff80000000, kNV);
  EXPECT_X(RUN(FCVT_W_S, RNE, S(0x1p31f)), 0x7fffffff, kNV);
  EXPECT_X(RUN(FCVT_W_S, RNE, S(-0x1p31f)), 0xffffffff80000000, 0);
  EXPECT_X(RUN(FCVT_W_S, RNE, Sb(0xcf000001)), 0xffffffff80000000, kNV);
  EXPECT_X(RUN(FCVT_W_D, RNE, D(2147483647.0)), 0x7fffffff, 0);
  EXPECT_X(RUN(FCVT_W_D, RNE, D(2147483647.5)), 0x7fffffff, kNV);  // rounds to 2^31
  EXPECT_X(RUN(FCVT_W_D, RTZ, D(2147483647.5)), 0x7fffffff, kNX);
  EXPECT_X(RUN(FCVT_W_D, RNE, D(-2147483648.5)), 0xffffffff80000000, kNX);
  EXPECT_X(RUN(FCVT_W_D, RDN, D(-2147483648.5)), 0xffffffff80000000, kNV);
  EXPECT_X(RUN(FCVT_W_D, RNE, kQNanD), 0x7fffffff, kNV);
  EXPECT_X(RUN(FCVT_W_D, RNE, ninf), 0xffffffff80000000, kNV);
  // fcvt.wu: [0, 2^32 - 1], the 32-bit result sign-extended too.
  EXPECT_X(RUN(FCVT_WU_S, RNE, kQNanS), ~0ull, kNV);
  EXPECT_X(RUN(FCVT_WU_S, RNE, kInfS), ~0ull, kNV);
  EXPECT_X(RUN(FCVT_WU_S, RNE, ninf_s), 0, kNV);
  EXPECT_X(RUN(FCVT_WU_S, RNE, S(-1.0f)), 0, kNV);
  EXPECT_X(RUN(FCVT_WU_S, RNE, S(-0.5f)), 0, kNX);  // rounds to -0: in range
  EXPECT_X(RUN(FCVT_WU_S, RMM, S(-0.5f)), 0, kNV);  // rounds to -1
  EXPECT_X(RUN(FCVT_WU_S, RNE, S(3e9f)), 0xffffffffb2d05e00, 0);
  EXPECT_X(RUN(FCVT_WU_S, RNE, S(0x1p32f)), ~0ull, kNV);
  EXPECT_X(RUN(FCVT_WU_D, RNE, D(4294967295.0)), ~0ull, 0);
  EXPECT_X(RUN(FCVT_WU_D, RUP, D(4294967295.2)), ~0ull, kNV);
  EXPECT_X(RUN(FCVT_WU_D, RNE, kSNanD), ~0ull, kNV);
  EXPECT_X(RUN(FCVT_WU_D, RNE, ninf), 0, kNV);
  EXPECT_X(RUN(FCVT_WU_D, RNE, D(1.0)), 1, 0);
  // fcvt.l: [-2^63, 2^63 - 1].
  EXPECT_X(RUN(FCVT_L_S, RNE, kQNanS), 0x7fffffffffffffff, kNV);
  EXPECT_X(RUN(FCVT_L_S, RNE, kInfS), 0x7fffffffffffffff, kNV);
  EXPECT_X(RUN(FCVT_L_S, RNE, ninf_s), 0x8000000000000000, kNV);
  EXPECT_X(RUN(FCVT_L_S, RNE, S(0x1p63f)), 0x7fffffffffffffff, kNV);
  EXPECT_X(RUN(FCVT_L_S, RNE, S(-0x1p63f)), 0x8000000000000000, 0);
  EXPECT_X(RUN(FCVT_L_D, RNE, 0x43dfffffffffffff), 0x7ffffffffffffc00, 0);
  EXPECT_X(RUN(FCVT_L_D, RNE, D(0x1p63)), 0x7fffffffffffffff, kNV);
  EXPECT_X(RUN(FCVT_L_D, RNE, D(-0x1p63)), 0x8000000000000000, 0);
  EXPECT_X(RUN(FCVT_L_D, RNE, 0xc3e0000000000001), 0x8000000000000000, kNV);
  EXPECT_X(RUN(FCVT_L_D, RNE, kQNanD), 0x7fffffffffffffff, kNV);
  EXPECT_X(RUN(FCVT_L_D, RNE, ninf), 0x8000000000000000, kNV);
  // fcvt.lu: [0, 2^64 - 1].
  EXPECT_X(RUN(FCVT_LU_S, RNE, kQNanS), ~0ull, kNV);
  EXPECT_X(RUN(FCVT_LU_S, RNE, kInfS), ~0ull, kNV);
  EXPECT_X(RUN(FCVT_LU_S, RNE, ninf_s), 0, kNV);
  EXPECT_X(RUN(FCVT_LU_S, RNE, S(0x1p64f)), ~0ull, kNV);
  EXPECT_X(RUN(FCVT_LU_S, RNE, Sb(0x5f7fffff)), 0xffffff0000000000, 0);
  EXPECT_X(RUN(FCVT_LU_S, RNE, S(-1.0f)), 0, kNV);
  EXPECT_X(RUN(FCVT_LU_D, RNE, 0x43efffffffffffff), 0xfffffffffffff800, 0);
  EXPECT_X(RUN(FCVT_LU_D, RNE, D(0x1p64)), ~0ull, kNV);
  EXPECT_X(RUN(FCVT_LU_D, RNE, D(-0.25)), 0, kNX);
  EXPECT_X(RUN(FCVT_LU_D, RNE, kSNanD), ~0ull, kNV);
  EXPECT_X(RUN(FCVT_LU_D, RNE, ninf), 0, kNV);
}

TEST_F(Fp, IntToFloat) {
  // 2^24 + 1 is halfway between two floats.
  EXPECT_F(RUN(FCVT_S_W, RNE, 0x1000001), S(0x1p24f), kNX);
  EXPECT_F(RUN(FCVT_S_W, RTZ, 0x1000001), S(0x1p24f), kNX);
  EXPECT_F(RUN(FCVT_S_W, RUP, 0x1000001), Sb(0x4b800001), kNX);
  EXPECT_F(RUN(FCVT_S_W, RMM, 0x1000001), Sb(0x4b800001), kNX);
  EXPECT_F(RUN(FCVT_S_W, RMM, uint64_t(-0x1000001)), Sb(0xcb800001), kNX);
  EXPECT_F(RUN(FCVT_S_W, RDN, uint64_t(-0x1000001)), Sb(0xcb800001), kNX);
  EXPECT_F(RUN(FCVT_S_W, RUP, uint64_t(-0x1000001)), S(-0x1p24f), kNX);
  EXPECT_F(RUN(FCVT_S_W, RMM, 0x1000003), Sb(0x4b800002), kNX);  // tie that RNE already rounds away
  EXPECT_F(RUN(FCVT_S_W, RNE, 0), S(0.0f), 0);
  EXPECT_F(RUN(FCVT_S_W, RNE, 0xffffffff00000007), S(7.0f), 0);  // only the low 32 bits count
  EXPECT_F(RUN(FCVT_S_W, RNE, 0x80000000), S(-0x1p31f), 0);
  EXPECT_F(RUN(FCVT_S_WU, RNE, 0xffffffff), S(0x1p32f), kNX);
  EXPECT_F(RUN(FCVT_S_WU, RTZ, 0xffffffff), Sb(0x4f7fffff), kNX);
  EXPECT_F(RUN(FCVT_S_WU, RMM, 0x80000080), Sb(0x4f000001), kNX);
  EXPECT_F(RUN(FCVT_S_L, RNE, 0x8000000000000000), S(-0x1p63f), 0);
  EXPECT_F(RUN(FCVT_S_L, RMM, uint64_t(-0x20000020)), Sb(0xce000001), kNX);
  EXPECT_F(RUN(FCVT_S_L, RNE, uint64_t(-0x20000020)), S(-0x1p29f), kNX);
  EXPECT_F(RUN(FCVT_S_L, RMM, uint64_t(-0x20000010)), S(-0x1p29f), kNX);
  EXPECT_F(RUN(FCVT_S_LU, RNE, ~0ull), S(0x1p64f), kNX);
  EXPECT_F(RUN(FCVT_S_LU, RTZ, ~0ull), Sb(0x5f7fffff), kNX);
  EXPECT_F(RUN(FCVT_S_LU, RMM, 0xffffff8000000000), S(0x1p64f), kNX);
  EXPECT_F(RUN(FCVT_S_LU, RMM, 0x8000008000000000), Sb(0x5f000001), kNX);
  EXPECT_F(RUN(FCVT_S_LU, RNE, 0x8000008000000000), S(0x1p63f), kNX);
  // Doubles: 2^53 + 1 is a tie; 32-bit sources are always exact.
  EXPECT_F(RUN(FCVT_D_L, RNE, (1ull << 53) + 1), D(0x1p53), kNX);
  EXPECT_F(RUN(FCVT_D_L, RMM, (1ull << 53) + 1), D(0x1p53 + 2), kNX);
  EXPECT_F(RUN(FCVT_D_L, RMM, uint64_t(-((1ll << 53) + 1))), D(-0x1p53 - 2), kNX);
  EXPECT_F(RUN(FCVT_D_L, RUP, (1ull << 53) + 1), D(0x1p53 + 2), kNX);
  EXPECT_F(RUN(FCVT_D_L, RNE, uint64_t(-5)), D(-5.0), 0);
  EXPECT_F(RUN(FCVT_D_LU, RNE, ~0ull), D(0x1p64), kNX);
  EXPECT_F(RUN(FCVT_D_LU, RTZ, ~0ull), 0x43efffffffffffff, kNX);
  EXPECT_F(RUN(FCVT_D_LU, RMM, 0xfffffffffffffc00), D(0x1p64), kNX);
  EXPECT_F(RUN(FCVT_D_LU, RNE, 0xfffffffffffffc00), D(0x1p64), kNX);
  EXPECT_F(RUN(FCVT_D_LU, RMM, 0xfffffffffffff400), 0x43efffffffffffff, kNX);
  EXPECT_F(RUN(FCVT_D_W, RNE, 0x12345678fffffffb), D(-5.0), 0);
  EXPECT_F(RUN(FCVT_D_W, RTZ, 0x7fffffff), D(2147483647.0), 0);
  EXPECT_F(RUN(FCVT_D_WU, RNE, 0xffffffffffffffff), D(4294967295.0), 0);
  EXPECT_F(RUN(FCVT_D_WU, RMM, 0x80000000), D(0x1p31), 0);
}

TEST_F(Fp, SingleDoubleConversions) {
  // 1 + 2^-24 is halfway between two floats.
  const uint64_t tie = D(1.0 + 0x1p-24);
  EXPECT_F(RUN(FCVT_S_D, RNE, tie), S(1.0f), kNX);
  EXPECT_F(RUN(FCVT_S_D, RTZ, tie), S(1.0f), kNX);
  EXPECT_F(RUN(FCVT_S_D, RUP, tie), Sb(0x3f800001), kNX);
  EXPECT_F(RUN(FCVT_S_D, RMM, tie), Sb(0x3f800001), kNX);
  EXPECT_F(RUN(FCVT_S_D, RMM, D(-1.0 - 0x1p-24)), Sb(0xbf800001), kNX);
  EXPECT_F(RUN(FCVT_S_D, RNE, D(-1.0 - 0x1p-24)), S(-1.0f), kNX);
  EXPECT_F(RUN(FCVT_S_D, RMM, D(1.0 + 0x1p-24 + 0x1p-52)), Sb(0x3f800001), kNX);
  EXPECT_F(RUN(FCVT_S_D, RMM, D(0x1p-150)), kMinSubS, kUF | kNX);
  EXPECT_F(RUN(FCVT_S_D, RNE, D(0x1p-150)), S(0.0f), kUF | kNX);
  EXPECT_F(RUN(FCVT_S_D, RNE, D(0.5)), S(0.5f), 0);
  EXPECT_F(RUN(FCVT_S_D, RNE, D(1e300)), kInfS, kOF | kNX);
  EXPECT_F(RUN(FCVT_S_D, RTZ, D(1e300)), kMaxS, kOF | kNX);
  EXPECT_F(RUN(FCVT_S_D, RUP, D(-1e300)), Sb(0xff7fffff), kOF | kNX);
  EXPECT_F(RUN(FCVT_S_D, RNE, D(1e-300)), S(0.0f), kUF | kNX);
  EXPECT_F(RUN(FCVT_S_D, RUP, D(1e-300)), kMinSubS, kUF | kNX);
  EXPECT_F(RUN(FCVT_S_D, RNE, kInfD), kInfS, 0);
  EXPECT_F(RUN(FCVT_S_D, RNE, kQNanD), kCanonS, 0);
  EXPECT_F(RUN(FCVT_S_D, RNE, kSNanD), kCanonS, kNV);
  EXPECT_F(RUN(FCVT_D_S, RNE, S(1.5f)), D(1.5), 0);
  EXPECT_F(RUN(FCVT_D_S, RNE, kMinSubS), D(0x1p-149), 0);
  EXPECT_F(RUN(FCVT_D_S, RNE, Sb(0xff800000)), 0xfff0000000000000, 0);
  EXPECT_F(RUN(FCVT_D_S, RNE, kQNanS), kCanonD, 0);
  EXPECT_F(RUN(FCVT_D_S, RNE, kSNanS), kCanonD, kNV);
}

TEST_F(Fp, MovesTransferBitsUnchanged) {
  EXPECT_X(RUN(FMV_X_W, RNE, Sb(0x80000000)), 0xffffffff80000000, 0);
  EXPECT_X(RUN(FMV_X_W, RNE, Sb(0x7f800001)), 0x7f800001, 0);
  EXPECT_F(RUN(FMV_W_X, RNE, 0x123456789abcdef0), Sb(0x9abcdef0), 0);
  EXPECT_F(RUN(FMV_W_X, RNE, 0x7f800001), kSNanS, 0);
  EXPECT_X(RUN(FMV_X_D, RNE, kSNanD), kSNanD, 0);
  EXPECT_X(RUN(FMV_X_D, RNE, 0x123456789abcdef0), 0x123456789abcdef0, 0);
  EXPECT_F(RUN(FMV_D_X, RNE, 0xfff0000000000001), 0xfff0000000000001, 0);
}

// ------------------------------------------------------------------------------------------------------------
// Rounding-mode field, flags, host state

// Every instruction with an rm field, with valid operands.
const std::vector<std::pair<SemFn, Op>>& rounded_ops() {
  static const std::vector<std::pair<SemFn, Op>> ops = {
#define E(NAME) {sem_##NAME, Op::NAME}
      E(FMADD_S),   E(FMSUB_S),   E(FNMSUB_S),  E(FNMADD_S),  E(FADD_S),    E(FSUB_S),    E(FMUL_S),
      E(FDIV_S),    E(FSQRT_S),   E(FCVT_W_S),  E(FCVT_WU_S), E(FCVT_L_S),  E(FCVT_LU_S), E(FCVT_S_W),
      E(FCVT_S_WU), E(FCVT_S_L),  E(FCVT_S_LU), E(FMADD_D),   E(FMSUB_D),   E(FNMSUB_D),  E(FNMADD_D),
      E(FADD_D),    E(FSUB_D),    E(FMUL_D),    E(FDIV_D),    E(FSQRT_D),   E(FCVT_S_D),  E(FCVT_D_S),
      E(FCVT_W_D),  E(FCVT_WU_D), E(FCVT_L_D),  E(FCVT_LU_D), E(FCVT_D_W),  E(FCVT_D_WU), E(FCVT_D_L),
      E(FCVT_D_LU),
#undef E
  };
  return ops;
}

TEST_F(Fp, ReservedRoundingModesAreIllegalAndChangeNothing) {
  for (const auto& [fn, op] : rounded_ops()) {
    for (uint8_t frm : {0, 5, 6, 7}) {
      for (uint8_t rm : {5, 6, 7}) {
        if (rm == DYN && frm <= RMM) continue;
        h.frm = frm;
        const Out o = run(fn, op, rm, S(1.0f), S(3.0f), S(0x1p-30f));  // would raise NX if executed
        EXPECT_EQ(o.st, Status::Trap) << int(op) << " rm " << int(rm) << " frm " << int(frm);
        EXPECT_EQ(h.trap.cause, cause::kIllegalInstruction);
        EXPECT_EQ(h.trap.tval, 0x12345678u);
        EXPECT_EQ(o.f, 0x5a5a5a5a5a5a5a5au);
        EXPECT_EQ(o.x, 0x5a5a5a5a5a5a5a5au);
        EXPECT_EQ(o.flags, 0);
        EXPECT_EQ(h.frm, frm);
      }
    }
  }
}

TEST_F(Fp, DynamicRoundingModeUsesFrm) {
  const uint64_t one = S(1.0f), half_ulp = S(0x1p-24f);
  h.frm = RUP;
  EXPECT_F(RUN(FADD_S, DYN, one, half_ulp), Sb(0x3f800001), kNX);
  h.frm = RMM;
  EXPECT_F(RUN(FADD_S, DYN, one, half_ulp), Sb(0x3f800001), kNX);
  EXPECT_X(RUN(FCVT_W_D, DYN, D(-2.5)), -3, kNX);
  h.frm = RTZ;
  EXPECT_F(RUN(FDIV_D, DYN, D(2.0), D(3.0)), 0x3fe5555555555555, kNX);
  EXPECT_F(RUN(FCVT_S_LU, DYN, ~0ull), Sb(0x5f7fffff), kNX);
  // A static mode overrides frm.
  EXPECT_F(RUN(FDIV_D, RUP, D(2.0), D(3.0)), 0x3fe5555555555556, kNX);
}

TEST_F(Fp, OperationsWithoutRoundingIgnoreTheRmField) {
  h.frm = 5;
  EXPECT_F(RUN(FMIN_S, DYN, S(1.0f), S(2.0f)), S(1.0f), 0);
  EXPECT_F(RUN(FSGNJ_D, DYN, D(1.0), D(-1.0)), D(-1.0), 0);
  EXPECT_X(RUN(FEQ_D, 6, D(1.0), D(1.0)), 1, 0);
  EXPECT_X(RUN(FCLASS_S, 5, S(1.0f)), 1u << 6, 0);
  EXPECT_X(RUN(FMV_X_D, DYN, D(1.0)), D(1.0), 0);
}

TEST_F(Fp, FlagsAccrue) {
  Insn i;
  i.rd = 4;
  i.rs1 = 1;
  i.rs2 = 2;
  h.fflags = kNX;
  h.f[1] = kSNanD;
  h.f[2] = D(1.0);
  EXPECT_EQ(sem_FADD_D(h, i), Status::Next);
  EXPECT_EQ(h.fflags, kNX | kNV);
  h.f[1] = D(1.0);
  h.f[2] = D(0.0);
  EXPECT_EQ(sem_FDIV_D(h, i), Status::Next);
  EXPECT_EQ(h.fflags, kNX | kNV | kDZ);
  EXPECT_EQ(sem_FADD_D(h, i), Status::Next);  // exact: keeps what was accrued
  EXPECT_EQ(h.fflags, kNX | kNV | kDZ);
  // Flags the guest cleared stay clear for an exact operation, in every mode.
  for (uint8_t rm : {RNE, RTZ, RMM}) {
    i.rm = rm;
    h.f[2] = D(3.0);
    EXPECT_EQ(sem_FDIV_D(h, i), Status::Next);
    EXPECT_EQ(h.fflags, kNX | kNV | kDZ);
    h.fflags = 0;
    h.f[2] = D(4.0);
    EXPECT_EQ(sem_FDIV_D(h, i), Status::Next);
    EXPECT_EQ(h.fflags, 0) << int(rm);
    h.fflags = kNX | kNV | kDZ;
  }
}

TEST_F(Fp, IntegerDestinationX0StaysZero) {
  Insn i;
  i.rd = 0;
  i.rs1 = 1;
  h.f[1] = kQNanD;
  h.fflags = 0;
  EXPECT_EQ(sem_FCVT_L_D(h, i), Status::Next);
  EXPECT_EQ(h.x[0], 0u);
  EXPECT_EQ(h.fflags, kNV);
}

// brisk's own code keeps running with the default MXCSR control bits; MXCSR's sticky flags are the FP
// semantics' business and must not leak into fflags.
TEST_F(Fp, HostMxcsrControlIsRestored) {
  const unsigned saved = _mm_getcsr();
  const unsigned kControl = ~0x3fu;
  for (uint8_t rm : {RNE, RTZ, RDN, RUP, RMM}) {
    _mm_setcsr(0x1f80 | 0x3f);
    EXPECT_F(RUN(FADD_S, rm, S(1.0f), S(2.0f)), S(3.0f), 0);
    EXPECT_EQ(_mm_getcsr() & kControl, 0x1f80u) << int(rm);
    EXPECT_F(RUN(FMADD_D, rm, D(1.0), D(1.0), D(0x1p-53)), D(1.0) + (rm == RUP || rm == RMM), kNX);
    EXPECT_F(RUN(FCVT_S_L, rm, 0x1000001), Sb(0x4b800000 + (rm == RUP || rm == RMM)), kNX);
    EXPECT_F(RUN(FDIV_D, rm, D(1.0), D(0.0)), kInfD, kDZ);
    EXPECT_F(RUN(FSQRT_S, rm, S(2.0f)), Sb(0x3fb504f3 + (rm == RUP)), kNX);
    EXPECT_EQ(_mm_getcsr() & kControl, 0x1f80u) << int(rm);
  }
  _mm_setcsr(saved);
}

// ------------------------------------------------------------------------------------------------------------
// Loads and stores

struct FaultingMemory : HartEnv {
  bool load(Hart& h, uint64_t va, void*, unsigned) override {
    h.raise(cause::kLoadAccessFault, va);
    return false;
  }
  bool store(Hart& h, uint64_t va, const void*, unsigned) override {
    h.raise(cause::kStoreAmoAccessFault, va);
    return false;
  }
  void* amo(Hart&, uint64_t, unsigned) override { return nullptr; }
  bool fetch16(Hart&, uint64_t, uint16_t&) override { return false; }
  bool fetch_address(Hart&, uint64_t, uint64_t&) override { return false; }
  void watch_code(uint64_t) override {}
  void unwatch_code(uint64_t) override {}
};

TEST_F(Fp, LoadsAndStores) {
  alignas(8) uint8_t mem[64] = {};
  FaultingMemory slow;
  h.mem_base = mem;
  h.mem_limit = sizeof mem;
  h.env = &slow;
  h.x[1] = 16;
  Insn i;
  i.rd = 5;
  i.rs1 = 1;
  i.rs2 = 6;
  i.imm = -8;

  // fsw takes the low 32 bits, boxed or not; flw boxes.
  h.f[6] = 0x12345678ff800001;
  EXPECT_EQ(sem_FSW(h, i), Status::Next);
  uint32_t w;
  std::memcpy(&w, mem + 8, 4);
  EXPECT_EQ(w, 0xff800001u);
  EXPECT_EQ(sem_FLW(h, i), Status::Next);
  EXPECT_EQ(h.f[5], 0xffffffffff800001u);

  h.f[6] = kSNanD;
  i.imm = 8;
  EXPECT_EQ(sem_FSD(h, i), Status::Next);
  uint64_t d;
  std::memcpy(&d, mem + 24, 8);
  EXPECT_EQ(d, kSNanD);
  h.f[5] = 0;
  EXPECT_EQ(sem_FLD(h, i), Status::Next);
  EXPECT_EQ(h.f[5], kSNanD);
  EXPECT_EQ(h.fflags, 0);

  // A faulting access traps and leaves the destination alone.
  h.x[1] = 0x1000;
  h.f[5] = 42;
  EXPECT_EQ(sem_FLW(h, i), Status::Trap);
  EXPECT_EQ(h.trap.cause, cause::kLoadAccessFault);
  EXPECT_EQ(h.trap.tval, 0x1008u);
  EXPECT_EQ(sem_FLD(h, i), Status::Trap);
  EXPECT_EQ(h.f[5], 42u);
  EXPECT_EQ(sem_FSD(h, i), Status::Trap);
  EXPECT_EQ(h.trap.cause, cause::kStoreAmoAccessFault);
  EXPECT_EQ(sem_FSW(h, i), Status::Trap);
}

}  // namespace
}  // namespace brisk
