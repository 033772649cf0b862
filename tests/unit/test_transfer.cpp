// CTR recording of branches and jumps: tests/guest/transfer.S executes every Smctr transfer type once or
// more, and with U-mode recording of every type each engine must leave exactly the same entries in
// the CTR buffer (csr/ctr.h), in order.
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "csr/ctr.h"
#include "runtime/error.h"
#include "runtime/hart.h"
#include "runtime/linux_user.h"

namespace brisk {
namespace {

struct Rec {
  uint64_t source, target, type;
  bool operator==(const Rec&) const = default;
};

void PrintTo(const Rec& r, std::ostream* os) {
  *os << std::hex << "0x" << r.source << " -> 0x" << r.target << std::dec << " type " << r.type;
}

// The guest's labels, from its symbol table (they are local symbols, which the static link keeps).
std::map<std::string, uint64_t> read_symbols(const std::string& path) {
  std::map<std::string, uint64_t> out;
  if (elf_version(EV_CURRENT) == EV_NONE) return out;
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return out;
  if (Elf* e = elf_begin(fd, ELF_C_READ, nullptr)) {
    for (Elf_Scn* s = elf_nextscn(e, nullptr); s; s = elf_nextscn(e, s)) {
      GElf_Shdr sh;
      if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize) continue;
      Elf_Data* d = elf_getdata(s, nullptr);
      for (size_t k = 0; d && k < sh.sh_size / sh.sh_entsize; k++) {
        GElf_Sym sym;
        if (!gelf_getsym(d, static_cast<int>(k), &sym)) continue;
        if (const char* name = elf_strptr(e, sh.sh_link, sym.st_name)) out[name] = sym.st_value;
      }
    }
    elf_end(e);
  }
  close(fd);
  return out;
}

struct Config {
  const char* name;
  unsigned jit_regs;
};
// The JIT also runs with no guest registers in host registers: its recording must not clobber mapped
// ones. The checker compares the CTR state with the interpreter's after every block.
const Config kEngines[] = {{"interp", 10}, {"jit", 10}, {"jit", 0}, {"check", 10}};

struct Outcome {
  int exit_code;
  unsigned valid;            // entries with ctrsource.V set
  std::vector<Rec> records;  // oldest first
};

UserOptions options(const Config& engine) {
  UserOptions opt;
  opt.program = BRISK_TRANSFER_GUEST;
  opt.argv = {opt.program};
  opt.engine.name = engine.name;
  opt.engine.jit_regs = engine.jit_regs;
  return opt;
}

// As if the guest's S-mode had enabled U-mode recording of every type, not-taken branches included,
// at depth 256.
void record_user_mode(Hart& h, uint64_t ctrctl = ctr::CTRCTL_U | ctr::CTRCTL_NTBREN) {
  ctr::write_ctrctl(h, ctrctl, false);
  ctr::set_depth(h, 4);
  ctr::sync_activity(h);
}

// Runs the guest with mctrctl = ctrctl (0: CTR off) and the buffer's valid entries, oldest first; with
// `raw`, every logical entry as it reads, valid or not.
Outcome run_guest(const Config& engine, uint64_t ctrctl, bool raw = false) {
  LinuxUser user(options(engine));
  if (ctrctl) record_user_mode(user.hart(), ctrctl);
  Outcome out{user.run().exit_code, 0, {}};
  Hart& h = user.hart();
  for (unsigned n = ctr::depth(h.csr.ctr); n-- > 0;) {
    const ctr::Record r = ctr::logical_entry(h, n);
    if (raw) {
      out.records.push_back({r.source, r.target, r.data & ctr::CTRDATA_TYPE});
      continue;
    }
    if (!(r.source & ctr::CTRSOURCE_V)) continue;
    out.valid++;
    out.records.push_back({r.source & ~ctr::CTRSOURCE_V, r.target & ~ctr::CTRTARGET_MISP, r.data & ctr::CTRDATA_TYPE});
  }
  return out;
}

constexpr uint64_t kEveryType = ctr::CTRCTL_U | ctr::CTRCTL_NTBREN;

struct Expected {
  const char* source;
  const char* target;
  uint64_t type;
};

// Types are the Smctr TYPE encodings written as numbers, so that this also checks jit/transfer.h:
// 4 not-taken branch, 5 taken branch, 8 indirect call, 9 direct call, 10 indirect jump, 11 direct jump,
// 12 co-routine swap, 13 return, 14 other indirect jump (with linkage), 15 other direct jump (with linkage).
const Expected kExpected[] = {
    {"br_nt", "br_nt_next", 4},           // beq, falls through
    {"br_nt_next", "br_t_to", 5},         // bne
    {"loop_br", "loop", 5},               // bnez backwards, then out of the loop
    {"loop_br", "loop_next", 4},
    {"cbr_nt", "cbr_nt_next", 4},         // c.beqz: the fall-through is pc + 2
    {"cbr_nt_next", "cbr_t_to", 5},       // c.bnez
    {"call_ra", "f_ret_ra", 9},           // jal ra
    {"f_ret_ra", "call_ra_next", 13},     // jalr x0, 0(ra)
    {"call_ra_next", "f_ret_t0", 9},      // jal t0
    {"f_ret_t0", "call_t0_next", 13},     // jalr x0, 0(t0)
    {"call_ind", "f_ret_c", 8},           // jalr ra, 0(a1)
    {"f_ret_c", "call_ind_next", 13},     // c.jr ra
    {"call_c", "f_ret_c", 8},             // c.jalr a1
    {"f_ret_c", "call_c_next", 13},
    {"call_rara", "f_ret_ra", 8},         // jalr ra, 0(ra)
    {"f_ret_ra", "call_rara_next", 13},
    {"jmp", "jmp_to", 11},                // jal x0
    {"cjmp", "cjmp_to", 11},              // c.j
    {"jmp_ind", "jmp_ind_to", 10},        // jalr x0, 1(a1): the target's low bit is cleared
    {"cjmp_ind", "cjmp_ind_to", 10},      // c.jr a1
    {"swap", "coroutine", 12},            // jalr ra, 0(t0)
    {"coroutine", "swap_next", 12},       // jalr t0, 0(ra)
    {"other_ind", "other_ind_to", 14},    // jalr a0, 0(a1)
    {"other_dir", "other_dir_to", 15},    // jal a0
};

std::vector<Rec> expected_records() {
  const auto sym = read_symbols(BRISK_TRANSFER_GUEST);
  std::vector<Rec> out;
  for (const Expected& e : kExpected) {
    auto s = sym.find(e.source), t = sym.find(e.target);
    if (s == sym.end() || t == sym.end()) {
      ADD_FAILURE() << BRISK_TRANSFER_GUEST << " has no symbol " << (s == sym.end() ? e.source : e.target);
      return {};
    }
    out.push_back({s->second, t->second, e.type});
  }
  return out;
}

std::string describe(const Config& e) {
  return std::string(e.name) + " --jit-regs " + std::to_string(e.jit_regs);
}

TEST(Transfer, EveryTypeIsRecordedInOrderByEveryEngine) {
  const std::vector<Rec> expected = expected_records();
  ASSERT_EQ(expected.size(), std::size(kExpected));
  std::vector<Rec> first;
  for (const Config& engine : kEngines) {
    SCOPED_TRACE(describe(engine));
    const Outcome o = run_guest(engine, kEveryType);
    EXPECT_EQ(o.exit_code, 0);
    // The buffer never wrapped, so records holds every record written.
    EXPECT_EQ(o.valid, expected.size());
    EXPECT_EQ(o.records, expected);
    if (first.empty()) first = o.records;
    EXPECT_EQ(o.records, first) << "differs from " << describe(kEngines[0]);
  }
}

TEST(Transfer, NothingIsRecordedWithCtrOff) {
  for (const Config& engine : kEngines) {
    SCOPED_TRACE(describe(engine));
    const Outcome o = run_guest(engine, 0);
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(o.valid, 0u);
  }
}

// RASEMU: calls push, returns pop and clear V, co-routine swaps rewrite the youngest entry. Every
// engine leaves the same buffer (the checker compares it after every block), and transfer.S returns
// from each of its calls, so that only the two swaps' entry and the popped ones remain.
TEST(Transfer, RasEmuCallStackIsTheSameInEveryEngine) {
  std::vector<Rec> first;
  for (const Config& engine : kEngines) {
    SCOPED_TRACE(describe(engine));
    const Outcome o = run_guest(engine, ctr::CTRCTL_U | ctr::CTRCTL_RASEMU, true);
    EXPECT_EQ(o.exit_code, 0);
    if (first.empty()) first = o.records;
    EXPECT_EQ(o.records, first) << "differs from " << describe(kEngines[0]);
  }
  const auto sym = read_symbols(BRISK_TRANSFER_GUEST);
  // The youngest entry: the second swap rewrote the first one in place.
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.back(), (Rec{sym.at("coroutine") | ctr::CTRSOURCE_V, sym.at("swap_next"), 12}));
}

// The checker catches a difference in the CTR buffer: BRISK_CHECK_SELFTEST=ctr:N corrupts the youngest
// entry after translated code, before the Nth comparison, and names the entry.
TEST(Transfer, CheckerNamesTheCtrEntryThatDiffers) {
  ASSERT_EQ(setenv("BRISK_CHECK_SELFTEST", "ctr:20", 1), 0);
  LinuxUser user(options({"check", 10}));
  unsetenv("BRISK_CHECK_SELFTEST");
  record_user_mode(user.hart(), kEveryType);
  try {
    user.run();
    ADD_FAILURE() << "the corrupted CTR entry went unnoticed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CTR physical entry"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace brisk
