#include "runtime/engine.h"

#include "runtime/check_engine.h"
#include "runtime/error.h"
#include "runtime/interp.h"
#include "runtime/jit_engine.h"

namespace brisk {

std::unique_ptr<Engine> make_engine(const EngineOptions& opt) {
  if (opt.jit_regs > x64::kMaxMappedRegs) throw Error("--jit-regs must be at most {}", x64::kMaxMappedRegs);
  if (opt.name == "jit") return std::make_unique<JitEngine>(opt);
  if (opt.name == "interp") return std::make_unique<Interpreter>();
  if (opt.name == "check") return std::make_unique<CheckEngine>(opt);
  throw Error("unknown engine '{}' (choose jit, interp or check)", opt.name);
}

}  // namespace brisk
