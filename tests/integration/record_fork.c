// brisk record's fork and execve program (tests/integration/record_user.sh): the child runs
// child_work and exits 7; then the parent tries to execve itself with "exec", which prints and
// exits 5 where execve works (brisk run), and runs parent_work. It prints its pid and the child's
// to stderr, and the child's status and execve's result to stdout.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

__attribute__((noinline)) long child_work(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s = s * 7 + (i ^ (s >> 3));
  return s;
}

__attribute__((noinline)) long parent_work(long n) {
  long s = 1;
  for (long i = 0; i < n; i++) s = s * 5 + (i ^ (s >> 2));
  return s;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "exec") == 0) {
    printf("exec'd\n");
    return 5;
  }
  fprintf(stderr, "parent %d\n", (int)getpid());
  pid_t c = fork();
  if (c == 0) {
    fprintf(stderr, "child %d\n", (int)getpid());
    _exit(child_work(1000000) == 42 ? 8 : 7);
  }
  int st = 0;
  if (waitpid(c, &st, 0) != c) return 1;
  char* args[] = {argv[0], "exec", NULL};
  int r = execve(argv[0], args, environ);
  int e = errno;
  printf("child status %d, execve %d errno %d, %ld\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1, r, e,
         parent_work(1000000) & 1);
  return 0;
}
