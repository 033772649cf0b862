// The LLVM tier (docs/architecture.md, "Engines and tiers"): compiles a hot region of guest code
// with LLVM 19's ORC LLJIT, on a background thread, from the same block plan the baseline emits.
// Each instruction is a call of its C++ semantic function (runtime/semantics.h) with its Insn as a
// constant, inlined from the semantics' bitcode that the build embeds, so there is one meaning per
// instruction and LLVM keeps the guest registers in SSA values between the calls it cannot inline.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jit/block_plan.h"

namespace brisk {
struct Hart;
}

namespace brisk::tier2 {

// A region's code: runs the region from hart.pc = its start, with pc, instret and every register in
// the hart, and returns with them there and a JitExit code (jit/x64/translator.h): kExitRegionNext
// to go on at hart.pc through the lookup table, kExitRegionStep for the exec loop to run the
// instruction at hart.pc, or kExitDispatch, kExitTrap, kExitStop or kExitDeadline as the baseline's
// exits mean them.
using RegionFn = uint32_t (*)(Hart*);

// A region is a few block plans, its entry block's first: a direct exit (or an indirect one, by its
// value) to one of them jumps to that block inside the region code, which checks the deadline there
// as a block entry does, so a loop or a loop nest among them runs without leaving.
struct Compiled {
  uint64_t id = 0;
  RegionFn fn = nullptr;  // nullptr: LLVM failed, and `error` says why
  uint64_t size = 0;      // bytes of fn's code (for --perf-map)
  std::string error;
  // Host time spent compiling. An integer: the exec loop adds it up, and host FP there would raise
  // flags in MXCSR, which translated code takes for the guest's (runtime/fp.h).
  uint64_t nanoseconds = 0;
};

// The compiler lives in its own module, brisk_tier2.so (LLVM and all), which brisk loads only when
// the tier is on: a run without it does not load or relocate libLLVM (jit/llvm/loader.cpp).
class Compiler {
 public:
  struct Options {
    // Tests only: each region refers to a symbol nobody defines, so that LLVM's link fails.
    bool inject_failure = false;
    // Called on the background thread after each compilation, so that the owner looks soon.
    std::function<void()> on_done;
  };
  // Loads the module and makes a compiler; nullptr with `error` set if it cannot.
  static std::unique_ptr<Compiler> load(const Options& opt, std::string& error);
  // False in the child of a host fork of a process that had a compiler: LLVM's state may be
  // half-changed there by a thread that did not come along.
  static bool available();

  // Does not wait for a compilation in progress: its thread finishes it and ends by itself
  // (note_abandoned).
  virtual ~Compiler() = default;
  // Compiles the region of `plans` on the calling thread (the background thread, and tests).
  virtual Compiled compile(uint64_t id, const std::vector<jit::BlockPlan>& plans) = 0;
  // Queues it for the background thread, which starts with the first.
  virtual void submit(uint64_t id, std::vector<jit::BlockPlan> plans) = 0;
  // Whether compiled regions wait for take_done: one relaxed load, for the exec loop.
  virtual bool has_done() const = 0;
  virtual std::vector<Compiled> take_done() = 0;
  // Frees the code of region `id`, which nothing may run or jump to any more.
  virtual void release(uint64_t id) = 0;
};

// Compilers' threads allocate and take locks that a host fork would leave held in the child, where
// nobody would release them; brisk forks a guest's process with a raw clone, which runs no atfork
// handlers. So the forking thread holds this around the clone, and a compiler's thread holds it
// while it works (jit/llvm/loader.cpp).
std::mutex& work_lock();

// A compiler's thread, or the thread loading the module, that its owner left running when it went
// (a run does not wait for LLVM at its end): the thread ends by itself, and brisk then ends with
// _Exit, since exit's destructors of libLLVM's globals would race it (tools/main.cpp).
void note_abandoned();
bool any_abandoned();

// The module's one entry point, which Compiler::load looks up.
extern "C" Compiler* brisk_tier2_create(const Compiler::Options& opt);

}  // namespace brisk::tier2
