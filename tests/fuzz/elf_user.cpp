// User-mode ELF loading (runtime/elf_file, runtime/elf_loader, LinuxUser's initial stack): the input
// is an ELF file, loaded as a program and, into a second guest, as an interpreter. Bad files must
// be refused with brisk::Error, never crash.
#include "runtime/elf_loader.h"
#include "runtime/error.h"
#include "runtime/linux_user.h"
#include "tests/fuzz/fuzz.h"

using namespace brisk;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::MemFile file(data, size);
  UserOptions opt;
  opt.program = file.path();
  opt.argv = {"prog", "arg"};
  opt.envp = {"A=b"};
  opt.engine.name = "interp";
  try {
    LinuxUser user(opt);
  } catch (const Error&) {
  }
  try {
    GuestVm vm;
    load_elf(vm, file.path(), true);
  } catch (const Error&) {
  }
  return 0;
}
