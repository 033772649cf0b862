// Threads of brisk's own (a file's writer, the LLVM tier's compiler) start with every signal
// blocked: those sent to brisk's process (a guest's timers, SIGINT, SIGUSR1) must reach the threads
// that run harts. They run at a nice `nicer` (5) above the thread that starts them: woken for work,
// they would otherwise take the CPU of the harts whenever no other CPU is idle.
#pragma once

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <thread>
#include <utility>

namespace brisk {

template <typename F>
std::thread quiet_thread(F&& f, int nicer = 5) {
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);  // the new thread inherits the mask
  try {
    std::thread t([nice = getpriority(PRIO_PROCESS, 0) + nicer, f = std::forward<F>(f)]() mutable {
      setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), nice);
      f();
    });
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    return t;
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    throw;
  }
}

}  // namespace brisk
