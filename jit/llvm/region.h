// The LLVM tier (docs/architecture.md, "Engines and tiers"): compiles a hot region of guest code
// with LLVM 19's ORC LLJIT, on a background thread, from the same block plan the baseline emits.
// Each instruction is a call of its C++ semantic function (runtime/semantics.h) with its Insn as a
// constant, inlined from the semantics' bitcode that the build embeds, so there is one meaning per
// instruction and LLVM keeps the guest registers in SSA values between the calls it cannot inline.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "jit/block_plan.h"

namespace brisk {
struct Hart;
}

namespace brisk::tier2 {

// A region's code: runs the region from hart.pc = its start, with pc, instret and every register in
// the hart, and returns with them there and a JitExit code (jit/x64/translator.h): kExitRegionNext
// to go on at hart.pc through the lookup table, or kExitDispatch, kExitTrap, kExitStop or
// kExitDeadline as the baseline's exits mean them.
using RegionFn = uint32_t (*)(Hart*);

// A region today is one block plan: a block whose direct exits to its own start are the back edges
// of a loop inside the region code (checking the deadline once per iteration, as a block entry does).
struct Compiled {
  uint64_t id = 0;
  RegionFn fn = nullptr;  // nullptr: LLVM failed, and `error` says why
  std::string error;
  // Host time spent compiling. An integer: the exec loop adds it up, and host FP there would raise
  // flags in MXCSR, which translated code takes for the guest's (runtime/fp.h).
  uint64_t nanoseconds = 0;
};

class Compiler {
 public:
  struct Options {
    // Tests only: each region refers to a symbol nobody defines, so that LLVM's link fails.
    bool inject_failure = false;
    // Called on the background thread after each compilation, so that the owner looks soon.
    std::function<void()> on_done;
  };
  explicit Compiler(const Options& opt);
  // False in the child of a host fork of a process that had a compiler: LLVM's state may be
  // half-changed there by a thread that did not come along.
  static bool available();
  ~Compiler();
  Compiler(const Compiler&) = delete;
  Compiler& operator=(const Compiler&) = delete;

  // Compiles the region of `plan` on the calling thread (the background thread, and tests).
  Compiled compile(uint64_t id, const jit::BlockPlan& plan);
  // Queues it for the background thread, which starts with the first.
  void submit(uint64_t id, const jit::BlockPlan& plan);
  // Whether compiled regions wait for take_done: one relaxed load, for the exec loop.
  bool has_done() const;
  std::vector<Compiled> take_done();
  // Frees the code of region `id`, which nothing may run or jump to any more.
  void release(uint64_t id);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace brisk::tier2
