// The sizes of an ETE trace unit (devices/ete.h), apart so that --cpu can carry them
// (csr/extensions.h) without the device.
#pragma once

#include <string_view>

namespace brisk::ete {

// The unit's sizes, reported in TRCIDR0-5. The defaults are the largest Linux's coresight driver
// handles. `--cpu rv64,ete-rspairs=N,...` changes them (Sizes::apply).
struct Sizes {
  unsigned rs_pairs = 16;     // resource selector pairs, the fixed pair 0 included: TRCIDR4.NUMRSPAIR + 1
  unsigned ac_pairs = 8;      // address comparator pairs: 2x single, 1x range comparators
  unsigned counters = 4;
  unsigned seq_states = 4;    // 0 (no sequencer) or 4
  unsigned ss_comps = 8;      // single-shot comparator controls
  unsigned cid_comps = 8;
  unsigned vmid_comps = 8;
  unsigned pe_comps = 4;      // PE comparator inputs: the hart's Sdtrig triggers 0..pe_comps-1
  unsigned ext_in_sel = 4;    // external input selectors
  // One `ete-NAME=VALUE` item of --cpu (NAME without the "ete-"): false when NAME is not a size of
  // the unit; throws brisk::Error for a value out of range.
  bool apply(std::string_view name, std::string_view value);
};

}  // namespace brisk::ete
