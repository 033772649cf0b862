// brisk-rvgen: writes a random RV64GC (+Zba/Zbb/Zbs) user-mode test program as assembly, and compares the
// result dumps two emulators produced from it.
//
//   brisk-rvgen --seed S --index I [--length N] [--limit K] [-o FILE]
//   brisk-rvgen --compare EXPECTED ACTUAL
//
// The program sets every register to an interesting value, runs N random "units" (one instruction, or a short
// group that must stay together: an address computation and its access, an lr/sc pair, a branch and the block
// it skips), then writes x0..x31, f0..f31, fcsr and the scratch buffer to stdout and exits 0. --limit K keeps
// only the first K units, so the runner can bisect a divergence to the unit that introduces it.
//
// Left out, because the two emulators may legitimately disagree or the program would trap: counters and time
// (rdcycle, rdtime, rdinstret), ecall/ebreak in the body, misaligned AMO/LR/SC, frm values 5..7 (a dynamic
// rounding mode then traps), lr/sc that are not a matched pair (success is implementation-defined), jumps that
// leave the program. Zicond is absent: neither Debian 12's binutils 2.40 nor qemu 7.2 know it. ctzw sees only
// sources that qemu 7.2 handles right (see bitmanip()).

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Layout of the data area, relative to sp (which stays fixed): the dump, then the scratch buffer that all
// memory instructions use. Everything is within reach of a 12-bit offset from sp.
constexpr int kScratchSize = 2048;
constexpr int kScratchLo = -kScratchSize / 2;  // scratch is [sp + kScratchLo, sp + kScratchHi)
constexpr int kScratchHi = kScratchSize / 2;
constexpr int kDumpRegs = 32 + 32 + 1 + 1;  // x, f, fcsr, padding to 16 bytes
constexpr int kDumpSize = kDumpRegs * 8;
constexpr int kDumpOff = kScratchLo - kDumpSize;  // dump starts here, relative to sp
constexpr int kOutputSize = kDumpSize + kScratchSize;

const char* const kXName[32] = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
                                "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
                                "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
const char* const kFName[32] = {"ft0", "ft1", "ft2", "ft3", "ft4",  "ft5",  "ft6", "ft7", "fs0",  "fs1", "fa0",
                                "fa1", "fa2", "fa3", "fa4", "fa5",  "fa6",  "fa7", "fs2", "fs3",  "fs4", "fs5",
                                "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
constexpr int kSp = 2;

// splitmix64: tiny, and its output is the same on every host and standard library, unlike <random>'s
// distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(below(uint64_t(hi - lo + 1))); }  // inclusive
  bool chance(int percent) { return below(100) < uint64_t(percent); }
  template <class T, size_t N>
  const T& pick(const T (&a)[N]) {
    return a[below(N)];
  }

 private:
  uint64_t s_;
};

// One instruction's text. Operands are appended by chained calls, which C++17 evaluates left to right, so the
// random draws happen in the same order with every compiler (function arguments would not be).
class Insn {
 public:
  explicit Insn(std::string op) : s_(std::move(op)) {}
  Insn& x(int r) { return add(kXName[r]); }
  Insn& f(int r) { return add(kFName[r]); }
  Insn& i(int64_t v) { return add(std::to_string(v)); }
  Insn& h(uint64_t v) { return add(fmt::format("{:#x}", v)); }
  Insn& s(const std::string& t) { return add(t); }
  Insn& mem(int64_t off, int base) { return add(fmt::format("{}({})", off, kXName[base])); }
  Insn& amo(int base) { return add(fmt::format("({})", kXName[base])); }
  const std::string& str() const { return s_; }

 private:
  Insn& add(const std::string& t) {
    s_ += n_++ ? ", " : " ";
    s_ += t;
    return *this;
  }
  std::string s_;
  int n_ = 0;
};

// A memory operand: the base register and the offset from it.
struct Addr {
  int base;
  int64_t off;
};

class Generator {
 public:
  Generator(uint64_t seed, uint64_t index) : rng_(mix(seed, index)), seed_(seed), index_(index) {}

  std::string program(int length, int limit);

 private:
  static uint64_t mix(uint64_t seed, uint64_t index) {
    Rng r(seed * 0x100000001b3ull ^ index);
    r.next();
    return r.next() ^ index;
  }

  // --- operands ---
  // Destinations: anything but sp, which must keep pointing at the data area; x0 now and then.
  int rd() {
    if (rng_.chance(2)) return 0;
    for (;;) {
      int r = int(rng_.below(32));
      if (r != 0 && r != kSp && !(avoid_ >> r & 1)) return r;
    }
  }
  // A writable register other than x0, e.g. for an address.
  int tmp() {
    for (;;) {
      int r = rd();
      if (r != 0) return r;
    }
  }
  int rs() { return int(rng_.below(32)); }
  int rs_nz() { return int(rng_.range(1, 31)); }
  // The x8..x15 subset that compressed instructions can name.
  int rc() {
    for (;;) {
      int r = 8 + int(rng_.below(8));
      if (!(avoid_ >> r & 1)) return r;
    }
  }
  // FP sources mostly of the precision the operation wants: a double operation on a NaN-boxed single (or the
  // reverse) only sees a NaN, and mixing freely would turn most registers into NaNs within a few dozen units.
  int fs(bool single) {
    uint32_t want = single ? single_ : ~single_;
    if (want && rng_.chance(85)) {
      for (;;) {
        int r = int(rng_.below(32));
        if (want >> r & 1) return r;
      }
    }
    return int(rng_.below(32));
  }
  int fs_c() { return 8 + int(rng_.below(8)); }
  // An FP destination; its precision is noted once the instruction is built.
  int fd() { return int(rng_.below(32)); }
  void holds(int r, bool single) { single_ = (single_ & ~(1u << r)) | uint32_t(single) << r; }
  static bool boxed(uint64_t v) { return v >> 32 == 0xffffffffu; }

  int64_t imm12() {
    switch (rng_.below(6)) {
      case 0: return rng_.pick({0, 1, -1, 2, 2047, -2048, 0x555});
      case 1: return rng_.range(-16, 16);
      default: return rng_.range(-2048, 2047);
    }
  }
  uint64_t value64();
  uint64_t fp_value();
  std::string rm() {
    static const char* const kRm[] = {"rne", "rtz", "rdn", "rup", "rmm", "dyn"};
    return rng_.below(3) == 0 ? "dyn" : rng_.pick(kRm);
  }

  // --- units ---
  void emit(const std::string& s) { lines_.push_back(s); }
  void emit(const Insn& i) { lines_.push_back(i.str()); }
  void gen_unit(bool in_block);
  void alu_rr();
  void alu_imm();
  void upper();
  void mul_div();
  void bitmanip();
  void load_store();
  void fp_load_store();
  void atomic();
  void fp_arith();
  void fp_convert();
  void fp_misc();
  void csr();
  void branch();
  void compressed();
  void misc();

  // Emits what forms the address of a `size`-byte access at a random scratch offset, and returns the operand.
  // The base is sp itself, or a register set from sp, with the offset split between the two.
  Addr address(int size, bool aligned);
  // The same for c.lw/c.ld & co.: base in x8..x15, unsigned scaled 5-bit offset.
  Addr address_c(int size);
  // An AMO/LR/SC address: an aligned offset, all of it in register `base`.
  void address_amo(int size, int base);
  int scratch_offset(int size, bool aligned) {
    int64_t o = rng_.range(kScratchLo, kScratchHi - size);
    return int(aligned ? o & ~int64_t(size - 1) : o);
  }

  Rng rng_;
  uint64_t seed_, index_;
  std::vector<std::string> lines_;  // the unit being generated: instructions and labels
  uint32_t avoid_ = 0;              // registers a pending group must not overwrite (an lr/sc address)
  uint32_t single_ = 0;             // FP registers believed to hold NaN-boxed singles
  bool rvc_ = true;                 // tracks .option rvc, which explicit c.* mnemonics need
  int label_ = 0;
};

uint64_t Generator::value64() {
  static const uint64_t kSpecial[] = {0,
                                      1,
                                      ~0ull,
                                      0x8000000000000000ull,
                                      0x7fffffffffffffffull,
                                      0xffffffff80000000ull,
                                      0x000000007fffffffull,
                                      0x0000000080000000ull,
                                      0x00000000ffffffffull,
                                      0xffffffff7fffffffull,
                                      0x0000000100000000ull,
                                      0x00000000ffff8000ull,
                                      0x0000000000008000ull,
                                      0x0000000000000080ull,
                                      0xffffffffffffff80ull,
                                      0x8000000000000001ull,
                                      0x0101010101010101ull,
                                      0x8080808080808080ull};
  switch (rng_.below(6)) {
    case 0:
    case 1: return rng_.pick(kSpecial);
    case 2: return uint64_t(rng_.range(-64, 64));
    case 3: return uint64_t(int64_t(int32_t(rng_.next())));  // a sign-extended 32-bit value
    case 4: {
      uint64_t m = rng_.chance(50) ? 1 : 3;
      return m << rng_.below(64);
    }
    default: return rng_.next();
  }
}

// A raw 64-bit FP register image: special and random doubles, NaN-boxed singles, and singles whose box is
// broken (which must read as the canonical NaN).
uint64_t Generator::fp_value() {
  static const uint64_t kDouble[] = {
      0x0000000000000000ull, 0x8000000000000000ull,  // +-0
      0x7ff0000000000000ull, 0xfff0000000000000ull,  // +-inf
      0x7ff8000000000000ull, 0xfff8000000000000ull,  // qNaN
      0x7ff4000000000001ull, 0x7ff0000000000001ull,  // sNaN
      0x0000000000000001ull, 0x800fffffffffffffull,  // subnormals
      0x0010000000000000ull, 0x7fefffffffffffffull,  // min normal, max
      0x3ff0000000000000ull, 0xbff0000000000000ull,  // +-1
      0x3fe0000000000000ull, 0x3ff8000000000000ull,  // 0.5, 1.5
      0x4004000000000000ull, 0xc004000000000000ull,  // +-2.5
      0x41e0000000000000ull, 0xc1e0000000000000ull,  // +-2^31
      0x41dfffffffc00000ull, 0xc1e0000000200000ull,  // 2^31-1, -2^31-1
      0x43e0000000000000ull, 0xc3e0000000000000ull,  // +-2^63
      0x43f0000000000000ull, 0x41f0000000000000ull,  // 2^64, 2^32
      0x36a0000000000000ull, 0x47efffffe0000000ull,  // tiny and huge for a single
  };
  static const uint32_t kSingle[] = {
      0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7fa00001, 0x7f800001, 0x00000001,
      0x807fffff, 0x00800000, 0x7f7fffff, 0x3f800000, 0xbf800000, 0x3f000000, 0x3fc00000, 0x40200000, 0xc0200000,
      0x4f000000, 0xcf000000, 0x5f000000, 0xdf000000, 0x5f800000, 0x4f800000, 0x33800000, 0x4effffff,
  };
  constexpr uint64_t kBox = 0xffffffff00000000ull;
  switch (rng_.below(9)) {
    case 0:
    case 1: return rng_.pick(kDouble);
    case 2:
    case 3: return kBox | rng_.pick(kSingle);
    case 4: {  // a normal double of moderate magnitude, sometimes exactly representable as a single
      uint64_t sign = rng_.next() & 0x8000000000000000ull;
      uint64_t exp = uint64_t(1023 + rng_.range(-70, 70)) << 52;
      uint64_t mant = rng_.next() & 0x000fffffffffffffull;
      if (rng_.chance(50)) mant &= ~0x1fffffffull;
      return sign | exp | mant;
    }
    case 5: {  // a normal single of moderate magnitude, boxed
      uint32_t sign = uint32_t(rng_.next()) & 0x80000000u;
      uint32_t exp = uint32_t(127 + rng_.range(-40, 40)) << 23;
      uint32_t mant = uint32_t(rng_.next()) & 0x7fffff;
      return kBox | sign | exp | mant;
    }
    case 6: return kBox | uint32_t(rng_.next());
    case 7: {  // broken NaN boxes
      uint64_t low = rng_.chance(50) ? rng_.pick(kSingle) : uint32_t(rng_.next());
      uint64_t high = rng_.pick({0x00000000ull, 0x7fffffffull, 0xfffffffeull, 0xffff0000ull});
      return high << 32 | low;
    }
    default: return rng_.next();
  }
}

Addr Generator::address(int size, bool aligned) {
  int off = scratch_offset(size, aligned);
  if (rng_.chance(40)) return {kSp, off};
  int base = tmp();
  int64_t a = rng_.range(std::max(-2048, off - 2047), std::min(2047, off + 2048));
  emit(Insn("addi").x(base).x(kSp).i(a));
  return {base, off - a};
}

Addr Generator::address_c(int size) {
  int off = scratch_offset(size, true);
  int imm = int(rng_.below(32)) * size;
  int base = rc();
  emit(Insn("addi").x(base).x(kSp).i(off - imm));
  return {base, imm};
}

void Generator::address_amo(int size, int base) { emit(Insn("addi").x(base).x(kSp).i(scratch_offset(size, true))); }

void Generator::alu_rr() {
  static const char* const kOps[] = {"add", "sub", "sll",  "slt",  "sltu", "xor",  "srl", "sra",
                                     "or",  "and", "addw", "subw", "sllw", "srlw", "sraw"};
  const char* op = rng_.pick(kOps);
  int d = rd(), a = rs();
  int b = rng_.chance(10) ? a : rs();
  emit(Insn(op).x(d).x(a).x(b));
}

void Generator::alu_imm() {
  static const char* const kImm[] = {"addi", "slti", "sltiu", "xori", "ori", "andi", "addiw"};
  static const char* const kShift[] = {"slli", "srli", "srai"};
  static const char* const kShiftW[] = {"slliw", "srliw", "sraiw"};
  switch (rng_.below(4)) {
    case 0:
    case 1: emit(Insn(rng_.pick(kImm)).x(rd()).x(rs()).i(imm12())); break;
    case 2: emit(Insn(rng_.pick(kShift)).x(rd()).x(rs()).i(rng_.range(0, 63))); break;
    default: emit(Insn(rng_.pick(kShiftW)).x(rd()).x(rs()).i(rng_.range(0, 31))); break;
  }
}

void Generator::upper() {
  switch (rng_.below(3)) {
    case 0: emit(Insn("lui").x(rd()).h(rng_.below(1 << 20))); break;
    case 1: emit(Insn("auipc").x(rd()).h(rng_.below(1 << 20))); break;
    default: emit(Insn("li").x(rd()).h(value64())); break;
  }
}

void Generator::mul_div() {
  static const char* const kOps[] = {"mul",  "mulh", "mulhsu", "mulhu", "div",  "divu", "rem",
                                     "remu", "mulw", "divw",   "divuw", "remw", "remuw"};
  const char* op = rng_.pick(kOps);
  int a = rs(), b = rs();
  // Make division by zero and INT_MIN / -1 frequent rather than lucky.
  if (op[0] != 'm' && rng_.chance(30)) {
    b = tmp();
    emit(Insn("li").x(b).i(rng_.chance(50) ? 0 : -1));
    if (rng_.chance(50)) {
      do a = tmp();
      while (a == b);
      bool word = op[std::strlen(op) - 1] == 'w';
      emit(Insn("li").x(a).h(word ? 0xffffffff80000000ull : 0x8000000000000000ull));
    }
  }
  emit(Insn(op).x(rd()).x(a).x(b));
}

void Generator::bitmanip() {
  static const char* const kRR[] = {
      "add.uw", "sh1add", "sh2add", "sh3add", "sh1add.uw", "sh2add.uw", "sh3add.uw", "andn", "orn",  "xnor", "max",
      "maxu",   "min",    "minu",   "rol",    "rolw",      "ror",       "rorw",      "bclr", "bext", "binv", "bset"};
  static const char* const kUnary[] = {"clz",    "clzw",   "ctz",   "cpop", "cpopw", "sext.b",
                                       "sext.h", "zext.h", "orc.b", "rev8", "zext.w"};
  static const char* const kImm64[] = {"slli.uw", "rori", "bclri", "bexti", "binvi", "bseti"};
  switch (rng_.below(6)) {
    case 0:
    case 1: emit(Insn(rng_.pick(kRR)).x(rd()).x(rs()).x(rs())); break;
    case 2:
    case 3: emit(Insn(rng_.pick(kUnary)).x(rd()).x(rs())); break;
    case 4: {
      // qemu 7.2 gets ctzw wrong when the low word is zero and the high word is not (it answers ctz of all 64
      // bits, not 32), so the source gets a set bit in its low word, or copies of bit 31 in its high word.
      int t = tmp();
      if (rng_.chance(50))
        emit(Insn("bseti").x(t).x(rs()).i(rng_.range(0, 31)));
      else
        emit(Insn("sext.w").x(t).x(rs()));
      emit(Insn("ctzw").x(rd()).x(t));
      break;
    }
    default:
      if (rng_.chance(25))
        emit(Insn("roriw").x(rd()).x(rs()).i(rng_.range(0, 31)));
      else
        emit(Insn(rng_.pick(kImm64)).x(rd()).x(rs()).i(rng_.range(0, 63)));
  }
}

void Generator::load_store() {
  static const char* const kLoad[] = {"lb", "lbu", "lh", "lhu", "lw", "lwu", "ld"};
  static const char* const kStore[] = {"sb", "sh", "sw", "sd"};
  static const int kLoadSize[] = {1, 1, 2, 2, 4, 4, 8};
  bool aligned = rng_.chance(70);
  if (rng_.chance(50)) {
    size_t i = rng_.below(7);
    Addr a = address(kLoadSize[i], aligned);
    emit(Insn(kLoad[i]).x(rd()).mem(a.off, a.base));
  } else {
    size_t i = rng_.below(4);
    Addr a = address(1 << i, aligned);
    emit(Insn(kStore[i]).x(rs()).mem(a.off, a.base));
  }
}

void Generator::fp_load_store() {
  bool single = rng_.chance(50), aligned = rng_.chance(80);
  Addr a = address(single ? 4 : 8, aligned);
  if (rng_.chance(50)) {
    int d = fd();
    emit(Insn(single ? "flw" : "fld").f(d).mem(a.off, a.base));
    holds(d, single);
  } else {
    emit(Insn(single ? "fsw" : "fsd").f(fs(single)).mem(a.off, a.base));
  }
}

void Generator::atomic() {
  static const char* const kAmo[] = {"amoswap", "amoadd", "amoxor",  "amoand", "amoor",
                                     "amomin",  "amomax", "amominu", "amomaxu"};
  static const char* const kOrder[] = {"", ".aq", ".rl", ".aqrl"};
  int size = rng_.chance(50) ? 4 : 8;
  std::string w = size == 4 ? ".w" : ".d";
  int base = tmp();
  address_amo(size, base);
  if (rng_.chance(70)) {
    std::string op = rng_.pick(kAmo) + w;
    op += rng_.pick(kOrder);
    emit(Insn(op).x(rd()).x(rs()).amo(base));
    return;
  }
  // A matched lr/sc pair, with a little unrelated work in between that leaves the address alone.
  avoid_ = 1u << base;
  emit(Insn("lr" + w + rng_.pick(kOrder)).x(rd()).amo(base));
  for (uint64_t n = rng_.below(3); n > 0; --n) rng_.chance(50) ? alu_rr() : alu_imm();
  emit(Insn("sc" + w + rng_.pick(kOrder)).x(rd()).x(rs()).amo(base));
  avoid_ = 0;
}

void Generator::fp_arith() {
  static const char* const kBin[] = {"fadd", "fsub", "fmul", "fdiv"};
  static const char* const kFma[] = {"fmadd", "fmsub", "fnmadd", "fnmsub"};
  bool single = rng_.chance(50);
  std::string t = single ? ".s" : ".d";
  int d = fd();
  switch (rng_.below(4)) {
    case 0:
    case 1: emit(Insn(rng_.pick(kBin) + t).f(d).f(fs(single)).f(fs(single)).s(rm())); break;
    case 2: emit(Insn("fsqrt" + t).f(d).f(fs(single)).s(rm())); break;
    default: emit(Insn(rng_.pick(kFma) + t).f(d).f(fs(single)).f(fs(single)).f(fs(single)).s(rm()));
  }
  holds(d, single);
}

void Generator::fp_convert() {
  static const char* const kInt[] = {"w", "wu", "l", "lu"};
  std::string i = rng_.pick(kInt);
  bool single = rng_.chance(50);
  std::string t = single ? "s" : "d";
  int d = fd();
  switch (rng_.below(5)) {
    case 0:
    case 1: emit(Insn("fcvt." + i + "." + t).x(rd()).f(fs(single)).s(rm())); return;
    case 2:
      // int -> double is exact for 32-bit sources, and the assembler then refuses a rounding mode.
      if (!single && i[0] == 'w')
        emit(Insn("fcvt.d." + i).f(d).x(rs()));
      else
        emit(Insn("fcvt." + t + "." + i).f(d).x(rs()).s(rm()));
      break;
    case 3:
      single = true;
      emit(Insn("fcvt.s.d").f(d).f(fs(false)).s(rm()));
      break;
    default: single = false; emit(Insn("fcvt.d.s").f(d).f(fs(true)));
  }
  holds(d, single);
}

void Generator::fp_misc() {
  static const char* const kSel[] = {"fmin", "fmax", "fsgnj", "fsgnjn", "fsgnjx"};
  static const char* const kCmp[] = {"feq", "flt", "fle"};
  bool single = rng_.chance(50);
  std::string t = single ? ".s" : ".d";
  switch (rng_.below(8)) {
    case 0:
    case 1: {
      int d = fd(), a = fs(single);
      emit(Insn(rng_.pick(kSel) + t).f(d).f(a).f(rng_.chance(15) ? a : fs(single)));
      holds(d, single);
      break;
    }
    case 2: {
      int d = rd(), a = fs(single);
      emit(Insn(rng_.pick(kCmp) + t).x(d).f(a).f(rng_.chance(15) ? a : fs(single)));
      break;
    }
    case 3: emit(Insn("fclass" + t).x(rd()).f(fs(single))); break;
    case 4: emit(Insn(single ? "fmv.x.w" : "fmv.x.d").x(rd()).f(fs(single))); break;
    case 5: {
      int d = fd();
      emit(Insn(single ? "fmv.w.x" : "fmv.d.x").f(d).x(rs()));
      holds(d, single);
      break;
    }
    default: {  // plant a fresh interesting FP value
      int r = tmp(), d = fd();
      uint64_t v = fp_value();
      emit(Insn("li").x(r).h(v));
      emit(Insn("fmv.d.x").f(d).x(r));
      holds(d, boxed(v));
    }
  }
}

// fflags/frm/fcsr accesses. frm must stay in 0..4, or the next dynamic-rounding instruction traps: register
// sources for frm/fcsr are masked first, and set-bit forms on frm are not used.
void Generator::csr() {
  switch (rng_.below(10)) {
    case 0: emit(Insn(rng_.pick({"frcsr", "frrm", "frflags"})).x(rd())); break;
    case 1: emit(Insn("fsflags").x(rd()).x(rs())); break;
    case 2: emit(Insn("fsflagsi").x(rd()).i(rng_.range(0, 31))); break;
    case 3: emit(Insn("fsrmi").x(rd()).i(rng_.range(0, 4))); break;
    case 4: {
      int t = tmp();
      bool whole = rng_.chance(50);
      emit(Insn("andi").x(t).x(rs()).i(whole ? 0x9f : 3));  // frm in {0,4}, or 0..3
      emit(Insn(whole ? "fscsr" : "fsrm").x(rd()).x(t));
      break;
    }
    case 5: emit(Insn("csrrs").x(rd()).s("fflags").x(rs())); break;
    case 6: {
      int t = tmp();
      emit(Insn("andi").x(t).x(rs()).i(0x1f));
      emit(Insn("csrrs").x(rd()).s("fcsr").x(t));
      break;
    }
    case 7:  // clearing bits of a valid frm leaves it valid
      emit(Insn("csrrc").x(rd()).s(rng_.pick({"fflags", "frm", "fcsr"})).x(rs()));
      break;
    case 8:  // a 5-bit immediate reaches only the fflags bits of fcsr
      emit(Insn(rng_.pick({"csrrci", "csrrsi", "csrrwi"}))
               .x(rd())
               .s(rng_.pick({"fflags", "fcsr"}))
               .i(rng_.range(0, 31)));
      break;
    default: emit(Insn(rng_.chance(50) ? "csrrci" : "csrrwi").x(rd()).s("frm").i(rng_.range(0, 4)));
  }
}

// A forward transfer over a small block of straight-line units, taken or not depending on the data.
void Generator::branch() {
  static const char* const kCond[] = {"beq", "bne", "blt", "bge", "bltu", "bgeu"};
  std::string label = fmt::format(".Lskip{}", label_++);
  switch (rng_.below(8)) {
    case 0:
    case 1:
    case 2: {
      const char* op = rng_.pick(kCond);
      int a = rs();
      int b = rng_.chance(15) ? a : rng_.chance(15) ? 0 : rs();
      emit(Insn(op).x(a).x(b).s(label));
      break;
    }
    case 3:
      if (rvc_) {
        emit(Insn(rng_.chance(50) ? "c.beqz" : "c.bnez").x(rc()).s(label));
        break;
      }
      [[fallthrough]];
    case 4: emit(Insn("jal").x(rd()).s(label)); break;
    case 5:
      if (rvc_) {
        emit(Insn("c.j").s(label));
        break;
      }
      [[fallthrough]];
    default: {
      int t = tmp();
      emit(Insn("lla").x(t).s(label));
      if (rvc_ && rng_.chance(40))
        emit(Insn(rng_.chance(50) ? "c.jr" : "c.jalr").x(t));
      else
        emit(Insn("jalr").x(rd()).mem(0, t));
    }
  }
  for (int64_t n = rng_.range(1, 5); n > 0; --n) gen_unit(true);
  emit(label + ":");
}

void Generator::compressed() {
  if (!rvc_) return alu_rr();
  auto nz6 = [&] {
    int64_t v;
    do v = rng_.range(-32, 31);
    while (v == 0);
    return v;
  };
  switch (rng_.below(16)) {
    case 0: emit(Insn("c.addi").x(tmp()).i(nz6())); break;
    case 1: emit(Insn("c.addiw").x(tmp()).i(rng_.range(-32, 31))); break;
    case 2: emit(Insn("c.li").x(tmp()).i(rng_.range(-32, 31))); break;
    case 3: {
      int d = tmp();
      int64_t v = rng_.range(1, 63);  // a 6-bit non-zero immediate, written as the 20-bit value it means
      emit(Insn("c.lui").x(d).h(v < 32 ? v : 0xfffc0 + v));
      break;
    }
    case 4: emit(Insn("c.slli").x(tmp()).i(rng_.range(1, 63))); break;
    case 5: emit(Insn(rng_.pick({"c.srli", "c.srai"})).x(rc()).i(rng_.range(1, 63))); break;
    case 6: emit(Insn("c.andi").x(rc()).i(rng_.range(-32, 31))); break;
    case 7: emit(Insn(rng_.pick({"c.and", "c.or", "c.xor", "c.sub", "c.addw", "c.subw"})).x(rc()).x(rc())); break;
    case 8: emit(Insn(rng_.chance(50) ? "c.mv" : "c.add").x(tmp()).x(rs_nz())); break;
    case 9: emit(Insn("c.addi4spn").x(rc()).x(kSp).i(4 * rng_.range(1, 255))); break;
    case 10: {  // moves sp and puts it back
      int64_t v = 16 * rng_.range(1, 31);
      emit(Insn("c.addi16sp").x(kSp).i(v));
      emit(Insn("c.addi16sp").x(kSp).i(-v));
      break;
    }
    case 11: {
      bool dbl = rng_.chance(50), load = rng_.chance(50);
      Addr a = address_c(dbl ? 8 : 4);
      const char* op = load ? (dbl ? "c.ld" : "c.lw") : (dbl ? "c.sd" : "c.sw");
      emit(Insn(op).x(rc()).mem(a.off, a.base));
      break;
    }
    case 12: {
      bool load = rng_.chance(50);
      Addr a = address_c(8);
      if (load) {
        int d = fs_c();
        emit(Insn("c.fld").f(d).mem(a.off, a.base));
        holds(d, false);
      } else {
        emit(Insn("c.fsd").f(fs_c()).mem(a.off, a.base));
      }
      break;
    }
    case 13: {
      bool dbl = rng_.chance(50), load = rng_.chance(50);
      int64_t off = rng_.range(0, 63) * (dbl ? 8 : 4);
      if (load)
        emit(Insn(dbl ? "c.ldsp" : "c.lwsp").x(tmp()).mem(off, kSp));
      else
        emit(Insn(dbl ? "c.sdsp" : "c.swsp").x(rs()).mem(off, kSp));
      break;
    }
    case 14: {
      bool load = rng_.chance(50);
      int64_t off = rng_.range(0, 63) * 8;
      if (load) {
        int d = fd();
        emit(Insn("c.fldsp").f(d).mem(off, kSp));
        holds(d, false);
      } else {
        emit(Insn("c.fsdsp").f(fs(false)).mem(off, kSp));
      }
      break;
    }
    default: emit("c.nop"); break;
  }
}

void Generator::misc() {
  switch (rng_.below(4)) {
    case 0: emit("fence"); break;
    case 1: emit(rng_.pick({"fence rw, rw", "fence r, r", "fence w, w", "fence.tso"})); break;
    case 2: emit("fence.i"); break;
    default: emit("nop"); break;
  }
}

void Generator::gen_unit(bool in_block) {
  struct Class {
    int weight;
    void (Generator::*fn)();
  };
  static const Class kClasses[] = {
      {14, &Generator::alu_rr},       {12, &Generator::alu_imm},  {4, &Generator::upper},
      {7, &Generator::mul_div},       {10, &Generator::bitmanip}, {9, &Generator::load_store},
      {4, &Generator::fp_load_store}, {4, &Generator::atomic},    {9, &Generator::fp_arith},
      {6, &Generator::fp_convert},    {8, &Generator::fp_misc},   {4, &Generator::csr},
      {8, &Generator::compressed},    {1, &Generator::misc},      {5, &Generator::branch},
  };
  int total = 0;
  for (const Class& c : kClasses) total += c.weight;
  for (;;) {
    int w = int(rng_.below(uint64_t(total)));
    for (const Class& c : kClasses) {
      if (w < c.weight) {
        if (in_block && c.fn == &Generator::branch) break;  // blocks stay straight-line
        (this->*c.fn)();
        return;
      }
      w -= c.weight;
    }
  }
}

std::string Generator::program(int length, int limit) {
  if (length <= 0) length = int(rng_.range(200, 500));
  if (limit < 0 || limit > length) limit = length;

  // Initial state first, so the FP precision tracking starts from the truth.
  std::vector<uint64_t> xinit(32), finit(32);
  for (auto& v : xinit) v = value64();
  for (int i = 0; i < 32; ++i) {
    finit[size_t(i)] = fp_value();
    holds(i, boxed(finit[size_t(i)]));
  }
  int fcsr = int(rng_.range(0, 4)) << 5 | int(rng_.range(0, 31));

  // All units are generated even when only a prefix is written, so a prefix is exactly a prefix.
  std::vector<std::vector<std::string>> units;
  for (int i = 0; i < length; ++i) {
    lines_.clear();
    // Switch between letting the assembler compress and forcing 32-bit encodings.
    if (rng_.chance(5)) {
      rvc_ = !rvc_;
      emit(rvc_ ? ".option rvc" : ".option norvc");
    }
    gen_unit(false);
    units.push_back(lines_);
  }
  std::string scratch;
  for (int i = 0; i < kScratchSize / 8; ++i) {
    uint64_t v = rng_.chance(20) ? value64() : rng_.next();
    scratch += fmt::format("  .dword {:#018x}\n", v);
  }
  int insns = 0;
  for (int i = 0; i < limit; ++i)
    for (const std::string& l : units[size_t(i)])
      if (l.back() != ':' && l[0] != '.') ++insns;

  std::ostringstream o;
  o << fmt::format("# brisk-rvgen seed={} index={} units={} insns={}\n", seed_, index_, limit, insns);
  // No linker relaxation: gp holds random data, so nothing may be relaxed against it.
  o << "  .option norelax\n  .option rvc\n  .text\n  .globl _start\n_start:\n";
  o << "  lla t0, fpinit\n";
  for (int i = 0; i < 32; ++i) o << fmt::format("  fld {}, {}(t0)\n", kFName[i], 8 * i);
  o << fmt::format("  li t0, {:#x}\n  fscsr t0\n", fcsr);
  for (int i = 1; i < 32; ++i)
    if (i != kSp) o << fmt::format("  li {}, {:#x}\n", kXName[i], xinit[size_t(i)]);
  o << fmt::format("  lla sp, scratch + {}\n", -kScratchLo);
  for (int i = 0; i < limit; ++i) {
    o << "# unit " << i + 1 << "\n";
    for (const std::string& l : units[size_t(i)]) o << (l.back() == ':' ? "" : "  ") << l << "\n";
  }
  o << "# epilogue\n  .option rvc\n";
  for (int i = 0; i < 32; ++i) o << fmt::format("  sd {}, {}(sp)\n", kXName[i], kDumpOff + 8 * i);
  for (int i = 0; i < 32; ++i) o << fmt::format("  fsd {}, {}(sp)\n", kFName[i], kDumpOff + 256 + 8 * i);
  o << fmt::format("  frcsr t0\n  sd t0, {}(sp)\n  sd zero, {}(sp)\n", kDumpOff + 512, kDumpOff + 520);
  // write(1, dump, size); a short write is retried from where it stopped.
  o << fmt::format("  addi s1, sp, {}\n  li s2, {}\n", kDumpOff, kOutputSize);
  o << "1:\n  li a0, 1\n  mv a1, s1\n  mv a2, s2\n  li a7, 64\n  ecall\n";
  o << "  blez a0, 2f\n  add s1, s1, a0\n  sub s2, s2, a0\n  bnez s2, 1b\n";
  o << "  li a0, 0\n2:\n  li a7, 93\n  ecall\n";
  o << "  .data\n  .balign 16\nfpinit:\n";
  for (uint64_t v : finit) o << fmt::format("  .dword {:#018x}\n", v);
  o << "  .balign 16\ndump:\n  .zero " << kDumpSize << "\nscratch:\n" << scratch;
  return o.str();
}

// --- comparison of two dumps ---

bool read_file(const char* path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

uint64_t word(const std::string& s, size_t i) {
  uint64_t v;
  std::memcpy(&v, s.data() + 8 * i, 8);
  return v;
}

int compare(const char* expected_path, const char* actual_path) {
  std::string e, a;
  if (!read_file(expected_path, e) || !read_file(actual_path, a)) {
    fmt::print("  cannot read {} or {}\n", expected_path, actual_path);
    return 2;
  }
  if (e.size() != size_t(kOutputSize) || a.size() != size_t(kOutputSize)) {
    fmt::print("  output size: qemu {} bytes, brisk {} bytes (expected {})\n", e.size(), a.size(), kOutputSize);
    return 1;
  }
  int shown = 0, total = 0;
  auto report = [&](const std::string& name, uint64_t q, uint64_t b) {
    ++total;
    if (shown++ < 12) fmt::print("  {:<16} qemu {:#018x}  brisk {:#018x}\n", name, q, b);
  };
  for (size_t i = 0; i < size_t(kOutputSize / 8); ++i) {
    uint64_t q = word(e, i), b = word(a, i);
    if (q == b) continue;
    if (i < 32)
      report(fmt::format("x{}/{}", i, kXName[i]), q, b);
    else if (i < 64)
      report(fmt::format("f{}/{}", i - 32, kFName[i - 32]), q, b);
    else if (i == 64)
      report("fcsr", q, b);
    else if (i >= size_t(kDumpRegs))
      report(fmt::format("mem[sp{:+}]", kScratchLo + int(8 * (i - kDumpRegs))), q, b);
  }
  if (total > shown) fmt::print("  ... and {} more differing words\n", total - shown);
  return total ? 1 : 0;
}

[[noreturn]] void usage() {
  std::fputs(
      "usage: brisk-rvgen --seed S --index I [--length N] [--limit K] [-o FILE]\n"
      "       brisk-rvgen --compare QEMU_OUTPUT BRISK_OUTPUT\n",
      stderr);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 0, index = 0;
  int length = 0, limit = -1;
  const char* out = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--compare" && i + 2 < argc) return compare(argv[i + 1], argv[i + 2]);
    if (i + 1 >= argc) usage();
    const char* v = argv[++i];
    if (arg == "--seed")
      seed = std::strtoull(v, nullptr, 0);
    else if (arg == "--index")
      index = std::strtoull(v, nullptr, 0);
    else if (arg == "--length")
      length = std::atoi(v);
    else if (arg == "--limit")
      limit = std::atoi(v);
    else if (arg == "-o")
      out = v;
    else
      usage();
  }
  std::string text = Generator(seed, index).program(length, limit);
  if (!out) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  std::ofstream f(out, std::ios::binary);
  f << text;
  return f ? 0 : 1;
}
