// Defaults for the sanitizer runtimes in a BRISK_SANITIZE build; ASAN_OPTIONS / UBSAN_OPTIONS in the
// environment still override them.

// SIGSEGV and SIGBUS on guest memory are brisk's own (runtime/host_fault.cpp): ASan must not take them.
extern "C" const char* __asan_default_options() {
  return "handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:detect_leaks=1";
}

extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }
