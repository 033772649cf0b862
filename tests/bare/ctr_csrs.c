/* Smctr/Ssctr CSRs (smctr.adoc, "CSRs", "Entry Registers", "State Enable Access Control"):
 * mctrctl's writable fields (brisk implements every optional one; WPRI and Custom[3:0] read 0),
 * sctrctl as mctrctl without M and MTE, no vsctrctl without H, sctrdepth's WARL DEPTH (Linux writes
 * all ones and reads the depth as 16 << DEPTH), sctrstatus's WRPTR masked at the depth and FROZEN,
 * the entry registers through siselect 0x200 + n (logical entries at or past the depth read 0),
 * and mstateen0.CTR gating every CTR CSR, the entry window and SCTRCLR below M. */
#include "ctr.h"

/* Every field mctrctl defines: U S M RASEMU STE MTE BPFRZ LCOFIFRZ, EXCINH..TKBRINH (33-37) and
   INDCALLINH..DIRLJMPINH (40-47). */
#define MCTRCTL_FIELDS 0x0000ff3e00001b87ul
#define SCTRCTL_FIELDS (MCTRCTL_FIELDS & ~(CTRCTL_M | CTRCTL_MTE))

static void ctrctl_fields(void) {
  put_mctrctl(~0ul);
  uint64_t all = get_mctrctl(0);
  put_mctrctl(0);
  CHECKN("mctrctl: every field writable, WPRI and Custom read 0", MCTRCTL_FIELDS, all);
  put_mctrctl(CTRCTL_CUSTOM);
  CHECKN("mctrctl: Custom[3:0] read-only 0", 0, get_mctrctl(0));
  CHECKN("sctrctl: zero with mctrctl zero", 0, get_sctrctl(0));

  put_mctrctl(CTRCTL_M | CTRCTL_MTE);
  CHECKN("sctrctl: M and MTE read 0", 0, get_sctrctl(0));
  put_sctrctl(~0ul);
  CHECKN("sctrctl: every field but M and MTE", SCTRCTL_FIELDS, get_sctrctl(0));
  CHECKN("sctrctl write keeps mctrctl.M and MTE", MCTRCTL_FIELDS, get_mctrctl(0));
  put_sctrctl(0);
  CHECKN("sctrctl write of 0 leaves M and MTE", CTRCTL_M | CTRCTL_MTE, get_mctrctl(0));
  put_mctrctl(0);
  put_sctrctl(CTRCTL_M | CTRCTL_MTE);
  CHECKN("sctrctl cannot set M or MTE", 0, get_mctrctl(0));

  /* From S, with the interface enabled. */
  put_mstateen0(STATEEN_CTR | CSRIND);
  ALLOWED(PRIV_S, put_sctrctl, ~0ul & ~CTRCTL_S);
  CHECKN("sctrctl written from S", SCTRCTL_FIELDS & ~CTRCTL_S, ALLOWED(PRIV_S, get_sctrctl, 0));
  CHECKN("sctrctl written from S is mctrctl", SCTRCTL_FIELDS & ~CTRCTL_S, get_mctrctl(0));
  put_mctrctl(0);
  ILLEGAL(PRIV_S, at_read_mctrctl, 0);
  ILLEGAL(PRIV_S, at_write_mctrctl, 0);
  /* vsctrctl exists only with H, which brisk does not have. */
  ILLEGAL(PRIV_M, at_read_vsctrctl, 0);
  ILLEGAL(PRIV_S, at_write_vsctrctl, 0);
  put_mstateen0(0);
}

static void depth_warl(void) {
  for (unsigned code = 0; code < 5; code++) {
    put_sctrdepth(code);
    CHECKN("sctrdepth: every depth of the default CPU", code, get_sctrdepth(0));
  }
  for (unsigned code = 5; code < 7; code++) {
    put_sctrdepth(code);
    CHECKN("sctrdepth: a reserved DEPTH reads back a legal one", 1, get_sctrdepth(0) <= 4);
  }
  put_sctrdepth(~SCTRDEPTH_DEPTH | 1);
  CHECKN("sctrdepth: bits above DEPTH read 0", 1, get_sctrdepth(0));
  put_mstateen0(STATEEN_CTR);
  ALLOWED(PRIV_S, put_sctrdepth, 2);
  CHECKN("sctrdepth written from S", 2, ALLOWED(PRIV_S, get_sctrdepth, 0));
  put_mstateen0(0);
  put_sctrdepth(4);
}

/* Linux finds the deepest depth by writing all ones and reading DEPTH back, whatever the depth was
   before, as QEMU's clamp to the deepest gives it. */
static void linux_depth(void) {
  put_sctrdepth(0);
  put_sctrdepth(~0ul);
  uint64_t d = get_sctrdepth(0);
  CHECKN("sctrdepth all ones (as Linux writes it) at depth 16: the deepest, 256", 4, d);
  CHECKN("Linux's depth, 16 << DEPTH", 256, CTR_DEPTH(d));
}

static void status_fields(void) {
  for (unsigned code = 0; code < 5; code++) {
    put_sctrdepth(code);
    put_sctrstatus(SCTRSTATUS_WRPTR);
    CHECKN("WRPTR: bits above depth - 1 read 0", CTR_DEPTH(code) - 1, get_sctrstatus(0));
    put_sctrstatus(~0ul);
    CHECKN("sctrstatus: WRPTR and FROZEN, nothing else", SCTRSTATUS_FROZEN | (CTR_DEPTH(code) - 1),
           get_sctrstatus(0));
    put_sctrstatus(3);
    CHECKN("WRPTR holds what is written", 3, get_sctrstatus(0));
  }
  put_sctrdepth(4);
  put_sctrstatus(0xf3);
  put_sctrdepth(0);
  CHECKN("WRPTR after a depth change: legal at the new depth", 0, ctr_wrptr() & ~0xful);
  put_sctrdepth(4);
  put_sctrstatus(SCTRSTATUS_FROZEN);
  CHECKN("FROZEN is writable", SCTRSTATUS_FROZEN, get_sctrstatus(0));
  put_sctrstatus(0);
}

/* Software writes logical entries like hardware does: through WRPTR (smctr.adoc, "Logical entry 0
   ... is always the physical buffer entry preceding the WRPTR entry"). */
static void entry_registers(void) {
  ctr_reset(0);
  put_sctrstatus(5);
  put_siselect(CTR_SELECT(0));
  put_sireg(0xffffffff80001234ul | CTRSOURCE_V);
  put_sireg2(0x80002000ul | CTRTARGET_MISP);
  put_sireg3(~0ul);
  struct ctr_entry e = ctr_entry(0);
  CHECKN("ctrsource: an MXLEN-wide pc and V", 0xffffffff80001235ul, e.source);
  CHECKN("ctrtarget: pc and MISP", 0x80002001ul, e.target);
  CHECKN("ctrdata: TYPE, CCV and CC; WPRI read 0", 0xffff800ful, e.data);
  for (unsigned k = 4; k <= 6; k++) {
    put_siselect(CTR_SELECT(0));
    CHECKN("sireg4..6 read 0 in the CTR window", 0, k == 4 ? get_sireg4(0) : k == 5 ? get_sireg5(0) : get_sireg6(0));
  }
  put_sctrstatus(6);
  CHECKN("with WRPTR one on, the entry is logical 1", 0xffffffff80001235ul, ctr_entry(1).source);
  CHECKN("and logical 0 is the next physical one, still zero", 0, ctr_entry(0).source);
  put_sctrstatus(0);
  put_siselect(CTR_SELECT(0));
  put_sireg(0x80003001ul);
  put_sctrstatus(1);
  CHECKN("logical 0 at WRPTR 0 is physical depth - 1", 0x80003001ul, ctr_entry(1).source);

  /* Past the depth: read 0, writes ignored. */
  put_siselect(CTR_SELECT(16));
  put_sireg(0x80004001ul);
  put_sireg3(CTR_DIR_JUMP);
  CHECKN("logical entry 16 at depth 16 reads 0", 0, get_sireg(0));
  CHECKN("logical entry 16 at depth 16: ctrdata 0", 0, get_sireg3(0));
  put_siselect(CTR_SELECT(255));
  CHECKN("logical entry 255 at depth 16 reads 0", 0, get_sireg2(0));
  ctr_reset(4);
}

static const csr_fn s_csrs[] = {at_read_sctrctl,  at_write_sctrctl,  at_read_sctrdepth,
                                at_write_sctrdepth, at_read_sctrstatus, at_write_sctrstatus};

/* mstateen0.CTR = 0: illegal below M (smctr.adoc, "State Enable Access Control"); siselect itself
   is CSRIND's. */
static void stateen_gate(void) {
  put_mstateen0(CSRIND);
  for (unsigned k = 0; k < 6; k++) ILLEGAL(PRIV_S, s_csrs[k], 0);
  static const uint64_t selects[] = {CTR_SELECT(0), CTR_SELECT(16), CTR_SELECT(255)};
  for (unsigned s = 0; s < 3; s++) {
    ALLOWED(PRIV_S, put_siselect, selects[s]);
    for (unsigned k = 0; k < 6; k++) {
      ILLEGAL(PRIV_S, read_sireg[k], 0);
      ILLEGAL(PRIV_S, write_sireg[k], 0);
    }
  }
  ILLEGAL(PRIV_S, at_sctrclr, 0);
  /* M is never restricted. */
  for (unsigned k = 0; k < 6; k++) ALLOWED(PRIV_M, s_csrs[k], 0);
  put_siselect(CTR_SELECT(0));
  ALLOWED(PRIV_M, at_read_sireg3, 0);
  ALLOWED(PRIV_M, at_sctrclr, 0);

  /* mstateen0.CTR = 1: S reaches all of it. */
  put_mstateen0(CSRIND | STATEEN_CTR);
  for (unsigned k = 0; k < 6; k++) ALLOWED(PRIV_S, s_csrs[k], 0);
  for (unsigned k = 0; k < 3; k++) {
    ALLOWED(PRIV_S, read_sireg[k], 0);
    ALLOWED(PRIV_S, write_sireg[k], 0);
  }
  ALLOWED(PRIV_S, at_sctrclr, 0);
  /* U reaches none of it: S-level CSRs, and SCTRCLR is illegal in U. */
  for (unsigned k = 0; k < 6; k++) ILLEGAL(PRIV_U, s_csrs[k], 0);
  ILLEGAL(PRIV_U, read_sireg[0], 0);
  ILLEGAL(PRIV_U, at_sctrclr, 0);
  put_mstateen0(0);
  ILLEGAL(PRIV_U, at_sctrclr, 0);
  ctr_reset(4);
}

int main(void) {
  set_m_handler(record_m);
  ctrctl_fields();
  depth_warl();
  status_fields();
  entry_registers();
  stateen_gate();
  linux_depth();
  return 0;
}
