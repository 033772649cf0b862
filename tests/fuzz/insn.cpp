// Decoder, disassembler and interpreter (jit/decode, jit/disasm, runtime/interp and the semantics
// behind it): the input's first instructions run on a hart whose XLEN, ISA, privilege, CSRs and
// registers the rest of the input sets, over either a small flat memory that faults outside itself or
// system-mode memory (runtime/mmu) with page tables the input may hold. Every trap is taken as
// the hart would take it.
#include <sys/mman.h>

#include "csr/csr.h"
#include "csr/csr_numbers.h"
#include "csr/extensions.h"
#include "runtime/error.h"
#include "runtime/interp.h"
#include "runtime/mmu.h"
#include "tests/fuzz/fuzz.h"

using namespace brisk;

namespace {

constexpr uint64_t kMemBase = 0x80000000;
constexpr uint64_t kMemSize = 64 << 10;
constexpr int kSteps = 8;

// A fixed time, so that a run depends on its input only.
struct FixedClock final : Clock {
  uint64_t t = 0;
  uint64_t now() const override { return t; }
  void set(uint64_t now) override { t = now; }
};

// [kMemBase, kMemBase + kMemSize) of plain memory, untranslated; every other address faults.
struct FlatMemory final : HartEnv {
  uint8_t* mem;
  explicit FlatMemory(uint8_t* m) : mem(m) {}
  uint8_t* at(uint64_t va, unsigned size) {
    return va - kMemBase < kMemSize && size <= kMemSize - (va - kMemBase) ? mem + (va - kMemBase) : nullptr;
  }
  bool load(Hart& h, uint64_t va, void* out, unsigned size) override {
    uint8_t* p = at(va, size);
    if (!p) return h.raise(cause::kLoadAccessFault, va), false;
    std::memcpy(out, p, size);
    return true;
  }
  bool store(Hart& h, uint64_t va, const void* in, unsigned size) override {
    uint8_t* p = at(va, size);
    if (!p) return h.raise(cause::kStoreAmoAccessFault, va), false;
    std::memcpy(p, in, size);
    return true;
  }
  void* amo(Hart& h, uint64_t va, unsigned size) override {
    uint8_t* p = at(va, size);
    if (!p || va % size) h.raise(p ? cause::kStoreAmoAddressMisaligned : cause::kStoreAmoAccessFault, va);
    return p && va % size == 0 ? p : nullptr;
  }
  bool fetch16(Hart& h, uint64_t va, uint16_t& out) override {
    uint8_t* p = at(va, 2);
    if (!p) return h.raise(cause::kInstructionAccessFault, va), false;
    std::memcpy(&out, p, 2);
    return true;
  }
  bool fetch_address(Hart& h, uint64_t va, uint64_t& pa) override {
    pa = va;
    return at(va, 2) || (h.raise(cause::kInstructionAccessFault, va), false);
  }
  void watch_code(uint64_t) override {}
  void unwatch_code(uint64_t) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  const uint8_t control = in.take<uint8_t>();
  // The instructions first, so that short inputs already run some.
  uint8_t code[4 * kSteps] = {};
  for (uint8_t& b : code) b = in.take<uint8_t>();
  const uint64_t ext_off = in.take<uint64_t>();
  static Hart h;
  h = Hart();
  FixedClock clock;
  h.csr.clock = &clock;
  std::string cpu = control & 8 ? "rv32" : "rv64";
  for (unsigned e = 1; e < static_cast<unsigned>(Ext::Count) && e < 64; e++)
    if (ext_off >> e & 1) cpu += std::string(",") + ext_name(static_cast<Ext>(e)) + "=off";
  IsaConfig isa;
  try {
    isa.apply(cpu);
  } catch (const Error&) {
    return 0;
  }
  csr::set_isa(h, isa);
  csr::reset(h);
  Bus bus(kMemBase, kMemSize);
  FlatMemory flat(bus.ram());
  SystemMemory sys(bus, {&h});
  h.env = control & 4 ? static_cast<HartEnv*>(&sys) : &flat;
  // CSR values go through csrrw from M-mode, which keeps them legal (WARL).
  for (uint16_t num : {csr::CSR_MSTATUS, csr::CSR_SATP, csr::CSR_MEDELEG, csr::CSR_MIDELEG, csr::CSR_MENVCFG,
                       csr::CSR_MCOUNTEREN}) {
    Insn csrrw = decode(0x00001073 | uint32_t(num) << 20, h.csr.isa);
    uint64_t old;
    csr::access(h, csrrw, csr::CsrOp::RW, false, true, in.take<uint64_t>(), old);
  }
  h.csr.mtvec = h.csr.stvec = kMemBase + 0x100;
  // An RV32 hart's registers hold their values sign-extended (docs/architecture.md, "XLEN").
  for (int r = 1; r < 32; r++) h.x[r] = xlen_value(h, in.take<uint64_t>());
  for (int r = 0; r < 32; r++) h.f[r] = in.take<uint64_t>();
  h.frm = in.take<uint8_t>() & 7;
  h.priv = static_cast<Priv>(control & 3) == Priv::U || static_cast<Priv>(control & 3) == Priv::S
               ? static_cast<Priv>(control & 3)
               : Priv::M;
  h.pc = kMemBase;

  // Memory: the instructions, then the rest of the input (data, page tables).
  std::memcpy(bus.ram(), code, sizeof code);
  std::memcpy(bus.ram() + sizeof code, in.rest(), std::min<size_t>(in.left(), kMemSize - sizeof code));
  for (int k = 0; k < kSteps; k++) {
    uint32_t raw;
    std::memcpy(&raw, code + 4 * k, 4);
    disassemble(decode(raw, h.csr.isa), kMemBase + 4 * k);
  }

  static Interpreter interp;
  for (int k = 0; k < kSteps; k++) {
    Status st = interp.step(h);
    if (st == Status::Trap) csr::take_trap(h);
    if (st == Status::Exit) break;
  }
  return 0;
}
