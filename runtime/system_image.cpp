#include "runtime/system_image.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "csr/causes.h"
#include "runtime/diag.h"
#include "runtime/error.h"
#include "runtime/input_file.h"

namespace brisk {

void check_xlen(const ElfFile& f, const std::string& path, unsigned xlen) {
  if (f.xlen() != xlen)
    throw Error("{} is an RV{} image, but the harts are RV{} (--cpu rv{})", printable(path), f.xlen(), xlen, xlen);
}

LoadedElf load_segments(const ElfFile& f, uint64_t bias, const PhysMemory& memory, const std::string& where) {
  LoadedElf out;
  for (const auto& p : f.segments()) {
    if (p.p_type != PT_LOAD || p.p_memsz == 0) continue;
    const uint64_t pa = p.p_paddr + bias;
    uint8_t* dst = memory(pa, p.p_memsz);
    if (!dst)
      throw Error("{}: segment at {:#x}..{:#x} is outside {}", printable(f.path()), pa, pa + p.p_memsz, where);
    f.read(p.p_offset, dst, p.p_filesz);
    std::memset(dst + p.p_filesz, 0, p.p_memsz - p.p_filesz);
    out.end = std::max(out.end, pa + p.p_memsz);
  }
  out.tohost = f.symbol("tohost");
  out.entry = f.header().e_entry + bias;
  return out;
}

int guest_exit_status(uint64_t code) {
  if (code <= 255) return static_cast<int>(code);
  diag_print("brisk: the guest exited with code {}, reported as exit status 255\n", code);
  return 255;
}

std::optional<int> Htif::poll() {
  uint64_t v;
  std::memcpy(&v, tohost_, 8);
  if (v == 0) return std::nullopt;
  const uint64_t device = v >> 56, cmd = (v >> 48) & 0xff, payload = v & ((1ull << 48) - 1);
  std::memset(tohost_, 0, 8);
  if (device == 0 && cmd == 0 && (payload & 1)) return guest_exit_status(payload >> 1);
  if (device == 1 && cmd == 1) {
    char c = static_cast<char>(payload);
    (void)!write(STDOUT_FILENO, &c, 1);
    return std::nullopt;
  }
  diag_print("brisk: unsupported HTIF request {:#x} (device {}, command {})\n", v, device, cmd);
  return 1;
}

bool TrapRepeats::stuck(const Hart& h) {
  if (h.instret != instret_) {
    instret_ = h.instret;
    repeats_ = 0;
    return false;
  }
  if (++repeats_ < 3) return false;
  diag_print("brisk: hart {} is stuck taking {} at pc {:#x} (tval {:#x}); no working trap handler\n", h.hartid,
             cause::name(h.trap.cause), h.pc, h.trap.tval);
  return true;
}

}  // namespace brisk
