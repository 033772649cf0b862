// Semantics of the A extension. Guest threads run on host threads at once: an AMO is a host
// compare-and-swap loop, and SC a compare-and-swap against the value LR loaded (as QEMU does), so a
// store by another thread between LR and SC makes the SC fail. A locked instruction is a full
// fence on x86, whatever aq and rl ask for.
#include <algorithm>

#include "runtime/semantics.h"

namespace brisk {

namespace {

template <typename T>
inline uint64_t sext(T v) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<std::make_signed_t<T>>(v)));
}

// AMOs must be naturally aligned; a misaligned one raises store/AMO address-misaligned.
template <typename T, typename F>
inline Status amo(Hart& h, const Insn& i, F op) {
  const uint64_t va = xlen_addr(h, h.x[i.rs1]);
  if (!access_triggers(h, va, sizeof(T), trigger::kLoad | trigger::kStore)) return Status::Trap;
  if (va & (sizeof(T) - 1)) return h.raise(cause::kStoreAmoAddressMisaligned, va);
  auto* p = static_cast<T*>(mem_amo(h, va, sizeof(T)));
  if (!p) return Status::Trap;
  // A fault on flat memory must be a store/AMO fault, as an AMO's is.
  T old = read_as_write(p);
  const T b = static_cast<T>(h.x[i.rs2]);
  while (!__atomic_compare_exchange_n(p, &old, op(old, b), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  set_x(h, i.rd, sext(old));
  return Status::Next;
}

template <typename T>
inline Status lr(Hart& h, const Insn& i) {
  const uint64_t va = xlen_addr(h, h.x[i.rs1]);
  // Triggers come before the misaligned check (mem_load asks them again, as they let it pass).
  if (!access_triggers(h, va, sizeof(T), trigger::kLoad)) return Status::Trap;
  if (va & (sizeof(T) - 1)) return h.raise(cause::kLoadAddressMisaligned, va);
  T v;
  if (!mem_load(h, va, v)) return Status::Trap;
  h.reservation = va;
  h.reservation_value = v;
  set_x(h, i.rd, sext(v));
  return Status::Next;
}

// SC succeeds only on the address LR reserved; either way the reservation is gone afterwards.
template <typename T>
inline Status sc(Hart& h, const Insn& i) {
  const uint64_t va = xlen_addr(h, h.x[i.rs1]);
  // Every SC is a store to triggers, a failing one too (which the spec leaves open).
  if (!access_triggers(h, va, sizeof(T), trigger::kStore)) return Status::Trap;
  if (va & (sizeof(T) - 1)) return h.raise(cause::kStoreAmoAddressMisaligned, va);
  if (h.reservation != va) {
    h.reservation = ~0ull;
    set_x(h, i.rd, 1);
    return Status::Next;
  }
  auto* p = static_cast<T*>(mem_amo(h, va, sizeof(T)));
  if (!p) return Status::Trap;
  T expected = static_cast<T>(h.reservation_value);
  const bool stored = __atomic_compare_exchange_n(p, &expected, static_cast<T>(h.x[i.rs2]), false, __ATOMIC_SEQ_CST,
                                                  __ATOMIC_SEQ_CST);
  h.reservation = ~0ull;
  set_x(h, i.rd, stored ? 0 : 1);
  return Status::Next;
}

template <typename T>
using S = std::make_signed_t<T>;

template <typename T>
inline Status amo_min(Hart& h, const Insn& i) {
  return amo<T>(h, i, [](T a, T b) { return static_cast<T>(std::min<S<T>>(a, b)); });
}
template <typename T>
inline Status amo_max(Hart& h, const Insn& i) {
  return amo<T>(h, i, [](T a, T b) { return static_cast<T>(std::max<S<T>>(a, b)); });
}

}  // namespace

Status sem_LR_W(Hart& h, const Insn& i) { return lr<uint32_t>(h, i); }
Status sem_SC_W(Hart& h, const Insn& i) { return sc<uint32_t>(h, i); }
Status sem_AMOSWAP_W(Hart& h, const Insn& i) { return amo<uint32_t>(h, i, [](uint32_t, uint32_t b) { return b; }); }
Status sem_AMOADD_W(Hart& h, const Insn& i) { return amo<uint32_t>(h, i, [](uint32_t a, uint32_t b) { return a + b; }); }
Status sem_AMOXOR_W(Hart& h, const Insn& i) { return amo<uint32_t>(h, i, [](uint32_t a, uint32_t b) { return a ^ b; }); }
Status sem_AMOAND_W(Hart& h, const Insn& i) { return amo<uint32_t>(h, i, [](uint32_t a, uint32_t b) { return a & b; }); }
Status sem_AMOOR_W(Hart& h, const Insn& i) { return amo<uint32_t>(h, i, [](uint32_t a, uint32_t b) { return a | b; }); }
Status sem_AMOMIN_W(Hart& h, const Insn& i) { return amo_min<uint32_t>(h, i); }
Status sem_AMOMAX_W(Hart& h, const Insn& i) { return amo_max<uint32_t>(h, i); }
Status sem_AMOMINU_W(Hart& h, const Insn& i) { return amo<uint32_t>(h, i, [](uint32_t a, uint32_t b) { return std::min(a, b); }); }
Status sem_AMOMAXU_W(Hart& h, const Insn& i) { return amo<uint32_t>(h, i, [](uint32_t a, uint32_t b) { return std::max(a, b); }); }

Status sem_LR_D(Hart& h, const Insn& i) { return lr<uint64_t>(h, i); }
Status sem_SC_D(Hart& h, const Insn& i) { return sc<uint64_t>(h, i); }
Status sem_AMOSWAP_D(Hart& h, const Insn& i) { return amo<uint64_t>(h, i, [](uint64_t, uint64_t b) { return b; }); }
Status sem_AMOADD_D(Hart& h, const Insn& i) { return amo<uint64_t>(h, i, [](uint64_t a, uint64_t b) { return a + b; }); }
Status sem_AMOXOR_D(Hart& h, const Insn& i) { return amo<uint64_t>(h, i, [](uint64_t a, uint64_t b) { return a ^ b; }); }
Status sem_AMOAND_D(Hart& h, const Insn& i) { return amo<uint64_t>(h, i, [](uint64_t a, uint64_t b) { return a & b; }); }
Status sem_AMOOR_D(Hart& h, const Insn& i) { return amo<uint64_t>(h, i, [](uint64_t a, uint64_t b) { return a | b; }); }
Status sem_AMOMIN_D(Hart& h, const Insn& i) { return amo_min<uint64_t>(h, i); }
Status sem_AMOMAX_D(Hart& h, const Insn& i) { return amo_max<uint64_t>(h, i); }
Status sem_AMOMINU_D(Hart& h, const Insn& i) { return amo<uint64_t>(h, i, [](uint64_t a, uint64_t b) { return std::min(a, b); }); }
Status sem_AMOMAXU_D(Hart& h, const Insn& i) { return amo<uint64_t>(h, i, [](uint64_t a, uint64_t b) { return std::max(a, b); }); }

}  // namespace brisk
