/* Smstateen/Ssstateen: the writable mstateen bits, and how SE0..SE3, ENVCFG and CSRIND gate
 * sstateen0..3, senvcfg and siselect/sireg* below M (smstateen.adoc; smcsrind.adoc, "Access control
 * by the state-enable CSRs"). M is never restricted; U reaches none of these S-level CSRs. */
#include "csr_access.h"

#define SE (1ul << 63)
#define ENVCFG (1ul << 62)
#define CTR (1ul << 54)

CSR_ACCESSORS(mstateen1, 0x30d)
CSR_ACCESSORS(mstateen2, 0x30e)
CSR_ACCESSORS(mstateen3, 0x30f)
CSR_ACCESSORS(sstateen0, 0x10c)
CSR_ACCESSORS(sstateen1, 0x10d)
CSR_ACCESSORS(sstateen2, 0x10e)
CSR_ACCESSORS(sstateen3, 0x10f)
CSR_ACCESSORS(senvcfg, 0x10a)

static const csr_fn get_mstateen[] = {get_mstateen0, get_mstateen1, get_mstateen2, get_mstateen3};
static const csr_fn put_mstateen[] = {put_mstateen0, put_mstateen1, put_mstateen2, put_mstateen3};
static const csr_fn read_sstateen[] = {at_read_sstateen0, at_read_sstateen1, at_read_sstateen2, at_read_sstateen3};
static const csr_fn write_sstateen[] = {at_write_sstateen0, at_write_sstateen1, at_write_sstateen2,
                                        at_write_sstateen3};

static void set_all_mstateen(uint64_t v0, uint64_t v123) {
  put_mstateen0(v0);
  for (int n = 1; n < 4; n++) put_mstateen[n](v123);
}

/* Only the bits guarding state the hart has are writable; CONTEXT (no Sdtrig scontext), AIA and
   IMSIC (no Smaia), P1P13 (no H), SRMCFG (no Ssqosid), C, FCSR and JVT are read-only zero. CTR is
   writable with Smctr. The sstateen bits guard user state brisk lacks: all read-only zero. */
static void writable_bits(void) {
  set_all_mstateen(~0ul, ~0ul);
  CHECK(SE | ENVCFG | CSRIND | CTR, get_mstateen0(0));
  for (int n = 1; n < 4; n++) CHECK(SE, get_mstateen[n](0));
  put_sstateen0(~0ul);
  CHECK(0, get_sstateen0(0));
  set_all_mstateen(0, 0);
  CHECK(0, get_mstateen0(0));
  /* mstateen is machine-level. */
  ILLEGAL(PRIV_S, at_read_mstateen0, 0);
  ILLEGAL(PRIV_S, at_write_mstateen0, ~0ul);
  ILLEGAL(PRIV_U, at_read_mstateen3, 0);
}

/* SE<n> gates sstateen<n>, and only it. */
static void se_bits(void) {
  for (int n = 0; n < 4; n++) {
    set_all_mstateen(0, 0);
    ILLEGAL(PRIV_S, read_sstateen[n], 0);
    ILLEGAL(PRIV_S, write_sstateen[n], 0);
    ALLOWED(PRIV_M, read_sstateen[n], 0);
    /* Every SE bit but this one. */
    set_all_mstateen(n == 0 ? 0 : SE, SE);
    put_mstateen[n](0);
    ILLEGAL(PRIV_S, read_sstateen[n], 0);
    put_mstateen[n](SE);
    ALLOWED(PRIV_S, read_sstateen[n], 0);
    ALLOWED(PRIV_S, write_sstateen[n], ~0ul);
    ILLEGAL(PRIV_U, read_sstateen[n], 0); /* S-level CSR */
  }
  set_all_mstateen(0, 0);
}

static void envcfg_bit(void) {
  put_mstateen0(SE | CSRIND | CTR);
  ILLEGAL(PRIV_S, at_read_senvcfg, 0);
  ILLEGAL(PRIV_S, at_write_senvcfg, 1);
  ALLOWED(PRIV_M, at_write_senvcfg, 0);
  put_mstateen0(ENVCFG);
  ALLOWED(PRIV_S, put_senvcfg, 1); /* FIOM */
  CHECK(1, ALLOWED(PRIV_S, get_senvcfg, 0));
  put_senvcfg(0);
  ILLEGAL(PRIV_U, at_read_senvcfg, 0);
  put_mstateen0(0);
}

/* CSRIND gates siselect and every sireg*, whatever siselect holds: here the select of delegated
   hpmcounter3, where sireg and sireg2 answer once the bit is set. */
static void csrind_bit(void) {
  csr_write(menvcfg, MENVCFG_CDE);
  csr_write(mcounteren, 1ul << 3);
  put_siselect(0x43);
  put_mstateen0(SE | ENVCFG | CTR);
  ILLEGAL(PRIV_S, at_read_siselect, 0);
  ILLEGAL(PRIV_S, at_write_siselect, 0x43);
  ILLEGAL(PRIV_S, at_read_sireg, 0);
  ILLEGAL(PRIV_S, at_write_sireg2, 0);
  ALLOWED(PRIV_M, at_read_sireg, 0);
  put_mstateen0(CSRIND);
  CHECK(0x43, ALLOWED(PRIV_S, get_siselect, 0));
  ALLOWED(PRIV_S, at_read_sireg, 0);
  ALLOWED(PRIV_S, at_read_sireg2, 0);
  ILLEGAL(PRIV_U, at_read_siselect, 0);
  ILLEGAL(PRIV_U, at_read_sireg, 0);
  put_mstateen0(0);
  csr_write(mcounteren, 0);
  csr_write(menvcfg, 0);
}

int main(void) {
  set_m_handler(record_m);
  writable_bits();
  se_bits();
  envcfg_bit();
  csrind_bit();
  return 0;
}
