// brisk trace-decode's packet parser and flow decoder (runtime/ete_decode.h) on hand-built streams
// and on what ete::PacketEncoder writes for known code.
#include "runtime/ete_decode.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "devices/ete_packets.h"
#include "runtime/error.h"

namespace brisk::ete {
namespace {

std::vector<Packet> parse(const std::vector<uint8_t>& b) {
  PacketParser p(b.data(), b.size(), "s");
  std::vector<Packet> out;
  Packet pk;
  while (p.next(pk)) out.push_back(pk);
  return out;
}

std::string error_of(const std::vector<uint8_t>& b) {
  try {
    parse(b);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::vector<uint8_t> async() {
  std::vector<uint8_t> b(11, 0x00);
  b.push_back(0x80);
  return b;
}

TEST(EteDecode, HandBuiltPackets) {
  std::vector<uint8_t> b = async();
  const std::vector<uint8_t> rest = {
      0x01, 0x09, 0x01, 0x85, 0x01,  // Trace Info: INFO CC, CYCT threshold 0x85 (two bytes)
      0x04,                          // Trace On
      0x86, 0x00, 0x10, 0x00, 0x80, 0xff, 0xff, 0xff, 0xff, 0x03,  // 0xffffffff80001000, EL3, S
      0xfb,                          // F3: E E N (oldest in bit 0)
      0x06, 0x17,                    // exception 11 (ecall from M), return address follows
      0x96, 0x12,                    // short: bits 7:1 -> 0xffffffff80001024
      0x86, 0x00, 0x20, 0x00, 0x80, 0xff, 0xff, 0xff, 0xff, 0xb1, 0x44, 0x33, 0x22, 0x11,  // EL1 NS, CID
      0x96, 0x81, 0x30,              // short, two bytes: bits 15:1 -> 0xffffffff80003002
      0x9e, 0x02, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00,  // long: 0x40000004
      0xc2,                          // F6: 5 E then E
      0xe0,                          // F6: 3 E then N
      0xda,                          // F2: N E
      0xf6,                          // F1: N
      0x06, 0x8f, 0x10,              // exception type 0x207: the M timer interrupt
      0x75,                          // Event 0 and 2
      0x02, 0xff, 0x01,              // Timestamp 0xff
      0x0e, 0x83, 0x01,              // Cycle Count 0x83
  };
  b.insert(b.end(), rest.begin(), rest.end());
  const std::vector<Packet> p = parse(b);
  ASSERT_EQ(p.size(), 18u);
  EXPECT_EQ(p[0].type, Packet::Async);
  EXPECT_EQ(p[1].type, Packet::TraceInfo);
  EXPECT_TRUE(p[1].cc);
  EXPECT_EQ(p[1].value, 0x85u);
  EXPECT_EQ(p[1].offset, 12u);
  EXPECT_EQ(p[2].type, Packet::TraceOn);
  EXPECT_EQ(p[3].type, Packet::Address);
  EXPECT_TRUE(p[3].context);
  EXPECT_EQ(p[3].addr, 0xffffffff80001000u);
  EXPECT_EQ(p[3].el, 3);
  EXPECT_FALSE(p[3].ns);
  EXPECT_EQ(p[4].type, Packet::Atoms);
  EXPECT_EQ(p[4].atom_count, 3u);
  EXPECT_EQ(p[4].atoms, 0b011u);
  EXPECT_EQ(p[5].type, Packet::Exception);
  EXPECT_EQ(p[5].exception_type, 11u);
  EXPECT_EQ(p[6].addr, 0xffffffff80001024u);
  EXPECT_FALSE(p[6].context);
  EXPECT_EQ(p[7].addr, 0xffffffff80002000u);
  EXPECT_EQ(p[7].el, 1);
  EXPECT_TRUE(p[7].ns);
  EXPECT_EQ(p[7].context_id, 0x11223344u);
  EXPECT_EQ(p[7].vmid, 0u);
  EXPECT_EQ(p[8].addr, 0xffffffff80003002u);
  EXPECT_EQ(p[9].addr, 0x40000004u);
  EXPECT_FALSE(p[9].context);
  EXPECT_EQ(p[10].atom_count, 6u);
  EXPECT_EQ(p[10].atoms, 0b111111u);
  EXPECT_EQ(p[11].atom_count, 4u);
  EXPECT_EQ(p[11].atoms, 0b0111u);
  EXPECT_EQ(p[12].atom_count, 2u);
  EXPECT_EQ(p[12].atoms, 0b10u);
  EXPECT_EQ(p[13].atom_count, 1u);
  EXPECT_EQ(p[13].atoms, 0u);
  EXPECT_EQ(p[14].exception_type, 0x207u);
  EXPECT_EQ(p[15].type, Packet::Event);
  EXPECT_EQ(p[15].value, 5u);
  EXPECT_EQ(p[16].type, Packet::Timestamp);
  EXPECT_EQ(p[16].value, 0xffu);
  EXPECT_EQ(p[17].type, Packet::CycleCount);
  EXPECT_EQ(p[17].value, 0x83u);
}

TEST(EteDecode, CorruptStreams) {
  // Cut inside an Address with Context packet, inside A-Sync, inside a short address's second byte.
  std::vector<uint8_t> b = async();
  b.insert(b.end(), {0x04, 0x86, 0x00, 0x10});
  EXPECT_EQ(error_of(b), "s: offset 13: the packet with header 0x86 is cut short at the end of the stream");
  EXPECT_EQ(error_of({0x00, 0x00, 0x00}), "s: offset 0: the packet with header 0x00 is cut short at the end of the stream");
  EXPECT_EQ(error_of({0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x81}),
            "s: offset 0: a broken A-Sync packet");
  EXPECT_EQ(error_of({0x96, 0x80}), "s: offset 0: the packet with header 0x96 is cut short at the end of the stream");
  // Headers the encoder never writes.
  EXPECT_EQ(error_of({0xf6, 0x05}), "s: offset 1: unknown packet header 0x05 (not one brisk's ETE encoder writes)");
  EXPECT_EQ(error_of({0xdc}), "s: offset 0: unknown packet header 0xdc (not one brisk's ETE encoder writes)");
  // A cycle count longer than its three bytes.
  EXPECT_EQ(error_of({0x0e, 0x80, 0x80, 0x80, 0x01}), "s: offset 0: a field of more than 3 bytes");
}

// Every atom pattern the encoder packs (F1, F2, F3, F6 either way) comes back in order, as do
// addresses of both widths.
TEST(EteDecode, EncoderRoundTrip) {
  PacketEncoder enc;
  enc.start(0, 0, 0);
  enc.trace_on(0x80000000, El::EL3, 0, 0);
  std::vector<bool> want;
  uint64_t x = 12345;
  for (unsigned i = 0; i < 400; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    Retired r;
    r.kind = Retired::Branch;
    // Long runs of E as well as mixed ones.
    r.taken = (i / 50) % 2 ? true : (x >> 60) & 1;
    if (i % 37 == 0) r.taken = false;
    enc.branch(r, i + 1, false);
    want.push_back(r.taken);
  }
  Retired j;
  j.kind = Retired::IndirectBranch;
  j.taken = true;
  const std::vector<uint64_t> targets = {0x80000010, 0x80001234, 0x80400000, 0x123456789abcdef0};
  for (uint64_t t : targets) {
    j.next_pc = t;
    enc.branch(j, 1000, false);
    want.push_back(true);
  }
  enc.stop();
  std::vector<bool> got;
  std::vector<uint64_t> addrs;
  for (const Packet& p : parse(enc.bytes())) {
    if (p.type == Packet::Atoms)
      for (unsigned i = 0; i < p.atom_count; i++) got.push_back(p.atoms >> i & 1);
    if (p.type == Packet::Address) addrs.push_back(p.addr);
  }
  EXPECT_EQ(got, want);
  ASSERT_EQ(addrs.size(), 5u);
  EXPECT_EQ(addrs[0], 0x80000000u);
  EXPECT_EQ(std::vector<uint64_t>(addrs.begin() + 1, addrs.end()), targets);
}

// Known code at 0x1000 (RV64I, no compressed encodings):
//   1000 li t0, 2          1004 addi t0, t0, -1     1008 bnez t0, 1004
//   100c jal ra, 1020      1010 ecall               1014 nop
//   1018 beqz zero, 1018   1020 nop                 1024 ret
//   2000 mret (the handler)
CodeImage known_code() {
  auto le = [](std::vector<uint32_t> w) {
    std::vector<uint8_t> b;
    for (uint32_t v : w)
      for (unsigned i = 0; i < 4; i++) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return b;
  };
  CodeImage c;
  c.add_code(0x1000, le({0x00200293, 0xfff28293, 0xfe029ee3, 0x014000ef, 0x00000073, 0x00000013, 0x00000063,
                         0x00000013, 0x00000013, 0x00008067}));
  c.add_code(0x2000, le({0x30200073}));
  return c;
}

struct Recorder : FlowSink {
  std::vector<uint64_t> pcs;
  std::vector<std::pair<uint64_t, uint64_t>> branches;
  std::vector<std::string> events;
  void trace_on(uint64_t pc, uint8_t el) override { events.push_back(fmt::format("on {:x} EL{}", pc, el)); }
  void insn(uint64_t pc, const Insn&) override { pcs.push_back(pc); }
  void branch(uint64_t from, uint64_t to) override { branches.emplace_back(from, to); }
  void exception(uint32_t type, uint64_t epc, uint64_t handler, uint8_t el) override {
    events.push_back(fmt::format("exception {} {:x} {:x} EL{}", type, epc, handler, el));
  }
  void gap(uint64_t pc) override { events.push_back(fmt::format("gap {:x}", pc)); }
  void resume(uint64_t pc) override { events.push_back(fmt::format("resume {:x}", pc)); }
};

// A retired branch at pc, one instruction after the last, as the hart side gives it to the encoder
// (`broadcast`: with TRCCONFIGR.BB, in the branch broadcast region).
void branch(PacketEncoder& enc, uint64_t pc, uint64_t next, bool taken, Retired::Kind k, bool broadcast = false) {
  Retired r;
  r.pc = pc;
  r.next_pc = next;
  r.taken = taken;
  r.kind = k;
  enc.branch(r, 1, broadcast);
}

// The stream the hart side gives for known_code's run, with A-Sync every 2^syncpr bytes, with
// branch broadcasting everywhere or nowhere.
std::vector<uint8_t> known_stream(uint32_t syncpr, bool n_for_jal = false, bool broadcast = false) {
  PacketEncoder enc;
  enc.start(0, syncpr, 0);
  enc.trace_on(0x1000, El::EL3, 0, 0);
  auto br = [&enc, broadcast](uint64_t pc, uint64_t next, bool taken, Retired::Kind k) {
    branch(enc, pc, next, taken, k, broadcast);
  };
  br(0x1008, 0x1004, true, Retired::Branch);
  br(0x1008, 0x100c, false, Retired::Branch);
  br(0x100c, 0x1020, !n_for_jal, Retired::Branch);
  br(0x1024, 0x1010, true, Retired::IndirectBranch);
  enc.exception(11, false, 0x1010, 0x2000, El::EL3);
  br(0x2000, 0x1014, true, Retired::IndirectBranch);
  br(0x1018, 0x1018, true, Retired::Branch);
  br(0x1018, 0x1018, true, Retired::Branch);
  enc.stop();
  return enc.bytes();
}

TEST(EteDecode, KnownFlow) {
  const CodeImage code = known_code();
  for (auto [syncpr, bb] : {std::pair{0u, false}, {4u, false}, {0u, true}, {4u, true}}) {
    Recorder r;
    decode_flow(known_stream(syncpr, false, bb), "s", code, r);
    const std::vector<uint64_t> pcs = {0x1000, 0x1004, 0x1008, 0x1004, 0x1008, 0x100c, 0x1020,
                                       0x1024, 0x2000, 0x1014, 0x1018, 0x1018};
    EXPECT_EQ(r.pcs, pcs) << "TRCSYNCPR " << syncpr << " BB " << bb;
    const std::vector<std::pair<uint64_t, uint64_t>> branches = {
        {0x1008, 0x1004}, {0x100c, 0x1020}, {0x1024, 0x1010}, {0x1010, 0x2000}, {0x2000, 0x1014},
        {0x1018, 0x1018}, {0x1018, 0x1018}};
    EXPECT_EQ(r.branches, branches);
    const std::vector<std::string> events = {"on 1000 EL3", "exception 11 1010 2000 EL3"};
    EXPECT_EQ(r.events, events);
  }
  // With branch broadcasting the four taken direct branches add their targets.
  auto addresses = [](const std::vector<uint8_t>& s) {
    unsigned n = 0;
    for (const Packet& p : parse(s)) n += p.type == Packet::Address && !p.context;
    return n;
  };
  EXPECT_EQ(addresses(known_stream(0, false, true)), addresses(known_stream(0)) + 4);
  // The periodic A-Sync does come mid-stream at TRCSYNCPR 4 (16 bytes).
  unsigned syncs = 0;
  const std::vector<uint8_t> s = known_stream(4);
  for (const Packet& p : parse(s)) syncs += p.type == Packet::Async;
  EXPECT_GT(syncs, 1u);
}

// Code outside the ELF files (a user program under --vmlinux): known_code's ret goes to 0x5000,
// whose branches are skipped; an exception there goes to the handler at 0x2000, whose mret
// returns into known code; then a jalr in unknown code comes back to 0x1014 by its address.
TEST(EteDecode, GapsInUnknownCode) {
  PacketEncoder enc;
  enc.start(0, 0, 0);
  enc.trace_on(0x1020, El::EL3, 0, 0);
  auto br = [&enc](uint64_t pc, uint64_t next, bool taken, Retired::Kind k) { branch(enc, pc, next, taken, k); };
  br(0x1024, 0x5000, true, Retired::IndirectBranch);  // ret into unknown code
  br(0x5008, 0x5000, true, Retired::Branch);          // its loop
  br(0x5008, 0x500c, false, Retired::Branch);
  enc.exception(8, false, 0x5010, 0x2000, El::EL3);
  br(0x2000, 0x5014, true, Retired::IndirectBranch);  // mret back into it
  br(0x5020, 0x1014, true, Retired::IndirectBranch);  // and a jalr back to known code
  br(0x1018, 0x1018, true, Retired::Branch);
  enc.stop();
  Recorder r;
  decode_flow(enc.bytes(), "s", known_code(), r);
  const std::vector<uint64_t> pcs = {0x1020, 0x1024, 0x2000, 0x1014, 0x1018};
  EXPECT_EQ(r.pcs, pcs);
  const std::vector<std::string> events = {"on 1020 EL3", "gap 5000", "exception 8 5010 2000 EL3", "gap 5014",
                                           "resume 1014"};
  EXPECT_EQ(r.events, events);
  const std::vector<std::pair<uint64_t, uint64_t>> branches = {
      {0x1024, 0x5000}, {0x5010, 0x2000}, {0x2000, 0x5014}, {0x1018, 0x1018}};
  EXPECT_EQ(r.branches, branches);
}

TEST(EteDecode, StreamNotMatchingTheProgram) {
  const CodeImage code = known_code();
  Recorder r;
  try {
    decode_flow(known_stream(0, true), "s", code, r);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "s: offset 26: an N atom for the jump at 0x100c (jal ra, 0x1020); the stream does not match "
                           "the program");
  }
  // A broadcast target that is not the direct branch's.
  {
    PacketEncoder enc;
    enc.start(0, 0, 0);
    enc.trace_on(0x1000, El::EL3, 0, 0);
    branch(enc, 0x1008, 0x1000, true, Retired::Branch, true);
    enc.stop();
    try {
      decode_flow(enc.bytes(), "s", code, r);
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "s: offset 27: the address 0x1000 after the branch at 0x1008 is not its target 0x1004; "
                             "the stream does not match the program");
    }
  }
  // Trace on where there is no code, and never any code of the ELF files.
  PacketEncoder enc;
  enc.start(0, 0, 0);
  enc.trace_on(0x3000, El::EL3, 0, 0);
  Retired b;
  b.kind = Retired::Branch;
  enc.branch(b, 1, false);
  enc.stop();
  try {
    decode_flow(enc.bytes(), "s", code, r);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "s: the stream never runs code of the ELF files given (it starts at 0x3000)");
  }
}

}  // namespace
}  // namespace brisk::ete
