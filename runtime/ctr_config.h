// CTR from the command line: --ctr[=FILTERS], --ctr-depth and --ctr-dump, for `brisk run` (as if the
// guest's S-mode had enabled U-mode recording) and `brisk system` (as if M-mode firmware had enabled
// U- and S-mode recording at reset). The filter names are perf's branch filters (perf record -j)
// where they map onto Smctr transfer types, plus each type by name (csr/ctr.h).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "jit/transfer.h"

namespace brisk {
struct Hart;
}

namespace brisk::ctr {

// The Smctr name of a transfer type, as the dump prints it ("taken-branch", "direct-call", ...).
const char* type_name(TransferType t);

// A parsed FILTERS list: the mctrctl bits it stands for (the TYPE inhibits, NTBREN, RASEMU) and
// the privilege modes it names (CTRCTL_U / CTRCTL_S / CTRCTL_M; 0 when it names none).
struct Filters {
  uint64_t ctrctl = 0;
  uint64_t modes = 0;
  uint64_t perf = 0;  // the PERF_SAMPLE_BRANCH_* bits perf's names among them stand for
};
// "any,not_taken" and so on. Throws brisk::Error naming the option (--ctr, -j), the bad item and
// the accepted names.
Filters parse_filters(const std::string& list, const char* option = "--ctr");
// "16" .. "256" as sctrdepth.DEPTH; throws brisk::Error for anything else.
unsigned parse_depth(const std::string& depth);

struct Options {
  bool record = false;     // --ctr given
  Filters filters;         // --ctr=FILTERS (any when none are given)
  unsigned depth_code = 4; // --ctr-depth (256)
  bool dump = false;       // --ctr-dump
  std::string dump_path;   // --ctr-dump=FILE; empty: brisk's stderr
};

// Sets the hart up as the options say: the depth, and with --ctr mctrctl = the filters with the
// modes they name, or `default_modes`; `allowed_modes` are those the caller can record (brisk run
// has no S-mode of its own). Throws brisk::Error when the CPU cannot do it (no Smctr, a depth
// that --cpu ctr-depths left out, a mode not allowed).
void configure(Hart& h, const Options& opt, uint64_t default_modes, uint64_t allowed_modes);

// --ctr-dump's output: every valid entry of each hart's buffer, youngest first, one line each in
// perf script's brstack text (0xFROM/0xTO/P|M/-/-/CYCLES) and the type name, after a '#' line
// saying which hart, when, and how many entries.
class Dump {
 public:
  explicit Dump(const std::string& path);  // opens (truncates) path now; empty: brisk's stderr
  ~Dump();
  Dump(const Dump&) = delete;
  Dump& operator=(const Dump&) = delete;
  void write(const std::vector<Hart*>& harts, const char* when);

 private:
  std::FILE* out_;
  bool owned_;
};

}  // namespace brisk::ctr
