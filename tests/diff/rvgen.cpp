// brisk-rvgen: writes a random RV64GC (+Zba/Zbb/Zbs) user-mode test program as assembly (or a bare-metal one:
// --system, --rv32), and compares the result dumps two emulators produced from it.
//
//   brisk-rvgen [--system | --rv32] --seed S --index I [--length N] [--limit K] [-o FILE]
//   brisk-rvgen --compare EXPECTED ACTUAL
//   brisk-rvgen [--rv32] --compare-system EXPECTED ACTUAL [LABEL_E LABEL_A]
//   brisk-rvgen --causes OUTPUT
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
//
// --system writes a bare-metal program for `brisk system --bios none` instead, to compare brisk's engines
// with each other (see system_handlers()). Its units add what only a whole machine has: ecall/ebreak, illegal
// encodings, accesses outside the data area and across the edges of RAM, misaligned atomics, fetches from
// nowhere, privileged instructions, Zicond, and CSR accesses (scratch, trap, counter, PMU, envcfg, stateen,
// indirect and unimplemented CSRs), in M, S and U mode, with a random medeleg. An M-mode and an S-mode trap
// handler log each trap's cause, tval, epc and status and step over the trapping instruction. At the end the
// program prints its registers, CSRs, trap log and data area in hex on the UART and exits through HTIF (and
// the sifive_test finisher). gp belongs to the harness there: it carries the privilege switch requests.
//
// --rv32 writes the user-level units for an RV32IMAFDC + Zba/Zbb/Zbs hart instead, as a bare-metal program
// that runs them in M mode and prints the registers (x as 32-bit values, f as 64-bit ones), fcsr and the
// scratch buffer as --system does; --compare-system then wants --rv32 too. Its units are the ones above
// without the RV64-only forms (the W instructions, ld/sd/lwu, 64-bit shift amounts and AMOs, fcvt to and
// from 64-bit integers, fmv.x.d/fmv.d.x, c.addiw and the 64-bit compressed loads and stores, whose encodings
// RV32 gives to c.jal and c.flw/c.fsw/c.flwsp/c.fswsp, which it has instead), with 32-bit values. What the
// user-level programs leave out, these do too. No unit traps: a trap ends the program with exit status
// 64 + mcause.

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <span>
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
constexpr int kGp = 3;

// --- system mode layout ---
// The harness's save area sits right after the scratch buffer, within reach of sp: a trap handler stores its
// first register before it has any other. Offsets are from sp.
constexpr int kSaveM = kScratchHi;       // t0..t4 of the M handler
constexpr int kSaveS = kSaveM + 40;      // t0..t4 of the S handler
constexpr int kForwardPc = kSaveS + 40;  // where a switch forwarded from the S handler resumes
constexpr int kResumePc = kForwardPc + 8;  // where the next trap resumes, if not 0 (set before a fetch fault)
constexpr int kSaveWords = 16;
// gp's value while a privilege switch is pending: kSwitch | forwarded << 4 | target privilege.
constexpr uint64_t kSwitch = 0x5157ull << 16;
constexpr int kPrivU = 0, kPrivS = 1, kPrivM = 3;
// The trap log: count, hash, traps by cause taken in M and in S, then kLogEntries entries of cause (bit 32
// set when taken in S), tval, epc, status; the last entry is overwritten by every later trap.
constexpr int kLogCountsM = 2, kLogCountsS = 18, kLogEntry = 34, kLogEntries = 32;
constexpr int kLogWords = kLogEntry + 4 * kLogEntries;
// RAM as the runner configures it (brisk system -m 64M), and addresses where nothing answers.
constexpr uint64_t kRamBase = 0x80000000, kRamEnd = kRamBase + (64ull << 20);
constexpr uint64_t kUnmapped[] = {0x0, 0x80000, kRamEnd, 0x100000000ull, 1ull << 40, 0xfffffffffffff000ull};

// The CSRs the epilogue dumps, read in M mode.
struct NamedCsr {
  uint16_t num;
  const char* name;
};
constexpr NamedCsr kDumpCsrs[] = {
    {0x300, "mstatus"},     {0x302, "medeleg"},      {0x340, "mscratch"},     {0x341, "mepc"},
    {0x342, "mcause"},      {0x343, "mtval"},        {0x140, "sscratch"},     {0x141, "sepc"},
    {0x142, "scause"},      {0x143, "stval"},        {0x180, "satp"},         {0x306, "mcounteren"},
    {0x106, "scounteren"},  {0x320, "mcountinhibit"}, {0x30a, "menvcfg"},     {0x10a, "senvcfg"},
    {0x30c, "mstateen0"},   {0x10c, "sstateen0"},    {0x350, "miselect"},     {0x150, "siselect"},
    {0x14d, "stimecmp"},    {0x321, "mcyclecfg"},    {0x322, "minstretcfg"},  {0xda0, "scountovf"},
    {0xb00, "mcycle"},      {0xb02, "minstret"},     {0xb03, "mhpmcounter3"}, {0xb04, "mhpmcounter4"},
    {0xb05, "mhpmcounter5"}, {0xb06, "mhpmcounter6"}, {0xb07, "mhpmcounter7"}, {0xb08, "mhpmcounter8"},
    {0x323, "mhpmevent3"},  {0x324, "mhpmevent4"},   {0x325, "mhpmevent5"},   {0x326, "mhpmevent6"},
    {0x327, "mhpmevent7"},  {0x328, "mhpmevent8"},
};
constexpr int kDumpCsrWords = int(std::size(kDumpCsrs));

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
  Generator(uint64_t seed, uint64_t index, bool system, bool rv32)
      : rng_(mix(seed, index)),
        seed_(seed),
        index_(index),
        system_(system),
        rv32_(rv32),
        reserved_(1u << kSp | system << kGp) {}

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
      if (r != 0 && !((avoid_ | reserved_) >> r & 1)) return r;
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

  int xlen() const { return rv32_ ? 32 : 64; }
  // An entry of a table of mnemonics whose RV64-only forms are the W ones, whose names end in w; RV32 gets
  // one of the others.
  template <size_t N>
  const char* pick_xlen(const char* const (&ops)[N]) {
    for (;;) {
      const char* op = rng_.pick(ops);
      if (!rv32_ || op[std::strlen(op) - 1] != 'w') return op;
    }
  }

  int64_t imm12() {
    switch (rng_.below(6)) {
      case 0: return rng_.pick({0, 1, -1, 2, 2047, -2048, 0x555});
      case 1: return rng_.range(-16, 16);
      default: return rng_.range(-2048, 2047);
    }
  }
  uint64_t xvalue();
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
  // System mode only.
  void trap();
  void bad_access();
  void privileged();
  void sys_csr();
  void counter();
  void zicond();
  void switch_priv(int target);

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
  bool system_;
  bool rv32_;          // an RV32 hart: XLEN 32, FLEN 64
  uint32_t reserved_;  // registers no unit may write: sp, and in system mode gp
  int priv_ = kPrivM;  // system mode: the privilege the next unit runs in
  std::vector<int> priv_after_;  // ... and after each unit
  std::vector<std::string> lines_;  // the unit being generated: instructions and labels
  uint32_t avoid_ = 0;              // registers a pending group must not overwrite (an lr/sc address)
  uint32_t single_ = 0;             // FP registers believed to hold NaN-boxed singles
  bool rvc_ = true;                 // tracks .option rvc, which explicit c.* mnemonics need
  int label_ = 0;
};

// An x register value: XLEN bits.
uint64_t Generator::xvalue() {
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
  uint64_t v;
  switch (rng_.below(6)) {
    case 0:
    case 1: v = rng_.pick(kSpecial); break;
    case 2: v = uint64_t(rng_.range(-64, 64)); break;
    case 3: v = uint64_t(int64_t(int32_t(rng_.next()))); break;  // a sign-extended 32-bit value
    case 4: {
      uint64_t m = rng_.chance(50) ? 1 : 3;
      v = m << rng_.below(uint64_t(xlen()));
      break;
    }
    default: v = rng_.next();
  }
  return rv32_ ? uint32_t(v) : v;
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
  const char* op = pick_xlen(kOps);
  int d = rd(), a = rs();
  int b = rng_.chance(10) ? a : rs();
  emit(Insn(op).x(d).x(a).x(b));
}

void Generator::alu_imm() {
  static const char* const kImm[] = {"addi", "slti", "sltiu", "xori", "ori", "andi", "addiw"};
  static const char* const kShift[] = {"slli", "srli", "srai"};
  static const char* const kShiftW[] = {"slliw", "srliw", "sraiw"};
  switch (rng_.below(rv32_ ? 3 : 4)) {
    case 0:
    case 1: emit(Insn(pick_xlen(kImm)).x(rd()).x(rs()).i(imm12())); break;
    case 2: emit(Insn(rng_.pick(kShift)).x(rd()).x(rs()).i(rng_.range(0, xlen() - 1))); break;
    default: emit(Insn(rng_.pick(kShiftW)).x(rd()).x(rs()).i(rng_.range(0, 31))); break;
  }
}

void Generator::upper() {
  switch (rng_.below(3)) {
    case 0: emit(Insn("lui").x(rd()).h(rng_.below(1 << 20))); break;
    case 1: emit(Insn("auipc").x(rd()).h(rng_.below(1 << 20))); break;
    default: emit(Insn("li").x(rd()).h(xvalue())); break;
  }
}

void Generator::mul_div() {
  static const char* const kOps[] = {"mul",  "mulh", "mulhsu", "mulhu", "div",  "divu", "rem",
                                     "remu", "mulw", "divw",   "divuw", "remw", "remuw"};
  const char* op = pick_xlen(kOps);
  int a = rs(), b = rs();
  // Make division by zero and INT_MIN / -1 frequent rather than lucky.
  if (op[0] != 'm' && rng_.chance(30)) {
    b = tmp();
    emit(Insn("li").x(b).i(rng_.chance(50) ? 0 : -1));
    if (rng_.chance(50)) {
      do a = tmp();
      while (a == b);
      bool word = op[std::strlen(op) - 1] == 'w';
      emit(Insn("li").x(a).h(rv32_ ? 0x80000000ull : word ? 0xffffffff80000000ull : 0x8000000000000000ull));
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
    case 1: emit(Insn(pick_xlen(kRR)).x(rd()).x(rs()).x(rs())); break;
    case 2:
    case 3: emit(Insn(pick_xlen(kUnary)).x(rd()).x(rs())); break;
    case 4: {
      if (rv32_) {  // ctz in kUnary stands for ctzw
        emit(Insn(pick_xlen(kUnary)).x(rd()).x(rs()));
        break;
      }
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
      if (!rv32_ && rng_.chance(25))
        emit(Insn("roriw").x(rd()).x(rs()).i(rng_.range(0, 31)));
      else
        emit(Insn(pick_xlen(kImm64)).x(rd()).x(rs()).i(rng_.range(0, xlen() - 1)));
  }
}

void Generator::load_store() {
  // RV32 has the first five loads and the first three stores.
  static const char* const kLoad[] = {"lb", "lbu", "lh", "lhu", "lw", "lwu", "ld"};
  static const char* const kStore[] = {"sb", "sh", "sw", "sd"};
  static const int kLoadSize[] = {1, 1, 2, 2, 4, 4, 8};
  bool aligned = rng_.chance(70);
  if (rng_.chance(50)) {
    size_t i = rng_.below(rv32_ ? 5 : 7);
    Addr a = address(kLoadSize[i], aligned);
    emit(Insn(kLoad[i]).x(rd()).mem(a.off, a.base));
  } else {
    size_t i = rng_.below(rv32_ ? 3 : 4);
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
  int size = rv32_ || rng_.chance(50) ? 4 : 8;
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
  static const char* const kInt[] = {"w", "wu", "l", "lu"};  // RV32 has the first two
  std::string i = kInt[rng_.below(rv32_ ? 2 : 4)];
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
    // RV32 moves only words: fmv.x.w of a double reads its low half.
    case 4: emit(Insn(single || rv32_ ? "fmv.x.w" : "fmv.x.d").x(rd()).f(fs(single))); break;
    case 5: {
      int d = fd();
      single |= rv32_;
      emit(Insn(single ? "fmv.w.x" : "fmv.d.x").f(d).x(rs()));
      holds(d, single);
      break;
    }
    default: {  // plant a fresh interesting FP value
      int r = tmp(), d = fd();
      uint64_t v = fp_value();
      if (rv32_) {  // from a constant in .data, as an x register cannot hold it
        std::string label = fmt::format(".Lfp{}", label_++);
        emit(fmt::format(".pushsection .data; .balign 8; {}: .dword {:#018x}; .popsection", label, v));
        emit(Insn("lla").x(r).s(label));
        emit(Insn("fld").f(d).mem(0, r));
      } else {
        emit(Insn("li").x(r).h(v));
        emit(Insn("fmv.d.x").f(d).x(r));
      }
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
        emit(Insn(rv32_ && rng_.chance(50) ? "c.jal" : "c.j").s(label));
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
    case 1:
      if (!rv32_) {
        emit(Insn("c.addiw").x(tmp()).i(rng_.range(-32, 31)));
        break;
      }
      [[fallthrough]];
    case 2: emit(Insn("c.li").x(tmp()).i(rng_.range(-32, 31))); break;
    case 3: {
      int d = tmp();
      int64_t v = rng_.range(1, 63);  // a 6-bit non-zero immediate, written as the 20-bit value it means
      emit(Insn("c.lui").x(d).h(v < 32 ? v : 0xfffc0 + v));
      break;
    }
    case 4: emit(Insn("c.slli").x(tmp()).i(rng_.range(1, xlen() - 1))); break;
    case 5: emit(Insn(rng_.pick({"c.srli", "c.srai"})).x(rc()).i(rng_.range(1, xlen() - 1))); break;
    case 6: emit(Insn("c.andi").x(rc()).i(rng_.range(-32, 31))); break;
    case 7: {
      static const char* const kOps[] = {"c.and", "c.or", "c.xor", "c.sub", "c.addw", "c.subw"};
      emit(Insn(pick_xlen(kOps)).x(rc()).x(rc()));
      break;
    }
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
      if (rv32_ && dbl) {  // RV32 has c.flw and c.fsw where RV64 has c.ld and c.sd
        Addr a = address_c(4);
        if (load) {
          int d = fs_c();
          emit(Insn("c.flw").f(d).mem(a.off, a.base));
          holds(d, true);
        } else {
          emit(Insn("c.fsw").f(fs_c()).mem(a.off, a.base));
        }
        break;
      }
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
      int64_t off = rng_.range(0, 63) * (dbl && !rv32_ ? 8 : 4);
      if (rv32_ && dbl) {  // c.flwsp and c.fswsp, where RV64 has c.ldsp and c.sdsp
        if (load) {
          int d = fd();
          emit(Insn("c.flwsp").f(d).mem(off, kSp));
          holds(d, true);
        } else {
          emit(Insn("c.fswsp").f(fs(true)).mem(off, kSp));
        }
        break;
      }
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

// --- system mode units ---

// Something that traps, or may: the handlers log it and step over it.
void Generator::trap() {
  switch (rng_.below(8)) {
    case 0: emit("ecall"); break;
    case 1: emit(rvc_ && rng_.chance(50) ? "c.ebreak" : "ebreak"); break;
    case 2: {  // 32-bit encodings nothing implements: custom and reserved opcodes, reserved funct3/funct7/rm/fmt
      uint32_t hi = uint32_t(rng_.next()) & ~0x7fu;
      uint32_t w;
      switch (rng_.below(7)) {
        case 0: w = hi | rng_.pick({0x0bu, 0x2bu, 0x5bu, 0x7bu, 0x6bu, 0x57u, 0x77u}); break;
        case 1: w = (hi & ~0x7000u) | 0x7003u; break;                                  // load, funct3 7
        case 2: w = (hi & ~0x7000u) | uint32_t(rng_.range(4, 7)) << 12 | 0x23u; break;  // store, funct3 4..7
        case 3:  // OP with an unassigned funct7
          w = (hi & 0x01ffffffu) | uint32_t(rng_.pick({0x02, 0x08, 0x40, 0x60, 0x7f})) << 25 | 0x33u;
          break;
        case 4: w = (hi & ~0x7000u) | uint32_t(rng_.range(5, 6)) << 12 | 0x53u; break;  // fadd.s, rm 5 or 6
        case 5: w = (hi & ~0x6007000u) | 2u << 25 | 0x53u; break;                      // an FP op on halves
        default: w = (hi & ~0x7000u) | 4u << 12 | 0x73u; break;                        // SYSTEM funct3 4 (no H)
      }
      emit(fmt::format(".word {:#010x}", w));
      break;
    }
    case 3:  // reserved compressed encodings: c.addi4spn 0, c.lui 0, c.addi16sp 0, c.lwsp/c.ldsp x0, c.jr x0, ...
      emit(fmt::format(".half {:#06x}", rng_.pick({0x0000u, 0x0004u, 0x001cu, 0x6081u, 0x6101u, 0x4002u, 0x6002u,
                                                   0x8002u, 0x9c41u, 0x9c61u})));
      break;
    case 4:
    case 5: bad_access(); break;
    case 6: privileged(); break;
    default: {  // jumps to where nothing answers; the fetch fault resumes after the jump
      int t = tmp();
      std::string label = fmt::format(".Lresume{}", label_++);
      emit(Insn("lla").x(t).s(label));
      emit(Insn("sd").x(t).mem(kResumePc, kSp));
      emit(Insn("li").x(t).h(rng_.pick(kUnmapped) + 4 * rng_.below(64)));
      emit(Insn("jalr").x(rd()).mem(0, t));
      emit(label + ":");
    }
  }
}

// A load, store or AMO where nothing answers, straddling the start or end of RAM, or misaligned.
void Generator::bad_access() {
  static const char* const kLoad[] = {"lb", "lbu", "lh", "lhu", "lw", "lwu", "ld", "flw", "fld"};
  static const char* const kStore[] = {"sb", "sh", "sw", "sd", "fsw", "fsd"};
  static const int kLoadSize[] = {1, 1, 2, 2, 4, 4, 8, 4, 8};
  static const int kStoreSize[] = {1, 2, 4, 8, 4, 8};
  int t = tmp();
  if (rng_.chance(25)) {  // a misaligned AMO, LR or SC in the scratch buffer
    int size = rng_.chance(50) ? 4 : 8;
    std::string w = size == 4 ? ".w" : ".d";
    emit(Insn("addi").x(t).x(kSp).i(scratch_offset(size, true) + rng_.range(1, size - 1)));
    switch (rng_.below(3)) {
      case 0: emit(Insn("amoadd" + w).x(rd()).x(rs()).amo(t)); break;
      case 1: emit(Insn("lr" + w).x(rd()).amo(t)); break;
      default: emit(Insn("sc" + w).x(rd()).x(rs()).amo(t)); break;
    }
    return;
  }
  uint64_t a;
  switch (rng_.below(3)) {
    case 0: a = rng_.pick(kUnmapped) + rng_.below(4096); break;
    case 1: a = kRamBase - uint64_t(rng_.range(1, 7)); break;  // what lies below RAM faults, RAM does not
    default: a = kRamEnd - uint64_t(rng_.range(1, 7)); break;
  }
  emit(Insn("li").x(t).h(a));
  int r = int(rng_.below(uint64_t(std::size(kLoad) + std::size(kStore) + 2)));
  if (r < int(std::size(kLoad))) {
    bool fp = kLoad[r][0] == 'f';
    int d = fp ? fd() : rd();
    if (fp) holds(d, kLoadSize[r] == 4);
    Insn i(kLoad[r]);
    emit((fp ? i.f(d) : i.x(d)).mem(0, t));
  } else if ((r -= int(std::size(kLoad))) < int(std::size(kStore))) {
    bool fp = kStore[r][0] == 'f';
    Insn i(kStore[r]);
    emit((fp ? i.f(fs(kStoreSize[r] == 4)) : i.x(rs())).mem(0, t));
  } else {
    emit(Insn(r == int(std::size(kStore)) ? "amoor.w" : "amoswap.d").x(rd()).x(rs()).amo(t));
  }
}

// Instructions only a higher privilege may run, in a mode where they must trap; and sfence.vma, which only
// traps in U (or in S with mstatus.TVM).
void Generator::privileged() {
  if (priv_ != kPrivM && rng_.chance(40)) return emit("mret");
  if (priv_ == kPrivU && rng_.chance(50)) return emit("sret");
  if (rng_.chance(50)) return emit(Insn("sfence.vma").x(rs()).x(rs()));
  emit(rng_.pick({"csrw mhartid, zero", "csrr a0, 0x7a0", "csrw 0x7b0, a1", "csrr a2, 0x600", "csrrs a3, 0x7c0, a4",
                  "csrr a5, 0x5c0", "csrrw a6, 0x8c0, a7", "csrr t3, 0xcc0", "csrw cycle, t4",
                  "csrwi instret, 3"}));
}

// A CSR of the supervisor or machine level: its number, the lowest privilege that reaches it, and which
// values may be written to it without breaking the harness.
void Generator::sys_csr() {
  enum Kind { kAny, kEvent, kSatp, kStatus, kReadOnly };
  struct Csr {
    uint16_t num;
    int priv;
    Kind kind;
  };
  static const Csr kCsrs[] = {
      {0x340, kPrivM, kAny},       {0x341, kPrivM, kAny},      {0x342, kPrivM, kAny},      {0x343, kPrivM, kAny},
      {0xb00, kPrivM, kAny},       {0xb02, kPrivM, kAny},      {0x306, kPrivM, kAny},      {0x320, kPrivM, kAny},
      {0x30a, kPrivM, kAny},       {0x30c, kPrivM, kAny},      {0x321, kPrivM, kAny},      {0x322, kPrivM, kAny},
      {0x350, kPrivM, kAny},       {0x351, kPrivM, kAny},      {0x300, kPrivM, kStatus},   {0xf11, kPrivM, kReadOnly},
      {0xf12, kPrivM, kReadOnly},  {0xf13, kPrivM, kReadOnly}, {0xf14, kPrivM, kReadOnly}, {0xf15, kPrivM, kReadOnly},
      {0x301, kPrivM, kReadOnly},  {0x302, kPrivM, kReadOnly}, {0x303, kPrivM, kReadOnly}, {0x304, kPrivM, kReadOnly},
      {0x305, kPrivM, kReadOnly},  {0x747, kPrivM, kReadOnly}, {0x140, kPrivS, kAny},      {0x141, kPrivS, kAny},
      {0x142, kPrivS, kAny},       {0x143, kPrivS, kAny},      {0x106, kPrivS, kAny},      {0x10a, kPrivS, kAny},
      {0x10c, kPrivS, kAny},       {0x14d, kPrivS, kAny},      {0x150, kPrivS, kAny},      {0x151, kPrivS, kAny},
      {0x120, kPrivS, kAny},       {0x180, kPrivS, kSatp},     {0x100, kPrivS, kStatus},   {0xda0, kPrivS, kReadOnly},
      {0x104, kPrivS, kReadOnly},  {0x105, kPrivS, kReadOnly},
  };
  Csr c;
  if (rng_.chance(35)) {  // the PMU: a counter or an event selector, mostly 3..8 (which the dump shows)
    unsigned n = rng_.chance(80) ? unsigned(rng_.range(3, 8)) : unsigned(rng_.range(9, 31));
    c = rng_.chance(50) ? Csr{uint16_t(0xb00 + n), kPrivM, kAny} : Csr{uint16_t(0x320 + n), kPrivM, kEvent};
  } else {
    do c = rng_.pick(kCsrs);
    while (c.priv > priv_ && rng_.chance(80));  // mostly CSRs this mode reaches
  }
  std::string num = fmt::format("{:#x}", c.num);
  int d = rd();
  if (c.kind == kReadOnly || rng_.chance(25)) return emit(Insn("csrr").x(d).s(num));
  uint64_t v;
  switch (c.kind) {
    case kEvent: {
      // An event of csr/pmu.h but TLB misses (0x10), or one brisk lacks; and random OF and mode-inhibit bits.
      // TLB misses depend on the engine: the JIT looks up an instruction's translation once per block.
      v = rng_.chance(90) ? uint64_t(rng_.range(0, 0x0f)) : rng_.below(1 << 16) | 0x20;
      v |= rng_.next() & 0xfc00000000000000ull;
      break;
    }
    case kSatp: v = xvalue() & ~(0xfull << 60); break;  // MODE stays Bare
    case kStatus: {
      // FS, SUM and MXR (and in mstatus TVM and TW), set or cleared; nothing that changes how the handlers
      // run (MPRV, TSR, the interrupt enables, the previous-privilege fields).
      uint64_t mask = 3ull << 13 | 1ull << 18 | 1ull << 19 | (c.num == 0x300 ? 3ull << 20 : 0);
      int t = tmp();
      emit(Insn("li").x(t).h(xvalue() & mask));
      return emit(Insn(rng_.chance(50) ? "csrrs" : "csrrc").x(d).s(num).x(t));
    }
    default: v = xvalue();
  }
  int t = tmp();
  emit(Insn("li").x(t).h(v));
  if (c.kind == kAny && rng_.chance(30))
    emit(Insn(rng_.pick({"csrrs", "csrrc"})).x(d).s(num).x(t));
  else
    emit(Insn("csrrw").x(d).s(num).x(t));
}

// The unprivileged counters: readable below M only where mcounteren (and in U scounteren) allow.
void Generator::counter() {
  uint16_t n = rng_.chance(50) ? rng_.pick({uint16_t(0xc00), uint16_t(0xc02)}) : uint16_t(0xc03 + rng_.below(29));
  emit(Insn("csrr").x(rd()).h(n));
}

void Generator::zicond() {
  // binutils 2.40 has no czero mnemonics: czero.eqz is funct3 5, czero.nez funct3 7, both funct7 7.
  emit(Insn(".insn r").h(0x33).i(rng_.chance(50) ? 5 : 7).i(7).x(rd()).x(rs()).x(rs()));
}

// Switches to privilege `target` through the M handler: an ecall with gp = kSwitch | target. From M it may
// first set a new medeleg; ecalls from S are never delegated, so the request always reaches M (from U perhaps
// through the S handler, which forwards it).
void Generator::switch_priv(int target) {
  if (priv_ == kPrivM && rng_.chance(60)) {
    // Everything the handlers can step over may go to S: fetch, illegal, breakpoint, misaligned, access
    // faults, and ecall from U.
    int t = tmp();
    emit(Insn("li").x(t).h(rng_.chance(25) ? 0 : rng_.next() & 0x1fe));
    emit(Insn("csrw").s("medeleg").x(t));
  }
  emit(Insn("li").x(kGp).h(kSwitch | uint64_t(target)));
  emit("ecall");
  priv_ = target;
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
  // System mode: fewer of the plain units, and the traps and CSRs.
  static const Class kSystemClasses[] = {
      {10, &Generator::alu_rr},      {8, &Generator::alu_imm},   {3, &Generator::upper},
      {5, &Generator::mul_div},      {6, &Generator::bitmanip},  {8, &Generator::load_store},
      {3, &Generator::fp_load_store}, {3, &Generator::atomic},   {6, &Generator::fp_arith},
      {4, &Generator::fp_convert},   {5, &Generator::fp_misc},   {4, &Generator::csr},
      {6, &Generator::compressed},   {1, &Generator::misc},      {5, &Generator::branch},
      {12, &Generator::trap},        {12, &Generator::sys_csr},  {3, &Generator::counter},
      {2, &Generator::zicond},
  };
  const Class* begin = system_ ? std::begin(kSystemClasses) : std::begin(kClasses);
  const Class* end = system_ ? std::end(kSystemClasses) : std::end(kClasses);
  int total = 0;
  for (const Class* c = begin; c != end; ++c) total += c->weight;
  for (;;) {
    int w = int(rng_.below(uint64_t(total)));
    for (const Class& c : std::span(begin, end)) {
      if (w < c.weight) {
        if (in_block && c.fn == &Generator::branch) break;  // blocks stay straight-line
        (this->*c.fn)();
        return;
      }
      w -= c.weight;
    }
  }
}

// The end of a bare-metal program (--system, --rv32): prints [dump, dump_end) on the UART as one 64-bit hex
// word a line (on RV32 its high half, then its low half), then exits with status 0 through HTIF and the
// sifive_test finisher. `exit` writes a0 to tohost and a1 to the finisher.
std::string print_exit(bool rv32) {
  return fmt::format(R"(  .macro put_hex load, off, top
  \load a0, \off(s1)
  li a1, \top
2:
  srl a2, a0, a1
  andi a2, a2, 15
  addi a2, a2, 48
  li a3, 58
  blt a2, a3, 3f
  addi a2, a2, 39
3:
  jal ra, uart_putc
  addi a1, a1, -4
  bgez a1, 2b
  .endm
  lla s1, dump
  lla s2, dump_end
  li s3, 0x10000000
1:
{digits}
  li a2, 10
  jal ra, uart_putc
  addi s1, s1, 8
  bltu s1, s2, 1b
  li a0, 1
  li a1, 0x5555
exit:
  lla a2, tohost
  {sx} a0, 0(a2)
  li a2, 0x100000
  sw a1, 0(a2)
4:
  j 4b
uart_putc:
  lbu a3, 5(s3)
  andi a3, a3, 0x20
  beqz a3, uart_putc
  sb a2, 0(s3)
  ret
)",
                     fmt::arg("digits", rv32 ? "  put_hex lw, 4, 28\n  put_hex lw, 0, 28" : "  put_hex ld, 0, 60"),
                     fmt::arg("sx", rv32 ? "sw" : "sd"));
}

// The RV32 program's M-mode trap handler: no unit traps, so a trap fails the run with status 64 + mcause
// (HTIF's tohost is status << 1 | 1; the finisher's fail code is status << 16 | 0x3333).
constexpr const char* kRv32Trap = R"(
  .balign 4
m_trap:
  csrr a0, mcause
  addi a0, a0, 64
  slli a1, a0, 16
  li a2, 0x3333
  or a1, a1, a2
  slli a0, a0, 1
  ori a0, a0, 1
  j exit
)";

// The trap handlers of a system-mode program. Both handlers log a trap (record), then resume after the
// trapping instruction, whose length its first halfword tells, or at the resume address a fetch fault left.
// The M handler also carries out privilege switches: gp = kSwitch | forwarded << 4 | target asks it to mret
// into the target, after the ecall or, when the S handler forwarded the request, after the U-mode ecall it
// noted.
std::string system_handlers() {
  return fmt::format(R"(
  .macro handler_regs op, at
  .irp r, 0, 1, 2, 3, 4
  \op t\r, \at+8*\r(sp)
  .endr
  .endm
  .macro record cause, tval, epc, status, counts, in_s
  lla t0, tlog
  csrr t1, \cause
  andi t2, t1, 15
  sh3add t2, t2, t0
  ld t3, \counts*8(t2)
  addi t3, t3, 1
  sd t3, \counts*8(t2)
  .if \in_s
  bseti t1, t1, 32
  .endif
  ld t3, 0(t0)
  addi t2, t3, 1
  sd t2, 0(t0)
  li t2, {last}
  minu t3, t3, t2
  slli t3, t3, 5
  add t3, t3, t0
  sd t1, {entry}(t3)
  csrr t2, \tval
  sd t2, {entry}+8(t3)
  csrr t2, \epc
  sd t2, {entry}+16(t3)
  csrr t2, \status
  sd t2, {entry}+24(t3)
  ld t2, 8(t0)
  li t4, 0x9e3779b97f4a7c15
  .irp off, 0, 8, 16, 24
  ld t1, {entry}+\off(t3)
  xor t2, t2, t1
  mul t2, t2, t4
  .endr
  sd t2, 8(t0)
  ld t1, {resume}(sp)
  beqz t1, 1f
  sd zero, {resume}(sp)
  j 3f
1:
  csrr t1, \epc
  lhu t2, 0(t1)
  andi t2, t2, 3
  addi t1, t1, 2
  li t3, 3
  bne t2, t3, 3f
  addi t1, t1, 2
3:
  csrw \epc, t1
  .endm

  .balign 4
m_trap:
  handler_regs sd, {save_m}
  srli t0, gp, 16
  li t1, {magic}
  bne t0, t1, 1f
  csrr t0, mepc
  addi t0, t0, 4
  andi t1, gp, 16
  beqz t1, 2f
  ld t0, {forward}(sp)
2:
  csrw mepc, t0
  li t0, 0x1800
  csrc mstatus, t0
  andi t0, gp, 3
  slli t0, t0, 11
  csrs mstatus, t0
  li gp, 0
  handler_regs ld, {save_m}
  mret
1:
  record mcause, mtval, mepc, mstatus, {counts_m}, 0
  handler_regs ld, {save_m}
  mret

  .balign 4
s_trap:
  handler_regs sd, {save_s}
  srli t0, gp, 16
  li t1, {magic}
  bne t0, t1, 1f
  csrr t0, sepc
  addi t0, t0, 4
  sd t0, {forward}(sp)
  ori gp, gp, 16
  handler_regs ld, {save_s}
  ecall
1:
  record scause, stval, sepc, sstatus, {counts_s}, 1
  handler_regs ld, {save_s}
  sret
)",
                     fmt::arg("last", kLogEntries - 1), fmt::arg("entry", 8 * kLogEntry),
                     fmt::arg("resume", kResumePc), fmt::arg("forward", kForwardPc), fmt::arg("save_m", kSaveM),
                     fmt::arg("save_s", kSaveS), fmt::arg("magic", kSwitch >> 16),
                     fmt::arg("counts_m", kLogCountsM), fmt::arg("counts_s", kLogCountsS));
}

std::string Generator::program(int length, int limit) {
  if (length <= 0) length = int(rng_.range(200, 500));
  if (limit < 0 || limit > length) limit = length;

  // Initial state first, so the FP precision tracking starts from the truth.
  std::vector<uint64_t> xinit(32), finit(32);
  for (auto& v : xinit) v = xvalue();
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
    if (system_ && rng_.chance(4)) {
      int target;
      do target = rng_.pick({kPrivU, kPrivS, kPrivM});
      while (target == priv_);
      switch_priv(target);
    }
    gen_unit(false);
    units.push_back(lines_);
    priv_after_.push_back(priv_);
  }
  std::string scratch;
  for (int i = 0; i < kScratchSize / 8; ++i) {
    uint64_t v = rng_.chance(20) ? xvalue() : rng_.next();
    scratch += fmt::format("  .dword {:#018x}\n", v);
  }
  int insns = 0;
  for (int i = 0; i < limit; ++i)
    for (const std::string& l : units[size_t(i)])
      if (l.back() != ':' && l.rfind(".option", 0) != 0) ++insns;

  std::ostringstream o;
  o << fmt::format("# brisk-rvgen seed={} index={} units={} insns={}\n", seed_, index_, limit, insns);
  // No linker relaxation: gp holds random data, so nothing may be relaxed against it.
  o << "  .option norelax\n  .option rvc\n";
  if (system_ || rv32_) {
    // Into .text.init, which tests/bare/link.ld puts at the start of RAM. PMP entry 0 grants S and U
    // everything; mstatus.FS is turned on for the FP set-up.
    o << "  .section .text.init, \"ax\"\n  .globl _start\n_start:\n";
    o << "  lla t0, m_trap\n  csrw mtvec, t0\n";
    if (system_) {
      o << "  lla t0, s_trap\n  csrw stvec, t0\n";
      o << "  li t0, -1\n  csrw pmpaddr0, t0\n  li t0, 0x1f\n  csrw pmpcfg0, t0\n";
    }
    o << "  li t0, 0x2000\n  csrs mstatus, t0\n";
  } else {
    o << "  .text\n  .globl _start\n_start:\n";
  }
  o << "  lla t0, fpinit\n";
  for (int i = 0; i < 32; ++i) o << fmt::format("  fld {}, {}(t0)\n", kFName[i], 8 * i);
  o << fmt::format("  li t0, {:#x}\n  fscsr t0\n", fcsr);
  for (int i = 1; i < 32; ++i)
    if (!(reserved_ >> i & 1)) o << fmt::format("  li {}, {:#x}\n", kXName[i], xinit[size_t(i)]);
  if (system_) o << "  li gp, 0\n";
  o << fmt::format("  lla sp, scratch + {}\n", -kScratchLo);
  for (int i = 0; i < limit; ++i) {
    o << "# unit " << i + 1 << "\n";
    for (const std::string& l : units[size_t(i)]) o << (l.back() == ':' ? "" : "  ") << l << "\n";
  }
  o << "# epilogue\n";
  if (system_ && limit > 0 && priv_after_[size_t(limit - 1)] != kPrivM)
    o << fmt::format("  li gp, {:#x}\n  ecall\n", kSwitch | kPrivM);
  o << "  .option rvc\n";
  // RV32 stores the low halves of the x and fcsr words; their high halves stay zero.
  const char* sx = rv32_ ? "sw" : "sd";
  for (int i = 0; i < 32; ++i) o << fmt::format("  {} {}, {}(sp)\n", sx, kXName[i], kDumpOff + 8 * i);
  if (system_) {
    // The CSRs before FS is turned back on for the FP dump.
    o << "  lla t0, csrdump\n";
    for (int i = 0; i < kDumpCsrWords; ++i)
      o << fmt::format("  csrr t1, {:#x}\n  sd t1, {}(t0)\n", kDumpCsrs[i].num, 8 * i);
    o << "  li t0, 0x2000\n  csrs mstatus, t0\n";
  }
  for (int i = 0; i < 32; ++i) o << fmt::format("  fsd {}, {}(sp)\n", kFName[i], kDumpOff + 256 + 8 * i);
  o << fmt::format("  frcsr t0\n  {0} t0, {1}(sp)\n  {0} zero, {2}(sp)\n", sx, kDumpOff + 512, kDumpOff + 520);
  if (system_ || rv32_) {
    o << print_exit(rv32_) << (system_ ? system_handlers() : kRv32Trap);
    o << "  .data\n  .balign 16\nfpinit:\n";
    for (uint64_t v : finit) o << fmt::format("  .dword {:#018x}\n", v);
    o << "  .balign 16\ndump:\n  .zero " << kDumpSize << "\nscratch:\n" << scratch;
    if (system_)
      o << fmt::format("hsave:\n  .zero {}\ncsrdump:\n  .zero {}\ntlog:\n  .zero {}\n", 8 * kSaveWords,
                       8 * kDumpCsrWords, 8 * kLogWords);
    o << "dump_end:\n";
    o << "  .section .tohost, \"aw\", @progbits\n  .balign 64\n  .globl tohost\ntohost: .dword 0\n"
         "  .balign 64\n  .globl fromhost\nfromhost: .dword 0\n";
    return o.str();
  }
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

// A user-mode dump: the raw bytes of kOutputSize / 8 words.
bool read_binary(const char* path, std::vector<uint64_t>& words) {
  std::string s;
  if (!read_file(path, s) || s.size() != size_t(kOutputSize)) return false;
  words.resize(s.size() / 8);
  std::memcpy(words.data(), s.data(), s.size());
  return true;
}

// A bare-metal dump of n words: one 16-digit hex word a line, as print_exit() prints them; a console may add
// \r. A system-mode dump has kSystemWords, an RV32 one the user-mode dump's kOutputSize / 8.
constexpr int kSystemWords = kOutputSize / 8 + kSaveWords + kDumpCsrWords + kLogWords;
bool read_hex(const char* path, std::vector<uint64_t>& words, size_t n) {
  std::ifstream f(path);
  std::string line;
  words.clear();
  while (std::getline(f, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    char* end;
    uint64_t v = std::strtoull(line.c_str(), &end, 16);
    if (line.size() != 16 || *end) return false;
    words.push_back(v);
  }
  return words.size() == n;
}

// The name of word i of a dump: registers, fcsr, the scratch buffer, and in system mode the harness's save
// area, the CSRs and the trap log.
std::string word_name(size_t i) {
  if (i < 32) return fmt::format("x{}/{}", i, kXName[i]);
  if (i < 64) return fmt::format("f{}/{}", i - 32, kFName[i - 32]);
  if (i == 64) return "fcsr";
  if (i == 65) return "pad";
  i -= kDumpRegs;
  if (i < size_t(kScratchSize / 8)) return fmt::format("mem[sp{:+}]", kScratchLo + int(8 * i));
  i -= kScratchSize / 8;
  if (i < size_t(kSaveWords)) return fmt::format("hsave[sp{:+}]", kScratchHi + int(8 * i));
  i -= kSaveWords;
  if (i < size_t(kDumpCsrWords)) return kDumpCsrs[i].name;
  i -= kDumpCsrWords;
  if (i == 0) return "traps.count";
  if (i == 1) return "traps.hash";
  if (i < size_t(kLogCountsS)) return fmt::format("traps.m.cause{}", i - kLogCountsM);
  if (i < size_t(kLogEntry)) return fmt::format("traps.s.cause{}", i - kLogCountsS);
  i -= kLogEntry;
  static const char* const kField[] = {"cause", "tval", "epc", "status"};
  return fmt::format("traps[{}].{}", i / 4, kField[i % 4]);
}

// hex_words: the words of a bare-metal dump, or 0 for a user-mode one.
int compare(size_t hex_words, const char* expected_path, const char* actual_path, const std::string& elabel,
            const std::string& alabel) {
  std::vector<uint64_t> e, a;
  auto read = [&](const char* path, std::vector<uint64_t>& w) {
    return hex_words ? read_hex(path, w, hex_words) : read_binary(path, w);
  };
  bool eok = read(expected_path, e), aok = read(actual_path, a);
  if (!eok || !aok) {
    fmt::print("  malformed output: {} {}, {} {} (expected {} words)\n", elabel, eok ? "fine" : expected_path, alabel,
               aok ? "fine" : actual_path, hex_words ? hex_words : size_t(kOutputSize / 8));
    return 1;
  }
  int shown = 0, total = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    if (e[i] == a[i]) continue;
    ++total;
    if (shown++ < 12)
      fmt::print("  {:<20} {} {:#018x}  {} {:#018x}\n", word_name(i), elabel, e[i], alabel, a[i]);
  }
  if (total > shown) fmt::print("  ... and {} more differing words\n", total - shown);
  return total ? 1 : 0;
}

// The trap counts of a system-mode dump, for the runner's distribution of causes: "m2 5 s3 1 ...".
int causes(const char* path) {
  std::vector<uint64_t> w;
  if (!read_hex(path, w, kSystemWords)) return 1;
  size_t log = size_t(kOutputSize / 8 + kSaveWords + kDumpCsrWords);
  for (int i = 0; i < 16; ++i) {
    if (uint64_t n = w[log + size_t(kLogCountsM + i)]) fmt::print("m{} {}\n", i, n);
    if (uint64_t n = w[log + size_t(kLogCountsS + i)]) fmt::print("s{} {}\n", i, n);
  }
  return 0;
}

[[noreturn]] void usage() {
  std::fputs(
      "usage: brisk-rvgen [--system | --rv32] --seed S --index I [--length N] [--limit K] [-o FILE]\n"
      "       brisk-rvgen --compare QEMU_OUTPUT BRISK_OUTPUT\n"
      "       brisk-rvgen [--rv32] --compare-system EXPECTED ACTUAL [EXPECTED_LABEL ACTUAL_LABEL]\n"
      "       brisk-rvgen --causes SYSTEM_OUTPUT\n",
      stderr);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 0, index = 0;
  int length = 0, limit = -1;
  bool system = false, rv32 = false;
  const char* out = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--compare" && i + 2 < argc) return compare(0, argv[i + 1], argv[i + 2], "qemu", "brisk");
    if (arg == "--compare-system" && i + 2 < argc)
      return compare(rv32 ? kOutputSize / 8 : kSystemWords, argv[i + 1], argv[i + 2],
                     i + 4 < argc ? argv[i + 3] : "expected", i + 4 < argc ? argv[i + 4] : "actual");
    if (arg == "--causes" && i + 1 < argc) return causes(argv[i + 1]);
    if (arg == "--system" || arg == "--rv32") {
      (arg == "--rv32" ? rv32 : system) = true;
      continue;
    }
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
  if (system && rv32) usage();
  std::string text = Generator(seed, index, system, rv32).program(length, limit);
  if (!out) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  std::ofstream f(out, std::ios::binary);
  f << text;
  return f ? 0 : 1;
}
