#include "runtime/mmu.h"

#include <algorithm>
#include <cstring>

#include "csr/csr.h"
#include "csr/privileged.h"

namespace brisk {

using namespace csr;

namespace {

constexpr uint64_t kPageMask = Bus::kPage - 1;

MmuIndex priv_index(unsigned priv) {
  return priv == static_cast<unsigned>(Priv::U) ? kMmuU : priv == static_cast<unsigned>(Priv::S) ? kMmuS : kMmuM;
}

// The page-table format satp selects: Sv39/48/57 with 9-bit VPN fields and 8-byte PTEs, or RV32's
// Sv32 with two 10-bit fields and 4-byte PTEs (whose 22-bit PPN makes 34-bit physical addresses).
// levels = 0: no translation (Bare).
struct Scheme {
  unsigned levels = 0, vpn_bits = 9, pte_bytes = 8;
  uint64_t root = 0;
};

Scheme scheme_of(const Hart& h) {
  const uint64_t satp = h.csr.satp;
  if (h.rv32) {
    if ((satp >> SATP32_MODE_SHIFT) != SATP32_MODE_SV32) return {};
    return {.levels = 2, .vpn_bits = 10, .pte_bytes = 4, .root = (satp & SATP32_PPN_MASK) << 12};
  }
  const uint64_t root = (satp & SATP_PPN_MASK) << 12;
  switch (satp >> SATP_MODE_SHIFT) {
    case SATP_MODE_SV39: return {.levels = 3, .root = root};
    case SATP_MODE_SV48: return {.levels = 4, .root = root};
    case SATP_MODE_SV57: return {.levels = 5, .root = root};
    default: return {};
  }
}

// log2 of the size of a page at page-table level `level` (0: 4 KiB).
unsigned page_shift(const Hart& h, unsigned level) { return 12 + (h.rv32 ? 10 : 9) * level; }

// An access's bytes: the common sizes as one move each instead of a call to memcpy (every access
// the inline TLB missed comes this way).
void copy_access(void* to, const void* from, unsigned size) {
  switch (size) {
    case 8: std::memcpy(to, from, 8); break;
    case 4: std::memcpy(to, from, 4); break;
    case 2: std::memcpy(to, from, 2); break;
    case 1: std::memcpy(to, from, 1); break;
    default: std::memcpy(to, from, size);
  }
}

}  // namespace

MmuIndex data_mmu_index(const Hart& h) {
  const unsigned priv = effective_data_priv(h);
  if (priv == static_cast<unsigned>(Priv::S) && (h.csr.mstatus & MSTATUS_SUM)) return kMmuSSum;
  return priv_index(priv);
}

Status SystemMemory::fault(Hart& h, uint64_t va, Access a, bool page_fault) {
  static constexpr uint64_t kPageFault[] = {cause::kLoadPageFault, cause::kStoreAmoPageFault,
                                            cause::kInstructionPageFault};
  static constexpr uint64_t kAccessFault[] = {cause::kLoadAccessFault, cause::kStoreAmoAccessFault,
                                              cause::kInstructionAccessFault};
  const auto k = static_cast<unsigned>(a);
  return h.raise(page_fault ? kPageFault[k] : kAccessFault[k], va);
}

bool SystemMemory::walk(Hart& h, uint64_t va, Access a, unsigned priv, uint64_t& pa, unsigned& leaf_level,
                        bool count) {
  if (count) pmu::count(h, pmu::kPageWalks);
  const Scheme s = scheme_of(h);
  const unsigned va_bits = 12 + s.vpn_bits * s.levels;
  // The address must be the sign extension of its low va_bits bits (Sv32 uses all 32).
  if (!h.rv32 && static_cast<uint64_t>(static_cast<int64_t>(va << (64 - va_bits)) >> (64 - va_bits)) != va) {
    fault(h, va, a, true);
    return false;
  }
  uint64_t table = s.root;
  for (int level = static_cast<int>(s.levels) - 1; level >= 0; level--) {
    const unsigned shift = 12 + s.vpn_bits * static_cast<unsigned>(level);
    const uint64_t index = (va >> shift) & ((1u << s.vpn_bits) - 1);
    const uint8_t* p = bus_.ram_ptr(table + index * s.pte_bytes, s.pte_bytes);
    if (!p) {
      fault(h, va, a, false);
      return false;
    }
    uint64_t pte = 0;  // an Sv32 PTE zero-extended: none of the bits above 31 are set
    std::memcpy(&pte, p, s.pte_bytes);
    // No Svpbmt or Svnapot: their bits are reserved, like bits 60:54.
    if (!(pte & PTE_V) || (!(pte & PTE_R) && (pte & PTE_W)) || (pte & (PTE_RESERVED | PTE_PBMT | PTE_N))) break;
    const uint64_t ppn = (pte & PTE_PPN_MASK) >> PTE_PPN_SHIFT;
    if (!(pte & (PTE_R | PTE_X))) {
      table = ppn << 12;
      continue;
    }
    bool ok;
    switch (a) {
      case Access::Exec: ok = pte & PTE_X; break;
      case Access::Read: ok = (pte & PTE_R) || ((h.csr.mstatus & MSTATUS_MXR) && (pte & PTE_X)); break;
      default: ok = (pte & PTE_W); break;
    }
    if (priv == static_cast<unsigned>(Priv::U)) {
      ok = ok && (pte & PTE_U);
    } else if (pte & PTE_U) {  // S-mode touching a user page: data only, and only with SUM
      ok = ok && a != Access::Exec && (h.csr.mstatus & MSTATUS_SUM);
    }
    const uint64_t super_mask = (1ull << (s.vpn_bits * static_cast<unsigned>(level))) - 1;
    // Svade: a clear A, or a clear D on a write, is the OS's to handle.
    if (!ok || (ppn & super_mask) || !(pte & PTE_A) || (a == Access::Write && !(pte & PTE_D))) break;
    pa = ((ppn & ~super_mask) << 12) | (va & ((1ull << shift) - 1));
    leaf_level = static_cast<unsigned>(level);
    return true;
  }
  fault(h, va, a, true);
  return false;
}

bool SystemMemory::translate(Hart& h, uint64_t va, Access a, uint64_t& pa, unsigned& level, bool count) {
  const unsigned priv = a == Access::Exec ? static_cast<unsigned>(h.priv) : effective_data_priv(h);
  level = 0;
  if (priv == static_cast<unsigned>(Priv::M) || scheme_of(h).levels == 0) {
    pa = va;
    return true;
  }
  return walk(h, va, a, priv, pa, level, count);
}

uint8_t* SystemMemory::tlb_hit(Hart& h, uint64_t va, Access a) const {
  const Tlb& t = h.tlb[data_mmu_index(h)];
  const TlbEntry& e = (a == Access::Write ? t.write : t.read)[(va >> 12) % Tlb::kSize];
  return e.tag == (va & ~kPageMask) ? reinterpret_cast<uint8_t*>(va + e.addend) : nullptr;
}

uint64_t SystemMemory::ram_pa(const uint8_t* host) const {
  return static_cast<uint64_t>(host - bus_.ram()) + bus_.ram_base();
}

void SystemMemory::invalidate_code(Hart& h, uint64_t pa) {
  if (bus_.has_code(pa) && hooks_.invalidate_page) hooks_.invalidate_page(h, pa & ~kPageMask);
}

void SystemMemory::fill_tlb(Hart& h, uint64_t va, uint64_t pa, Access a, unsigned level) {
  uint8_t* host = bus_.ram_ptr(pa & ~kPageMask, Bus::kPage);
  if (!host) return;  // MMIO is never cached
  if (a == Access::Write && bus_.has_code(pa)) return;  // stores there must reach the JIT
  Tlb& t = h.tlb[a == Access::Exec ? priv_index(static_cast<unsigned>(h.priv)) : data_mmu_index(h)];
  TlbEntry* set = a == Access::Exec ? t.exec : a == Access::Write ? t.write : t.read;
  const unsigned k = (va >> 12) % Tlb::kSize;
  TlbEntry& e = set[k];
  e.tag = va & ~kPageMask;
  e.addend = reinterpret_cast<uint64_t>(host) - e.tag;
  t.level[static_cast<unsigned>(a)][k] = static_cast<uint8_t>(level);
  if (level) {
    const uint64_t span = 1ull << page_shift(h, level);
    t.super_lo = std::min(t.super_lo, va & ~(span - 1));
    t.super_hi = std::max(t.super_hi, (va & ~(span - 1)) + span);
  }
}

bool SystemMemory::access_one(Hart& h, uint64_t va, void* data, unsigned size, Access a) {
  // A misaligned access that crosses a page is done byte by byte, each byte translated.
  if ((va & kPageMask) + size > Bus::kPage) {
    // Check every byte's translation before changing anything, so a fault leaves memory untouched.
    for (unsigned k = 0; k < size; k++) {
      uint64_t pa;
      unsigned level;
      if (!translate(h, va + k, a, pa, level)) return false;
    }
    for (unsigned k = 0; k < size; k++)
      if (!access_one(h, va + k, static_cast<uint8_t*>(data) + k, 1, a)) return false;
    return true;
  }
  // The interpreter always comes here, and translated code for what its inline check cannot do
  // (misaligned, MMIO, code pages): what the TLB has needs no walk and counts no miss.
  if (uint8_t* p = tlb_hit(h, va, a)) {
    if (a == Access::Write) {
      // A write entry is never filled for a page with code, but the lockstep checker's interpreter
      // runs on a copy of the hart whose write entries did not clear when the page became code.
      invalidate_code(h, ram_pa(p));
      copy_access(p, data, size);
    } else {
      copy_access(data, p, size);
    }
    return true;
  }
  pmu::count(h, pmu::kTlbMisses);
  uint64_t pa;
  unsigned level;
  if (!translate(h, va, a, pa, level)) return false;
  if (uint8_t* p = bus_.ram_ptr(pa, size)) {
    if (a == Access::Write) {
      invalidate_code(h, pa);
      copy_access(p, data, size);
    } else {
      copy_access(data, p, size);
    }
    fill_tlb(h, va, pa, a, level);
    return true;
  }
  uint64_t off;
  Device* dev = bus_.device_at(pa, off);
  uint64_t v = 0;
  std::unique_lock<std::mutex> lock;
  if (device_lock_ && dev) lock = std::unique_lock(*device_lock_);
  if (a == Access::Write) {
    std::memcpy(&v, data, size);
    if (dev && dev->write(off, size, v)) return true;
  } else if (dev && dev->read(off, size, v)) {
    std::memcpy(data, &v, size);
    return true;
  }
  fault(h, va, a, false);
  return false;
}

HartEnv::Target SystemMemory::probe(Hart& h, uint64_t va, unsigned size, bool write, uint8_t*& host) {
  const Access a = write ? Access::Write : Access::Read;
  host = nullptr;
  if ((va & kPageMask) + size > Bus::kPage) {  // byte by byte, as access_one does it
    Target t = Target::Ram;
    for (unsigned k = 0; k < size && t != Target::Fault; k++) {
      uint8_t* byte;
      if (Target b = probe(h, va + k, 1, write, byte); b != Target::Ram) t = b;
    }
    return t;
  }
  const PendingTrap trap = h.trap;  // translate raises what the real access will raise again
  uint64_t pa;
  unsigned level;
  const bool ok = translate(h, va, a, pa, level, false);
  h.trap = trap;
  if (!ok) return Target::Fault;
  if ((host = bus_.ram_ptr(pa, size))) return Target::Ram;
  uint64_t off;
  return bus_.device_at(pa, off) ? Target::Device : Target::Fault;
}

bool SystemMemory::load(Hart& h, uint64_t va, void* out, unsigned size) {
  return access_one(h, va, out, size, Access::Read);
}

bool SystemMemory::store(Hart& h, uint64_t va, const void* in, unsigned size) {
  return access_one(h, va, const_cast<void*>(in), size, Access::Write);
}

void* SystemMemory::amo(Hart& h, uint64_t va, unsigned size) {
  if (uint8_t* p = tlb_hit(h, va, Access::Write)) {
    invalidate_code(h, ram_pa(p));
    return p;
  }
  pmu::count(h, pmu::kTlbMisses);
  uint64_t pa;
  unsigned level;
  if (!translate(h, va, Access::Write, pa, level)) return nullptr;
  if (uint8_t* p = bus_.ram_ptr(pa, size)) {
    invalidate_code(h, pa);
    fill_tlb(h, va, pa, Access::Write, level);
    return p;
  }
  // Outside RAM only a device that is plain memory takes atomics (the Snitch cluster's TCDM).
  uint64_t offset;
  if (Device* dev = bus_.device_at(pa, offset))
    if (uint8_t* p = dev->memory(offset, size)) return p;
  fault(h, va, Access::Write, false);
  return nullptr;
}

bool SystemMemory::fetch16(Hart& h, uint64_t va, uint16_t& out) {
  uint64_t pa;
  if (!fetch_address(h, va, pa)) return false;
  const uint8_t* p = bus_.ram_ptr(pa, 2);
  if (!p) {
    fault(h, va, Access::Exec, false);
    return false;
  }
  std::memcpy(&out, p, 2);
  return true;
}

bool SystemMemory::fetch_address(Hart& h, uint64_t va, uint64_t& pa) {
  const TlbEntry& e = h.tlb[priv_index(static_cast<unsigned>(h.priv))].exec[(va >> 12) % Tlb::kSize];
  if (e.tag == (va & ~kPageMask)) {
    pa = va + e.addend - reinterpret_cast<uint64_t>(bus_.ram()) + bus_.ram_base();
    return true;
  }
  unsigned level;
  pmu::count(h, pmu::kTlbMisses);
  if (!translate(h, va, Access::Exec, pa, level)) return false;
  // Only RAM holds code. Faulting here, not at the fetch that follows, keeps a failed fetch to one miss.
  if (!bus_.ram_ptr(pa, 2)) {
    fault(h, va, Access::Exec, false);
    return false;
  }
  fill_tlb(h, va, pa, Access::Exec, level);
  return true;
}

void SystemMemory::watch_code(uint64_t page) {
  // Watched already: whoever counted it first cleared the write TLB entries in its section, which
  // has ended, as this hart was parked for it.
  if (!bus_.ram_ptr(page, Bus::kPage) || bus_.watch_code_if_watched(page)) return;
  // Cached write translations to the page would let stores bypass the check. Other harts' are
  // cleared while they are parked: a store of theirs through one is never under way meanwhile, and
  // none watches the page before they are gone.
  ExclusiveGroup::Section section(group_);
  if (bus_.watch_code(page)) return;
  const uint64_t host = reinterpret_cast<uint64_t>(bus_.ram_ptr(page, Bus::kPage));
  for (Hart* h : harts_)
    for (Tlb& t : h->tlb)
      for (TlbEntry& e : t.write)
        if (e.tag != ~0ull && e.tag + e.addend == host) e = TlbEntry{};
}

void SystemMemory::unwatch_code(uint64_t page) {
  if (bus_.ram_ptr(page, Bus::kPage)) bus_.unwatch_code(page);
}

void SystemMemory::flush_tlb(Hart& h, uint64_t va) {
  bool code_superpage = false;
  if (va == kFlushAll) {
    for (Tlb& t : h.tlb) t = Tlb{};
  } else {
    const uint64_t page = va & ~kPageMask;
    const unsigned k = (va >> 12) % Tlb::kSize;
    for (Tlb& t : h.tlb) {
      TlbEntry* sets[3] = {t.read, t.write, t.exec};
      for (unsigned a = 0; a < 3; a++) {
        if (sets[a][k].tag == page) sets[a][k] = TlbEntry{};
        // Entries a superpage around va filled for its other 4 KiB pages go too.
        if (va < t.super_lo || va >= t.super_hi) continue;
        for (unsigned e = 0; e < Tlb::kSize; e++) {
          const unsigned level = t.level[a][e];
          if (level && sets[a][e].tag != ~0ull && ((sets[a][e].tag ^ va) >> page_shift(h, level)) == 0) {
            sets[a][e] = TlbEntry{};
            code_superpage |= a == static_cast<unsigned>(Access::Exec);
          }
        }
      }
    }
  }
  // Translated code reached through a superpage may sit on any of its pages.
  if (hooks_.flush_lookup) hooks_.flush_lookup(h, code_superpage ? kFlushAll : va);
}

}  // namespace brisk
