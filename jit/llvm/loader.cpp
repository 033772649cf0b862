// Loads the LLVM tier's module (jit/llvm/region.h) when the tier is on, so that brisk itself does
// not link libLLVM: a run without the tier starts as fast as a build without it.
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <mutex>
#include <string>

#include "jit/llvm/region.h"

namespace brisk::tier2 {

namespace {

std::atomic<bool> g_forked{false};  // this process is the child of a fork after a compiler existed

// brisk_tier2.so next to the executable, else where this build made it.
void* open_module(std::string& error) {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string dir = n > 0 ? std::string(exe, static_cast<size_t>(n)) : std::string();
  dir = dir.substr(0, dir.rfind('/') + 1);
  for (const std::string& path : {dir + "brisk_tier2.so", std::string(BRISK_TIER2_MODULE)}) {
    if (void* m = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return m;
    error = dlerror();
  }
  return nullptr;
}

}  // namespace

std::mutex& work_lock() {
  static std::mutex m;
  return m;
}

namespace {
std::atomic<bool> g_abandoned{false};
}  // namespace

void note_abandoned() { g_abandoned.store(true, std::memory_order_release); }
bool any_abandoned() { return g_abandoned.load(std::memory_order_acquire); }

bool Compiler::available() { return !g_forked.load(std::memory_order_relaxed); }

std::unique_ptr<Compiler> Compiler::load(const Options& opt, std::string& error) {
  // Loaded once and never unloaded: regions' code and the compilers' threads belong to it.
  static std::once_flag once;
  static void* module = nullptr;
  static std::string load_error;
  std::call_once(once, [] {
    module = open_module(load_error);
    pthread_atfork(nullptr, nullptr, [] { g_forked.store(true, std::memory_order_relaxed); });
  });
  auto* create = module ? reinterpret_cast<decltype(&brisk_tier2_create)>(dlsym(module, "brisk_tier2_create")) : nullptr;
  if (!create) {
    error = module ? "brisk_tier2.so has no brisk_tier2_create" : load_error;
    return nullptr;
  }
  return std::unique_ptr<Compiler>(create(opt));
}

}  // namespace brisk::tier2
