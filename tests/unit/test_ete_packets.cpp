// ETE packets from the trace unit's elements (devices/ete_packets.h), and the OpenCSD snapshot
// they are written in, parsed back by OpenCSD's trc_pkt_lister (Debian's libopencsd-bin).
#include "devices/ete_packets.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "devices/ete_config.h"
#include "temp_dir.h"

namespace brisk::ete {
namespace {

using Bytes = std::vector<uint8_t>;

struct EtePacketsTest : TempDirTest {
  PacketEncoder enc;
  EteUnit unit{0, Sizes{}, &enc};

  void wr(uint64_t off, uint32_t v) { ASSERT_TRUE(unit.write(off, 4, v)) << off; }
  // ViewInst everywhere, context IDs in the stream, A-Sync every 2^syncpr bytes; events when
  // `eventctl0r` is not 0 (EVENT0 with INSTEN).
  void program(uint32_t syncpr, uint32_t eventctl0r = 0) {
    wr(TRCOSLAR, 0);
    wr(TRCCONFIGR, CONFIGR_CID);
    wr(TRCTRACEIDR, 0x10);
    wr(TRCSYNCPR, syncpr);
    wr(TRCVICTLR, 0x01 | VICTLR_SSSTATUS);
    wr(TRCEVENTCTL0R, eventctl0r);
    wr(TRCEVENTCTL1R, eventctl0r ? 1 : 0);
    unit.on_context(0, El::EL1, 5, 0);
    wr(TRCPRGCTLR, 1);
  }
  static Retired insn(uint64_t pc, Retired::Kind kind = Retired::Plain, bool taken = false, uint64_t target = 0) {
    Retired r;
    r.pc = pc;
    r.kind = kind;
    r.taken = taken;
    r.next_pc = taken ? target : pc + 4;
    return r;
  }
  // trc_pkt_lister's packet lines for the snapshot in dir_ (where it also leaves its log file).
  std::vector<std::string> list() {
    const std::string cmd = "cd " + dir_ + " && trc_pkt_lister -ss_dir . -logstdout 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    EXPECT_NE(p, nullptr);
    std::vector<std::string> lines;
    char buf[512];
    std::string all;
    while (p && fgets(buf, sizeof buf, p)) {
      all += buf;
      std::string l(buf);
      if (l.rfind("Idx:", 0) == 0) lines.push_back(l.substr(l.find('\t') + 1, l.find_last_not_of("\n ") - l.find('\t')));
    }
    const int status = p ? pclose(p) : -1;
    EXPECT_EQ(status, 0) << "trc_pkt_lister (libopencsd-bin, scripts/setup) failed:\n" << all;
    EXPECT_NE(all.find("END OF TRACE DATA"), std::string::npos) << all;
    for (const char* bad : {"ERROR", "BAD_", "RESERVED", "INCOMPLETE", "NOTSYNC"})
      EXPECT_EQ(all.find(bad), std::string::npos) << bad << " in:\n" << all;
    return lines;
  }
};

TEST_F(EtePacketsTest, StreamStartsWithSyncTraceInfoTraceOnAndAddressContext) {
  program(0);
  unit.on_retired(insn(0x80001000));
  unit.on_retired(insn(0x80001004, Retired::Branch, true, 0x80001100));
  wr(TRCPRGCTLR, 0);  // flushes the atom
  const Bytes expect = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,  // A-Sync
                        0x01, 0x01, 0x00,                        // Trace Info, INFO = 0
                        0x04,                                    // Trace On
                        0x86, 0x00, 0x10, 0x00, 0x80, 0, 0, 0, 0,  // Address & Context, 64-bit IS1
                        0xb1, 5, 0, 0, 0,                        // EL1, SF, NS, C; CID 5
                        0xf7};                                   // E
  EXPECT_EQ(enc.bytes(), expect);
}

TEST_F(EtePacketsTest, AddressesAreCompressedAgainstTheLastOne) {
  program(0);
  unit.on_retired(insn(0x80001000, Retired::IndirectBranch, true, 0x80001202));  // bits 15:8 change
  unit.on_retired(insn(0x80001202, Retired::IndirectBranch, true, 0x8000120a));  // only bits 7:1
  unit.on_retired(insn(0x8000120a, Retired::IndirectBranch, true, 0x80042002));  // bits 63:16 change
  unit.on_retired(insn(0x80042002, Retired::Branch, false));
  wr(TRCPRGCTLR, 0);
  const Bytes tail(enc.bytes().begin() + 30, enc.bytes().end());
  const Bytes expect = {0xf7, 0x96, 0x81, 0x12,                            // E, short address
                        0xf7, 0x96, 0x05,                                  // E, one-byte short address
                        0xf7, 0x9e, 0x01, 0x20, 0x04, 0x80, 0, 0, 0, 0,    // E, long address
                        0xf6};                                             // N
  EXPECT_EQ(tail, expect);
}

struct FixedClock : Clock {
  uint64_t t = 0x123456789;
  uint64_t now() const override { return t; }
  void set(uint64_t v) override { t = v; }
};

TEST_F(EtePacketsTest, TimestampsAfterTraceInfoAndOnTheTsEvent) {
  FixedClock clock;
  PacketEncoder ts_enc(&clock);
  EteUnit ts_unit(0, Sizes{}, &ts_enc);
  ete::program(ts_unit, {{TRCCONFIGR, CONFIGR_TS}, {TRCTSCTLR, 0x01}});
  Retired r;
  r.pc = 0x80001000;
  r.next_pc = r.pc + 4;
  clock.t = 0x80;
  ts_unit.on_retired(r);
  const Bytes head(ts_enc.bytes().begin() + 12, ts_enc.bytes().begin() + 21);
  const Bytes expect = {0x01, 0x01, 0x00, 0x02, 0x89, 0xcf, 0x95, 0x9a, 0x12};  // Trace Info, timestamp
  EXPECT_EQ(head, expect);
  const Bytes tail(ts_enc.bytes().end() - 3, ts_enc.bytes().end());
  EXPECT_EQ(tail, (Bytes{0x02, 0x80, 0x01}));  // the TRCTSCTLR event's timestamp: 0x80
  SnapshotSource src = snapshot_source(ts_unit);
  src.stream = ts_enc.bytes();
  write_snapshot(dir_, {src});
  int timestamps = 0;
  for (const std::string& l : list()) timestamps += l.rfind("I_TIMESTAMP ", 0) == 0;
  EXPECT_EQ(timestamps, 2);
}

TEST_F(EtePacketsTest, CycleCountsFollowAtomsPastTheThreshold) {
  ete::program(unit, {{TRCCONFIGR, CONFIGR_CCI}, {TRCCCCTLR, 4}, {TRCVICTLR, 0x01 | VICTLR_SSSTATUS}});
  uint64_t pc = 0x80001000;
  auto step = [&](Retired::Kind kind, bool taken) {
    unit.on_retired(insn(pc, kind, taken, pc + 4));
    pc += 4;
  };
  step(Retired::Plain, false);                            // cycle 1: Trace On
  step(Retired::Branch, true);                            // 2
  step(Retired::Branch, true);                            // 3
  for (int i = 4; i < 10; i++) step(Retired::Plain, false);
  step(Retired::Branch, true);                            // 10: 10 cycles, at least 4
  step(Retired::Branch, false);                           // 11: 1 cycle since
  for (int i = 12; i < 30; i++) step(Retired::Plain, false);
  step(Retired::Branch, true);                            // 30: 20 cycles
  wr(TRCPRGCTLR, 0);
  const Bytes info(enc.bytes().begin() + 12, enc.bytes().begin() + 16);
  EXPECT_EQ(info, (Bytes{0x01, 0x09, 0x01, 0x04}));  // Trace Info: CC enabled, threshold 4
  const Bytes tail(enc.bytes().begin() + 27, enc.bytes().end());
  // F3 EEE, cycle count 4 + 6; F2 N E, cycle count 4 + 16.
  EXPECT_EQ(tail, (Bytes{0xff, 0x0e, 0x06, 0xda, 0x0e, 0x10}));
  SnapshotSource src = snapshot_source(unit);
  src.stream = enc.bytes();
  write_snapshot(dir_, {src});
  std::vector<std::string> counts;
  for (const std::string& l : list())
    if (l.rfind("I_CCNT_F1 ", 0) == 0) counts.push_back(l.substr(l.rfind(';', l.size() - 2) + 1));
  EXPECT_EQ(counts, (std::vector<std::string>{" Count=0xa", " Count=0x14"}));
}

TEST_F(EtePacketsTest, AtomsArePacked) {
  program(0);
  const char* pattern = "EEENEEEEENNEEEEEENN";
  uint64_t pc = 0x80001000;
  for (const char* p = pattern; *p; p++, pc += 4) unit.on_retired(insn(pc, Retired::Branch, *p == 'E', pc + 4));
  wr(TRCPRGCTLR, 0);
  const Bytes tail(enc.bytes().begin() + 30, enc.bytes().end());
  // Greedy from the oldest atom: F6 EEE+N, F6 EEEEE+N, F3 NEE (oldest in bit 0), F6 EEEE+N, F1 N.
  const Bytes expect = {0xe0, 0xe2, 0xf8 | 0b110, 0xe1, 0xf6};
  EXPECT_EQ(tail, expect);
  SnapshotSource src = snapshot_source(unit);
  src.stream = enc.bytes();
  write_snapshot(dir_, {src});
  std::string atoms;
  for (const std::string& l : list())
    if (l.rfind("I_ATOM_", 0) == 0) atoms += l.substr(l.rfind(' ') + 1);
  EXPECT_EQ(atoms, pattern);
}

TEST_F(EtePacketsTest, ExceptionCarriesTheRiscvCause) {
  EXPECT_EQ(exception_type(8, false), 8u);
  EXPECT_EQ(exception_type(7, true), 0x207u);
  program(0);
  unit.on_retired(insn(0x80001000));
  unit.on_exception(8, false, 0x80001000, 0x80000100, El::EL3);  // ecall from S
  unit.on_retired(insn(0x80000100));
  unit.on_exception(7, true, 0x80000104, 0x80000200, El::EL3);  // machine timer interrupt
  const Bytes tail(enc.bytes().begin() + 30, enc.bytes().end());
  const Bytes expect = {0x06, 0x11, 0x96, 0x00,                                     // exception 8, return address
                        0x86, 0x00, 0x01, 0x00, 0x80, 0, 0, 0, 0, 0x93, 5, 0, 0, 0,  // handler, EL3 Secure
                        0x06, 0x8f, 0x10, 0x96, 0x02,                               // exception 0x207
                        0x86, 0x00, 0x02, 0x00, 0x80, 0, 0, 0, 0, 0x93, 5, 0, 0, 0};
  EXPECT_EQ(tail, expect);
}

TEST_F(EtePacketsTest, PeriodicSyncAndTrcPktListerParsesEverything) {
  program(8, 0x01);  // A-Sync every 256 bytes, EVENT0 always
  uint64_t pc = 0x80001000;
  for (int i = 0; i < 400; i++) {
    unit.on_retired(insn(pc, Retired::Branch, i % 3 != 0, pc + 0x10));
    pc += i % 3 ? 0x10 : 4;
  }
  unit.on_exception(2, false, pc, 0x80000100, El::EL3);
  unit.on_retired(insn(0x80000100, Retired::IndirectBranch, true, pc + 4));
  wr(TRCPRGCTLR, 0);

  SnapshotSource src = snapshot_source(unit);
  EXPECT_EQ(src.trcconfigr, CONFIGR_CID);
  EXPECT_EQ(src.trctraceidr, 0x10u);
  EXPECT_EQ(src.trcidr0, 0x28000ca1u);
  src.stream = enc.bytes();
  write_snapshot(dir_, {src});
  std::ifstream f(dir_ + "/snapshot.ini");
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_NE(ss.str().find("device0=cpu_0.ini\ndevice1=ETE_0.ini\n"), std::string::npos) << ss.str();

  const std::vector<std::string> lines = list();
  auto count = [&lines](const std::string& head) {
    int n = 0;
    for (const auto& l : lines) n += l.rfind(head, 0) == 0;
    return n;
  };
  EXPECT_EQ(count("I_TRACE_ON "), 1);
  EXPECT_EQ(count("I_ATOM_F1 "), 401);
  EXPECT_EQ(count("I_EVENT "), 401);
  EXPECT_EQ(count("I_EXCEPT "), 1);
  // 401 atoms and events and the periodic Address & Context packets need several periods.
  EXPECT_GE(count("I_ASYNC "), 3);
  EXPECT_EQ(count("I_ASYNC "), count("I_TRACE_INFO "));
  EXPECT_EQ(count("I_ADDR_CTXT_L_64IS1 "), count("I_ASYNC ") + 1);  // + the exception's handler
  EXPECT_EQ(lines[3], "I_ADDR_CTXT_L_64IS1 : Address & Context, Long, 64 bit, IS1.; Addr=0x0000000080001000; "
                      "Ctxt: AArch64,EL1, NS; CID=0x00000005;");
  EXPECT_EQ(lines.back().rfind("I_ADDR_S_IS1 : Address, Short, IS1.; Addr=0x", 0), 0u) << lines.back();
}

}  // namespace
}  // namespace brisk::ete
