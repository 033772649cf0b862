// Threads of brisk's own (a file's writer, the LLVM tier's compiler) start with every signal
// blocked: those sent to brisk's process (a guest's timers, SIGINT, SIGUSR1) must reach the threads
// that run harts.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <thread>
#include <utility>

namespace brisk {

template <typename F>
std::thread quiet_thread(F&& f) {
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);  // the new thread inherits the mask
  try {
    std::thread t(std::forward<F>(f));
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    return t;
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    throw;
  }
}

}  // namespace brisk
