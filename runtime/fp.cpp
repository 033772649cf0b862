// F and D extension semantics (unprivileged spec, chapters "F" and "D").
//
// Rounded operations run on the host SSE unit: MXCSR gets the guest rounding mode and accrued flags, the
// operation runs, the flags are read back and the rounding mode is reset. The host's behaviour is kept where
// it equals RISC-V (rounding, tininess after rounding, overflow, the flags) and corrected where it differs:
// NaN results (x86 propagates payloads, RISC-V returns the canonical NaN), RMM (no x86 mode), conversions to
// integers (x86 returns 0x80..0 and has no unsigned forms), fmin/fmax, and inf*0 + qNaN in FMA.
// Needs SSE4.1 (roundss/roundsd) and FMA3 (vfmadd231), used through inline asm so that no other file needs
// -mfma. This file is compiled with -frounding-math -fno-fast-math -ffp-contract=off.

#include "runtime/fp.h"

#include <immintrin.h>

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "runtime/semantics.h"

namespace brisk {

namespace {

using namespace fflag;

// ---------------------------------------------------------------------------------------------------------
// Formats

template <class T>
struct FpFormat;
template <>
struct FpFormat<float> {
  using Bits = uint32_t;
  using Wide = double;  // holds every product, quotient check and midpoint of two floats exactly
};
template <>
struct FpFormat<double> {
  using Bits = uint64_t;
  using Wide = __float128;  // 113 bits: the same for doubles
};

template <class T>
using Bits = typename FpFormat<T>::Bits;
template <class T>
using Wide = typename FpFormat<T>::Wide;

template <class T>
constexpr int kFracBits = std::numeric_limits<T>::digits - 1;
template <class T>
constexpr Bits<T> kSign = Bits<T>(1) << (8 * sizeof(T) - 1);
template <class T>
constexpr Bits<T> kExp = ~kSign<T> & ~((Bits<T>(1) << kFracBits<T>) - 1);  // also the bits of +inf
template <class T>
constexpr Bits<T> kQuiet = Bits<T>(1) << (kFracBits<T> - 1);
template <class T>
constexpr Bits<T> kCanonicalNaN = kExp<T> | kQuiet<T>;
static_assert(kCanonicalNaN<double> == kCanonicalNaNDouble);
template <class T>
constexpr Bits<T> kMinNormal = Bits<T>(1) << kFracBits<T>;

template <class T>
Bits<T> bits(T x) { return std::bit_cast<Bits<T>>(x); }
template <class T>
T from_bits(Bits<T> b) { return std::bit_cast<T>(b); }

template <class T>
bool is_nan(T x) { return (bits(x) & ~kSign<T>) > kExp<T>; }
template <class T>
bool is_snan(T x) { return is_nan(x) && !(bits(x) & kQuiet<T>); }
template <class T>
bool is_finite(T x) { return (bits(x) & ~kSign<T>) < kExp<T>; }
template <class T>
bool is_inf(T x) { return (bits(x) & ~kSign<T>) == kExp<T>; }

// ---------------------------------------------------------------------------------------------------------
// Registers, rounding mode, flags

template <class T>
T get_f(const Hart& h, unsigned r) {
  if constexpr (std::is_same_v<T, float>)
    return from_bits<float>(nan_unbox(h.f[r]));
  else
    return from_bits<double>(h.f[r]);
}

template <class T>
void set_f(Hart& h, unsigned r, T v) {
  if constexpr (std::is_same_v<T, float>)
    h.f[r] = nan_box(bits(v));
  else
    h.f[r] = bits(v);
  fp_dirty(h);
}

void accrue(Hart& h, uint8_t flags) {
  if (flags) {
    h.fflags |= flags;
    fp_dirty(h);
  }
}

constexpr int kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4;
constexpr unsigned kRmDynamic = 7;

// The effective rounding mode, or -1 when it is reserved (rm 5 or 6, or frm 5..7 under rm = DYN). Every
// instruction with an rm field checks it, even those that cannot round, as Spike and QEMU do.
int rounding_mode(const Hart& h, const Insn& i) {
  const unsigned rm = i.rm == kRmDynamic ? h.frm : i.rm;
  return rm <= kRmm ? int(rm) : -1;
}

// MXCSR: all exceptions masked, RNE, no FTZ/DAZ (subnormals are architectural). brisk's own code runs with
// these control bits; it never reads the sticky flags.
constexpr uint32_t kMxcsrDefault = 0x1f80;
constexpr uint32_t kMxcsrRoundingMask = 0x6000;
// Rounding control per RISC-V rm. RMM runs as RNE; ties are fixed afterwards.
constexpr uint32_t kMxcsrRounding[5] = {0x0000, 0x6000, 0x2000, 0x4000, 0x0000};
constexpr uint32_t kMxcsrDenormalFlag = 0x02;

// MXCSR flag bits and the fflags they mean. DE (denormal operand) has no RISC-V meaning.
constexpr std::pair<uint32_t, uint8_t> kFlagPairs[] = {{0x01, kNV}, {0x04, kDZ}, {0x08, kOF}, {0x10, kUF}, {0x20, kNX}};
constexpr uint32_t kMxcsrFlags = 0x3f;

constexpr auto kGuestToHostFlags = [] {
  std::array<uint32_t, 32> t{};
  for (uint32_t f = 0; f < 32; ++f)
    for (auto [host, guest] : kFlagPairs) t[f] |= f & guest ? host : 0;
  return t;
}();

// Makes a value depend on `after` (an output of the MXCSR set-up) so the compiler cannot compute with it
// earlier. Emits no code.
template <class V>
void pin_after(V& v, uint32_t after) {
  if constexpr (std::is_floating_point_v<V>)
    asm volatile("" : "+x"(v) : "r"(after));
  else
    asm volatile("" : "+r"(v) : "r"(after));
}

// Runs host(args...) in the guest rounding mode. `flags` holds the accrued fflags on entry and those plus
// the ones the operation raised on return. The asm operands order the arithmetic strictly between the
// MXCSR accesses.
// The host drains its pipeline when stmxcsr follows a change of MXCSR's flag bits or when an ldmxcsr after
// stmxcsr changes them (30-130 ns per operation measured on the development host, against 3-5 ns). So the
// flag bits follow the guest: loaded with its accrued flags (and DE, which RISC-V lacks) and left as the
// operation set them. Only a directed rounding mode is undone afterwards.
template <class T, class Host, class... A>
T under_rm(int rm, uint8_t& flags, Host host, A... args) {
  const uint32_t mode = kMxcsrDefault | kMxcsrRounding[rm] | kMxcsrDenormalFlag | kGuestToHostFlags[flags & 0x1f];
  uint32_t current, ready, status;
  asm volatile("stmxcsr %0" : "=m"(current));
  if (current == mode)  // the common case after an RNE operation: ldmxcsr is the slower instruction
    ready = current;
  else
    asm volatile("ldmxcsr %1" : "=r"(ready) : "m"(mode));
  (pin_after(args, ready), ...);
  T r = host(args...);
  asm volatile("stmxcsr %0" : "=m"(status), "+x"(r));
  if (kMxcsrRounding[rm]) {
    const uint32_t restore = status & ~kMxcsrRoundingMask;
    asm volatile("ldmxcsr %0" : : "m"(restore));
  }
  flags = kMxcsrToFflags[status & kMxcsrFlags];
  return r;
}

// A rounded operation in mode rm; `flags` as for under_rm. RMM differs from RNE only when the exact result
// lies exactly halfway between two representable values; then RNE may have picked the one nearer zero. So
// check whether the exact result is the midpoint between r and its neighbour away from zero (`exact_is`,
// evaluated exactly in the wide type) and take that neighbour if so. The flags are those of RNE: a tie is
// inexact in both, and overflow and tininess (after rounding) are decided identically at ties.
template <class T, class Host, class IsExact, class... A>
T rounded(int rm, uint8_t& flags, Host host, IsExact exact_is, A... args) {
  T r = under_rm<T>(rm, flags, host, args...);
  // Accrued flags cannot tell whether this operation was inexact, so every finite RMM result is checked;
  // an exact result is never a midpoint. The check runs in RNE (RMM's host mode), which TwoSum needs.
  if (rm == kRmm && is_finite(r)) [[unlikely]] {
    const T away = from_bits<T>(bits(r) + 1);  // sign-magnitude: +1 steps away from zero
    if (exact_is((Wide<T>(r) + Wide<T>(away)) / 2)) r = away;
  }
  return r;
}

// Whether x + y == m exactly: the rounded sum must equal m and be exact (TwoSum error zero).
template <class W>
bool exact_sum_is(W x, W y, W m) {
  const W s = x + y;
  const W y_part = s - x;
  const W err = (x - (s - y_part)) + (y - y_part);
  return err == 0 && s == m;
}

// A square root is never exactly halfway between two floating-point values.
template <class W>
bool never_a_tie(W) { return false; }

template <class T>
Status write_result(Hart& h, const Insn& i, T r, uint8_t flags) {
  set_f(h, i.rd, is_nan(r) ? from_bits<T>(kCanonicalNaN<T>) : r);
  accrue(h, flags);
  return Status::Next;
}

// ---------------------------------------------------------------------------------------------------------
// Arithmetic

template <class T, bool Negate>
Status fadd(Hart& h, const Insn& i) {
  const int rm = rounding_mode(h, i);
  if (rm < 0) return h.illegal(i);
  const T a = get_f<T>(h, i.rs1);
  const T b = Negate ? -get_f<T>(h, i.rs2) : get_f<T>(h, i.rs2);  // a - b is a + (-b), flags included
  uint8_t flags = h.fflags;
  const T r = rounded<T>(
      rm, flags, [](T x, T y) { return x + y; },
      [=](Wide<T> m) { return exact_sum_is<Wide<T>>(a, b, m); }, a, b);
  return write_result(h, i, r, flags);
}

template <class T>
Status fmul(Hart& h, const Insn& i) {
  const int rm = rounding_mode(h, i);
  if (rm < 0) return h.illegal(i);
  const T a = get_f<T>(h, i.rs1), b = get_f<T>(h, i.rs2);
  uint8_t flags = h.fflags;
  const T r = rounded<T>(
      rm, flags, [](T x, T y) { return x * y; }, [=](Wide<T> m) { return Wide<T>(a) * Wide<T>(b) == m; },
      a, b);
  return write_result(h, i, r, flags);
}

template <class T>
Status fdiv(Hart& h, const Insn& i) {
  const int rm = rounding_mode(h, i);
  if (rm < 0) return h.illegal(i);
  const T a = get_f<T>(h, i.rs1), b = get_f<T>(h, i.rs2);
  uint8_t flags = h.fflags;
  const T r = rounded<T>(
      rm, flags, [](T x, T y) { return x / y; }, [=](Wide<T> m) { return m * Wide<T>(b) == Wide<T>(a); },
      a, b);
  return write_result(h, i, r, flags);
}

template <class T>
T host_sqrt(T x) {
  if constexpr (std::is_same_v<T, float>)
    return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x)));
  else
    return _mm_cvtsd_f64(_mm_sqrt_sd(_mm_setzero_pd(), _mm_set_sd(x)));
}

template <class T>
Status fsqrt(Hart& h, const Insn& i) {
  const int rm = rounding_mode(h, i);
  if (rm < 0) return h.illegal(i);
  uint8_t flags = h.fflags;
  const T r = rounded<T>(rm, flags, host_sqrt<T>, never_a_tie<Wide<T>>, get_f<T>(h, i.rs1));
  return write_result(h, i, r, flags);
}

// a * b + c with one rounding.
template <class T>
T host_fma(T a, T b, T c) {
  if constexpr (std::is_same_v<T, float>)
    asm("vfmadd231ss %[b], %[a], %[c]" : [c] "+x"(c) : [a] "x"(a), [b] "x"(b));
  else
    asm("vfmadd231sd %[b], %[a], %[c]" : [c] "+x"(c) : [a] "x"(a), [b] "x"(b));
  return c;
}

// fmadd: a*b + c; fmsub: a*b - c; fnmsub: -(a*b) + c; fnmadd: -(a*b) - c. Negating an input is exact and
// raises nothing, so one host FMA serves all four.
template <class T, bool NegateProduct, bool NegateAddend>
Status fma(Hart& h, const Insn& i) {
  const int rm = rounding_mode(h, i);
  if (rm < 0) return h.illegal(i);
  const T a = NegateProduct ? -get_f<T>(h, i.rs1) : get_f<T>(h, i.rs1);
  const T b = get_f<T>(h, i.rs2);
  const T c = NegateAddend ? -get_f<T>(h, i.rs3) : get_f<T>(h, i.rs3);
  uint8_t flags = h.fflags;
  const T r = rounded<T>(
      rm, flags, host_fma<T>,
      [=](Wide<T> m) { return exact_sum_is<Wide<T>>(Wide<T>(a) * Wide<T>(b), Wide<T>(c), m); }, a, b, c);
  // RISC-V signals inf*0 even when the addend is a quiet NaN; x86 does not.
  if (is_nan(r) && is_nan(c) && ((is_inf(a) && b == 0) || (a == 0 && is_inf(b)))) flags |= kNV;
  return write_result(h, i, r, flags);
}

// ---------------------------------------------------------------------------------------------------------
// Sign injection, min/max, compare, classify

enum class Sgnj { Copy, Negate, Xor };

template <class T, Sgnj Kind>
Status fsgnj(Hart& h, const Insn& i) {
  const Bits<T> a = bits(get_f<T>(h, i.rs1)), b = bits(get_f<T>(h, i.rs2));
  const Bits<T> sign = Kind == Sgnj::Copy ? b : Kind == Sgnj::Negate ? ~b : a ^ b;
  set_f(h, i.rd, from_bits<T>((a & ~kSign<T>) | (sign & kSign<T>)));
  return Status::Next;
}

// IEEE 754-2019 minimumNumber / maximumNumber, with -0 < +0.
template <class T, bool Max>
Status fminmax(Hart& h, const Insn& i) {
  const T a = get_f<T>(h, i.rs1), b = get_f<T>(h, i.rs2);
  T r;
  if (is_nan(a) || is_nan(b)) [[unlikely]]
    r = is_nan(a) && is_nan(b) ? from_bits<T>(kCanonicalNaN<T>) : is_nan(a) ? b : a;
  else if (a == b)  // equal values differ only in the sign of a zero
    r = from_bits<T>(Max ? bits(a) & bits(b) : bits(a) | bits(b));
  else
    r = Max ? (a > b ? a : b) : (a < b ? a : b);
  set_f(h, i.rd, r);
  accrue(h, is_snan(a) || is_snan(b) ? kNV : 0);
  return Status::Next;
}

enum class Cmp { Eq, Lt, Le };

// feq is a quiet comparison (NV for signalling NaNs only); flt and fle signal on any NaN.
template <class T, Cmp C>
Status fcmp(Hart& h, const Insn& i) {
  const T a = get_f<T>(h, i.rs1), b = get_f<T>(h, i.rs2);
  if (is_nan(a) || is_nan(b)) [[unlikely]] {
    set_x(h, i.rd, 0);
    accrue(h, C != Cmp::Eq || is_snan(a) || is_snan(b) ? kNV : 0);
    return Status::Next;
  }
  set_x(h, i.rd, C == Cmp::Eq ? a == b : C == Cmp::Lt ? a < b : a <= b);
  return Status::Next;
}

// One-hot class: bit 0 -inf, 1 negative normal, 2 negative subnormal, 3 -0, then the positive classes in
// mirrored order up to 7 +inf; 8 signalling NaN, 9 quiet NaN.
template <class T>
Status fclass(Hart& h, const Insn& i) {
  const Bits<T> b = bits(get_f<T>(h, i.rs1));
  const Bits<T> mag = b & ~kSign<T>;
  unsigned cls;
  if (mag > kExp<T>) {
    cls = mag & kQuiet<T> ? 9 : 8;
  } else {
    const unsigned k = mag == kExp<T> ? 0 : mag >= kMinNormal<T> ? 1 : mag != 0 ? 2 : 3;
    cls = b & kSign<T> ? k : 7 - k;
  }
  set_x(h, i.rd, 1u << cls);
  return Status::Next;
}

// ---------------------------------------------------------------------------------------------------------
// Conversions

// Rounds to an integral value with SSE4.1 round; Imm selects the mode, bit 3 suppresses the inexact flag.
template <int Imm, class T>
T host_round(T x) {
  if constexpr (std::is_same_v<T, float>)
    asm("roundss %2, %1, %0" : "=x"(x) : "x"(x), "i"(Imm | 8));
  else
    asm("roundsd %2, %1, %0" : "=x"(x) : "x"(x), "i"(Imm | 8));
  return x;
}

template <class T>
T round_to_integral(T x, int rm) {
  switch (rm) {
    case kRne: return host_round<0>(x);
    case kRdn: return host_round<1>(x);
    case kRup: return host_round<2>(x);
    case kRtz: return host_round<3>(x);
    default: {  // RMM: ties away from zero; x - trunc(x) is exact
      const T t = host_round<3>(x);
      return std::fabs(x - t) >= T(0.5) ? t + std::copysign(T(1), x) : t;
    }
  }
}

// Float to integer with the spec's saturation: NaN and too-large values give the maximum, too-small values
// the minimum, both with NV only; in-range inexact results raise NX.
template <class I, class T>
I to_int(T x, int rm, uint8_t& flags) {
  using L = std::numeric_limits<I>;
  constexpr T lo = T(L::min());                           // -2^(N-1) or 0: exact
  constexpr T hi = T(uint64_t(1) << (L::digits - 1)) * 2;  // 2^(N-1) or 2^N: exact, excluded
  flags = kNV;
  if (is_nan(x)) return L::max();
  const T r = round_to_integral(x, rm);
  if (r < lo) return L::min();
  if (r >= hi) return L::max();
  flags = r != x ? kNX : 0;
  return I(r);
}

template <class T, class I>
Status fcvt_to_int(Hart& h, const Insn& i) {
  const int rm = rounding_mode(h, i);
  if (rm < 0) return h.illegal(i);
  uint8_t flags;
  const I v = to_int<I>(get_f<T>(h, i.rs1), rm, flags);
  set_x(h, i.rd, uint64_t(int64_t(std::make_signed_t<I>(v))));  // 32-bit results, even unsigned, sign-extend
  accrue(h, flags);
  return Status::Next;
}

template <class T, class I>
Status fcvt_from_int(Hart& h, const Insn& i) {
  const int rm = rounding_mode(h, i);
  if (rm < 0) return h.illegal(i);
  const I v = I(h.x[i.rs1]);
  if constexpr (std::numeric_limits<T>::digits >= std::numeric_limits<I>::digits) {
    set_f(h, i.rd, T(v));  // exact
    return Status::Next;
  } else {
    uint8_t flags = h.fflags;
    const T r = rounded<T>(
        rm, flags, [](I x) { return T(x); }, [=](Wide<T> m) { return __float128(m) == __float128(v); }, v);
    return write_result(h, i, r, flags);
  }
}

Status fcvt_s_d(Hart& h, const Insn& i) {
  const int rm = rounding_mode(h, i);
  if (rm < 0) return h.illegal(i);
  const double d = get_f<double>(h, i.rs1);
  uint8_t flags = h.fflags;
  const float r = rounded<float>(
      rm, flags, [](double x) { return float(x); }, [=](double m) { return m == d; }, d);
  return write_result(h, i, r, flags);
}

Status fcvt_d_s(Hart& h, const Insn& i) {
  if (rounding_mode(h, i) < 0) return h.illegal(i);
  const float s = get_f<float>(h, i.rs1);
  return write_result(h, i, double(s), is_snan(s) ? kNV : 0);  // exact
}

// ---------------------------------------------------------------------------------------------------------
// Loads and stores

template <class V>
Status fload(Hart& h, const Insn& i) {
  V v;
  if (!mem_load(h, xlen_addr(h, h.x[i.rs1] + i.imm), v)) return Status::Trap;
  if constexpr (std::is_same_v<V, uint32_t>)
    h.f[i.rd] = nan_box(v);
  else
    h.f[i.rd] = v;
  fp_dirty(h);
  return Status::Next;
}

template <class V>
Status fstore(Hart& h, const Insn& i) {
  // Stores transfer the register bits unchanged; fsw takes the low 32 bits without checking the boxing.
  return mem_store(h, xlen_addr(h, h.x[i.rs1] + i.imm), V(h.f[i.rs2])) ? Status::Next : Status::Trap;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// F

Status sem_FLW(Hart& h, const Insn& i) { return fload<uint32_t>(h, i); }
Status sem_FSW(Hart& h, const Insn& i) { return fstore<uint32_t>(h, i); }
Status sem_FMADD_S(Hart& h, const Insn& i) { return fma<float, false, false>(h, i); }
Status sem_FMSUB_S(Hart& h, const Insn& i) { return fma<float, false, true>(h, i); }
Status sem_FNMSUB_S(Hart& h, const Insn& i) { return fma<float, true, false>(h, i); }
Status sem_FNMADD_S(Hart& h, const Insn& i) { return fma<float, true, true>(h, i); }
Status sem_FADD_S(Hart& h, const Insn& i) { return fadd<float, false>(h, i); }
Status sem_FSUB_S(Hart& h, const Insn& i) { return fadd<float, true>(h, i); }
Status sem_FMUL_S(Hart& h, const Insn& i) { return fmul<float>(h, i); }
Status sem_FDIV_S(Hart& h, const Insn& i) { return fdiv<float>(h, i); }
Status sem_FSQRT_S(Hart& h, const Insn& i) { return fsqrt<float>(h, i); }
Status sem_FSGNJ_S(Hart& h, const Insn& i) { return fsgnj<float, Sgnj::Copy>(h, i); }
Status sem_FSGNJN_S(Hart& h, const Insn& i) { return fsgnj<float, Sgnj::Negate>(h, i); }
Status sem_FSGNJX_S(Hart& h, const Insn& i) { return fsgnj<float, Sgnj::Xor>(h, i); }
Status sem_FMIN_S(Hart& h, const Insn& i) { return fminmax<float, false>(h, i); }
Status sem_FMAX_S(Hart& h, const Insn& i) { return fminmax<float, true>(h, i); }
Status sem_FCVT_W_S(Hart& h, const Insn& i) { return fcvt_to_int<float, int32_t>(h, i); }
Status sem_FCVT_WU_S(Hart& h, const Insn& i) { return fcvt_to_int<float, uint32_t>(h, i); }
Status sem_FCVT_L_S(Hart& h, const Insn& i) { return fcvt_to_int<float, int64_t>(h, i); }
Status sem_FCVT_LU_S(Hart& h, const Insn& i) { return fcvt_to_int<float, uint64_t>(h, i); }
Status sem_FMV_X_W(Hart& h, const Insn& i) {
  set_x(h, i.rd, uint64_t(int64_t(int32_t(h.f[i.rs1]))));
  return Status::Next;
}
Status sem_FEQ_S(Hart& h, const Insn& i) { return fcmp<float, Cmp::Eq>(h, i); }
Status sem_FLT_S(Hart& h, const Insn& i) { return fcmp<float, Cmp::Lt>(h, i); }
Status sem_FLE_S(Hart& h, const Insn& i) { return fcmp<float, Cmp::Le>(h, i); }
Status sem_FCLASS_S(Hart& h, const Insn& i) { return fclass<float>(h, i); }
Status sem_FCVT_S_W(Hart& h, const Insn& i) { return fcvt_from_int<float, int32_t>(h, i); }
Status sem_FCVT_S_WU(Hart& h, const Insn& i) { return fcvt_from_int<float, uint32_t>(h, i); }
Status sem_FCVT_S_L(Hart& h, const Insn& i) { return fcvt_from_int<float, int64_t>(h, i); }
Status sem_FCVT_S_LU(Hart& h, const Insn& i) { return fcvt_from_int<float, uint64_t>(h, i); }
Status sem_FMV_W_X(Hart& h, const Insn& i) {
  h.f[i.rd] = nan_box(uint32_t(h.x[i.rs1]));
  fp_dirty(h);
  return Status::Next;
}

// ---------------------------------------------------------------------------------------------------------
// D

Status sem_FLD(Hart& h, const Insn& i) { return fload<uint64_t>(h, i); }
Status sem_FSD(Hart& h, const Insn& i) { return fstore<uint64_t>(h, i); }
Status sem_FMADD_D(Hart& h, const Insn& i) { return fma<double, false, false>(h, i); }
Status sem_FMSUB_D(Hart& h, const Insn& i) { return fma<double, false, true>(h, i); }
Status sem_FNMSUB_D(Hart& h, const Insn& i) { return fma<double, true, false>(h, i); }
Status sem_FNMADD_D(Hart& h, const Insn& i) { return fma<double, true, true>(h, i); }
Status sem_FADD_D(Hart& h, const Insn& i) { return fadd<double, false>(h, i); }
Status sem_FSUB_D(Hart& h, const Insn& i) { return fadd<double, true>(h, i); }
Status sem_FMUL_D(Hart& h, const Insn& i) { return fmul<double>(h, i); }
Status sem_FDIV_D(Hart& h, const Insn& i) { return fdiv<double>(h, i); }
Status sem_FSQRT_D(Hart& h, const Insn& i) { return fsqrt<double>(h, i); }
Status sem_FSGNJ_D(Hart& h, const Insn& i) { return fsgnj<double, Sgnj::Copy>(h, i); }
Status sem_FSGNJN_D(Hart& h, const Insn& i) { return fsgnj<double, Sgnj::Negate>(h, i); }
Status sem_FSGNJX_D(Hart& h, const Insn& i) { return fsgnj<double, Sgnj::Xor>(h, i); }
Status sem_FMIN_D(Hart& h, const Insn& i) { return fminmax<double, false>(h, i); }
Status sem_FMAX_D(Hart& h, const Insn& i) { return fminmax<double, true>(h, i); }
Status sem_FCVT_S_D(Hart& h, const Insn& i) { return fcvt_s_d(h, i); }
Status sem_FCVT_D_S(Hart& h, const Insn& i) { return fcvt_d_s(h, i); }
Status sem_FEQ_D(Hart& h, const Insn& i) { return fcmp<double, Cmp::Eq>(h, i); }
Status sem_FLT_D(Hart& h, const Insn& i) { return fcmp<double, Cmp::Lt>(h, i); }
Status sem_FLE_D(Hart& h, const Insn& i) { return fcmp<double, Cmp::Le>(h, i); }
Status sem_FCLASS_D(Hart& h, const Insn& i) { return fclass<double>(h, i); }
Status sem_FCVT_W_D(Hart& h, const Insn& i) { return fcvt_to_int<double, int32_t>(h, i); }
Status sem_FCVT_WU_D(Hart& h, const Insn& i) { return fcvt_to_int<double, uint32_t>(h, i); }
Status sem_FCVT_L_D(Hart& h, const Insn& i) { return fcvt_to_int<double, int64_t>(h, i); }
Status sem_FCVT_LU_D(Hart& h, const Insn& i) { return fcvt_to_int<double, uint64_t>(h, i); }
Status sem_FMV_X_D(Hart& h, const Insn& i) {
  set_x(h, i.rd, h.f[i.rs1]);
  return Status::Next;
}
Status sem_FCVT_D_W(Hart& h, const Insn& i) { return fcvt_from_int<double, int32_t>(h, i); }
Status sem_FCVT_D_WU(Hart& h, const Insn& i) { return fcvt_from_int<double, uint32_t>(h, i); }
Status sem_FCVT_D_L(Hart& h, const Insn& i) { return fcvt_from_int<double, int64_t>(h, i); }
Status sem_FCVT_D_LU(Hart& h, const Insn& i) { return fcvt_from_int<double, uint64_t>(h, i); }
Status sem_FMV_D_X(Hart& h, const Insn& i) {
  h.f[i.rd] = h.x[i.rs1];
  fp_dirty(h);
  return Status::Next;
}

const std::array<uint8_t, 64> kMxcsrToFflags = [] {
  std::array<uint8_t, 64> t{};
  for (uint32_t s = 0; s < t.size(); ++s)
    for (auto [host, guest] : kFlagPairs) t[s] |= s & host ? guest : 0;
  return t;
}();

const std::array<uint32_t, 32> kFflagsToMxcsr = [] {
  std::array<uint32_t, 32> t{};
  for (uint32_t f = 0; f < t.size(); ++f) t[f] = kMxcsrDefault | kMxcsrDenormalFlag | kGuestToHostFlags[f];
  return t;
}();

void load_host_flags(const Hart& h) {
  const uint32_t mode = kFflagsToMxcsr[h.fflags & 0x1f];
  asm volatile("ldmxcsr %0" : : "m"(mode));
}

}  // namespace brisk
