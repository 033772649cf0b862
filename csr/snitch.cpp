// The Snitch cluster's custom CSRs (docs/snitch.md, "The -M snitch machine"): SSR enable 0x7C0
// (bit 0), fpmode 0x7C1 (bit 0) and the barrier 0x7C2, M-mode only, on the harts of a machine
// that sets IsaConfig::snitch_cluster. The barrier reads 0 and ignores writes here: an access sets
// State::barrier_access, and the wait is the cluster's (runtime/snitch_machine.cpp), after the
// access retires. Both it and a write of the SSR enable return the exec loop to the machine.
#include "csr/csr.h"
#include "csr/csr_numbers.h"
#include "csr/table.h"
#include "runtime/hart.h"

namespace brisk::csr {

namespace {

constexpr uint64_t kSsrEnable = 1;
constexpr uint64_t kFpmodeMask = 1;

void arrive(Hart& h) {
  h.csr.barrier_access = true;
  h.request_exit();
}

Status check_snitch(Hart& h, const Insn& i, bool) {
  return h.csr.isa.snitch_cluster ? Status::Next : h.illegal(i);
}

}  // namespace

void define_snitch(Table& t) {
  t[CSR_SSR] = {[](Hart& h, uint16_t) { return h.csr.ssr; },
                [](Hart& h, uint16_t, uint64_t v) {
                  h.csr.ssr = v & kSsrEnable;
                  h.request_exit();
                },
                check_snitch};
  t[CSR_FPMODE] = {[](Hart& h, uint16_t) { return h.csr.fpmode; },
                   [](Hart& h, uint16_t, uint64_t v) { h.csr.fpmode = v & kFpmodeMask; }, check_snitch};
  t[CSR_BARRIER] = {[](Hart& h, uint16_t) -> uint64_t {
                      arrive(h);
                      return 0;
                    },
                    [](Hart& h, uint16_t, uint64_t) { arrive(h); }, check_snitch};
}

}  // namespace brisk::csr
