// The ISA extensions brisk implements: one list for the device tree, the --cpu parser and the
// gating of instructions and CSRs. The default CPU enables all of them, like QEMU's `max`.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

#include "devices/ete_sizes.h"

namespace brisk {

// EXT(id, "name as in riscv,isa-extensions")
#define BRISK_EXTENSIONS(EXT)             \
  EXT(I, "i")                             \
  EXT(M, "m")                             \
  EXT(A, "a")                             \
  EXT(F, "f")                             \
  EXT(D, "d")                             \
  EXT(C, "c")                             \
  EXT(Zicbom, "zicbom")                   \
  EXT(Zicboz, "zicboz")                   \
  EXT(Zicntr, "zicntr")                   \
  EXT(Zicond, "zicond")                   \
  EXT(Zicsr, "zicsr")                     \
  EXT(Zifencei, "zifencei")               \
  EXT(Zihintpause, "zihintpause")         \
  EXT(Zihpm, "zihpm")                     \
  EXT(Zba, "zba")                         \
  EXT(Zbb, "zbb")                         \
  EXT(Zbs, "zbs")                         \
  EXT(Sdtrig, "sdtrig")                   \
  EXT(Smcdeleg, "smcdeleg")               \
  EXT(Smcntrpmf, "smcntrpmf")             \
  EXT(Smcsrind, "smcsrind")               \
  EXT(Smctr, "smctr")                     \
  EXT(Smstateen, "smstateen")             \
  EXT(Ssccfg, "ssccfg")                   \
  EXT(Sscofpmf, "sscofpmf")               \
  EXT(Sscsrind, "sscsrind")               \
  EXT(Ssctr, "ssctr")                     \
  EXT(Ssstateen, "ssstateen")             \
  EXT(Sstc, "sstc")                       \
  EXT(Svade, "svade")                     \
  EXT(Xdma, "xdma")                       \
  EXT(Xssr, "xssr")                       \
  EXT(Xfrep, "xfrep")

enum class Ext : unsigned {
#define EXT(id, name) id,
  BRISK_EXTENSIONS(EXT)
#undef EXT
      Count
};

struct IsaConfig {
  std::bitset<static_cast<size_t>(Ext::Count)> on;
  // The CTR depths sctrdepth.DEPTH accepts, bit DEPTH for 16 << DEPTH entries: `ctr-depths=16,32`
  // (all five, 16 to 256, by default).
  uint8_t ctr_depths = 0x1f;
  // XLEN, 32 or 64: misa.MXL, fixed at start-up (docs/architecture.md, "XLEN").
  unsigned xlen = 64;
  // The harts' ETE trace units (devices/ete.h): `ete-rspairs=N` and the other ete-* sizes.
  ete::Sizes ete;
  // The Snitch cluster's custom CSRs (csr/snitch.cpp) and mie's MCIP: the -M snitch machine's harts.
  bool snitch_cluster = false;

  // Everything brisk implements but the Snitch cluster's custom extensions, which share custom
  // opcodes: Xdma (the -M snitch machine's hart 8), Xssr and Xfrep (its compute cores).
  IsaConfig() {
    on.set().reset(static_cast<size_t>(Ext::Xdma)).reset(static_cast<size_t>(Ext::Xssr)).reset(static_cast<size_t>(Ext::Xfrep));
  }
  bool has(Ext e) const { return on.test(static_cast<size_t>(e)); }
  bool rv32() const { return xlen == 32; }
  // Applies a QEMU-style `rv64,zba=off,sstc=on,ctr-depths=16,256` string (or `rv32,...`); throws brisk::Error
  // naming an unknown extension, a depth that is not one of CTR's, or a malformed item.
  void apply(const std::string& spec);
  // "rv64imafdc_zicbom_..." (or "rv32...") for riscv,isa, and the riscv,isa-extensions list.
  std::string isa_string() const;
  // One bit per single-letter extension ('A' = bit 0): misa's Extensions field, and AT_HWCAP.
  uint64_t letters() const;
  std::vector<std::string> extension_names() const;
};

const char* ext_name(Ext e);

}  // namespace brisk
