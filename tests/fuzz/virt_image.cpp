// System-mode image loading (runtime/virt_machine): the input is one control byte and then a file,
// loaded as firmware, kernel (ELF, RISC-V Linux Image or flat binary) and initrd as the control
// byte says, with the device tree placed after them. Bad images must be refused with brisk::Error.
#include <fcntl.h>

#include "runtime/error.h"
#include "runtime/virt_machine.h"
#include "tests/fuzz/fuzz.h"

using namespace brisk;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The console UART puts a terminal on stdin into raw mode.
  int null = open("/dev/null", O_RDONLY);
  dup2(null, STDIN_FILENO);
  close(null);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  const uint8_t control = in.take<uint8_t>();
  fuzz::MemFile file(in.rest(), in.left());
  fuzz::MemFile tiny("\x73\x00\x10\x00", 4);  // ebreak: a flat firmware image
  SystemOptions opt;
  opt.engine.name = "interp";
  opt.ram_size = (16ull + 16 * ((control >> 4) & 3)) << 20;
  opt.harts = 1 + ((control >> 6) & 3);
  switch (control & 3) {
    case 0:  // bare metal: the file is the kernel, run in M-mode
      opt.bios = "none";
      opt.kernel = file.path();
      break;
    case 1:  // the file is the firmware
      opt.bios = file.path();
      break;
    case 2:  // the file is the kernel after a firmware
      opt.bios = tiny.path();
      opt.kernel = file.path();
      break;
    case 3:  // the file is the initrd too
      opt.bios = tiny.path();
      opt.kernel = file.path();
      opt.initrd = file.path();
      break;
  }
  if (control & 4) opt.append = "console=ttyS0 earlycon";
  try {
    VirtMachine m(opt);
  } catch (const Error&) {
  }
  return 0;
}
