/* /proc/self and its other spellings show the guest, never brisk: maps lists the guest's mappings,
 * cmdline/environ/auxv/stat/status/statm/comm/exe are the program's, mem is guest memory with the guest's
 * permissions, and entries that would expose brisk's own memory are refused. Run with arguments
 * "alpha" "b e t a" and the environment variable ISOLATION_ENV=yes. */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "isolation.h"

/* riscv64 Linux's user space ends here (Sv39). */
#define TASK_SIZE 0x4000000000ull

static volatile uint64_t target = 0x1122334455667788ull;
static char buf[1 << 16];
extern char **environ;

static size_t slurp(const char *path, char *out, size_t size) {
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, out + n, size - 1 - n);
        CHECK(r >= 0);
        if (r == 0) break;
        n += (size_t)r;
    }
    out[n] = 0;
    close(fd);
    return n;
}

/* The mem file at `path` reads and writes guest memory, and nothing else. */
static void check_mem(const char *path, int dirfd) {
    int fd = openat(dirfd, path, O_RDWR);
    if (fd < 0) fprintf(stderr, "open %s: %s\n", path, strerror(errno));
    CHECK(fd >= 0);
    uint64_t v = 0;
    CHECK_EQ(pread(fd, &v, sizeof v, (off_t)(uintptr_t)&target), sizeof v);
    CHECK_EQ(v, target);
    uint64_t w = v ^ 0xffff;
    CHECK_EQ(pwrite(fd, &w, sizeof w, (off_t)(uintptr_t)&target), sizeof w);
    CHECK_EQ(target, w);
    target = 0x1122334455667788ull;
    /* Not guest memory: where a host's x86-64 program and libraries live, and guest page 0. */
    static const uint64_t elsewhere[] = {0, 0x1000, 0x555555554000ull, 0x7ffff7dd0000ull, TASK_SIZE,
                                         0xffffffffffff0000ull};
    for (size_t k = 0; k < sizeof elsewhere / sizeof *elsewhere; k++) {
        CHECK_ERRNO(pread(fd, &v, sizeof v, (off_t)elsewhere[k]), EIO);
        CHECK_ERRNO(pwrite(fd, "\xcc", 1, (off_t)elsewhere[k]), EIO);
    }
    /* The file position is an address; there is no end to seek from. */
    CHECK_EQ(lseek(fd, (off_t)(uintptr_t)&target, SEEK_SET), (off_t)(uintptr_t)&target);
    CHECK_EQ(read(fd, &v, sizeof v), sizeof v);
    CHECK_EQ(v, target);
    CHECK_EQ(lseek(fd, 0, SEEK_CUR), (off_t)(uintptr_t)&target + 8);
    CHECK_ERRNO(lseek(fd, 0, SEEK_END), EINVAL);
    close(fd);
}

/* Every line of maps is a guest mapping below TASK_SIZE; the code, the stack and the heap are there. */
static void check_maps(const char *exe) {
    slurp("/proc/self/maps", buf, sizeof buf);
    uint64_t code = (uintptr_t)&check_maps, stack = (uintptr_t)&code, heap = (uintptr_t)malloc(1000);
    int saw_code = 0, saw_stack = 0, saw_heap = 0;
    for (char *line = buf; *line;) {
        char *nl = strchr(line, '\n');
        CHECK(nl != NULL);
        *nl = 0;
        unsigned long long lo, hi, off, ino;
        char perms[5];
        unsigned maj, min;
        int name_at = 0;
        CHECK_EQ(sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj, &min, &ino,
                        &name_at), 7);
        const char *name = line + name_at;
        if (lo >= TASK_SIZE || hi > TASK_SIZE || lo >= hi) fprintf(stderr, "not a guest mapping: %s\n", line);
        CHECK(lo < hi && hi <= TASK_SIZE);
        /* Not brisk's executable (build/brisk): a test tree's own path may well contain "brisk". */
        const char *base = strrchr(name, '/');
        CHECK(base == NULL || strcmp(base, "/brisk") != 0);
        if (code >= lo && code < hi) {
            saw_code = 1;
            CHECK_EQ(perms[0], 'r');
            CHECK_EQ(perms[2], 'x');
            CHECK_STR(name, exe);
        }
        if (stack >= lo && stack < hi) {
            saw_stack = 1;
            CHECK_STR(name, "[stack]");
        }
        if (heap >= lo && heap < hi) {
            saw_heap = 1;
            CHECK_STR(name, "[heap]");
        }
        line = nl + 1;
    }
    CHECK(saw_code && saw_stack && saw_heap);
}

/* A NUL-separated file equals the strings of `list`. */
static void check_strings(const char *path, char **list) {
    size_t n = slurp(path, buf, sizeof buf), at = 0;
    for (; *list; list++) {
        CHECK(at < n);
        CHECK_STR(buf + at, *list);
        at += strlen(*list) + 1;
    }
    CHECK_EQ(at, n);
}

static void check_auxv(void) {
    int fd = open("/proc/self/auxv", O_RDONLY);
    CHECK(fd >= 0);
    uint64_t aux[128];
    ssize_t n = read(fd, aux, sizeof aux);
    close(fd);
    CHECK(n > 0 && n % 16 == 0);
    int saw_entry = 0;
    for (ssize_t k = 0; k < n / 8; k += 2) {
        if (aux[k] == AT_NULL) {
            CHECK_EQ((k + 2) * 8, n);  /* AT_NULL ends the file */
            break;
        }
        if (aux[k] == AT_ENTRY) saw_entry = 1;
        CHECK_EQ(aux[k + 1], getauxval(aux[k]));
    }
    CHECK(saw_entry);
    CHECK_EQ(getauxval(AT_PAGESZ), 4096);
}

static void check_stat(const char *comm, char **argv) {
    slurp("/proc/self/stat", buf, sizeof buf);
    char expect[64];
    snprintf(expect, sizeof expect, "%d (%.15s) ", getpid(), comm);
    CHECK(strncmp(buf, expect, strlen(expect)) == 0);
    /* Fields after the name: 3 state ... 20 num_threads, 28 startstack, 48..51 the argument and environment strings. */
    unsigned long long f[64] = {0};
    char *p = strrchr(buf, ')') + 2;
    int k = 3;
    f[k++] = (unsigned char)*p;
    p += 2;
    for (; k < 64 && *p; k++) f[k] = strtoull(p, &p, 10);
    CHECK(k >= 52);
    CHECK_EQ(f[4], getppid());
    CHECK_EQ(f[20], 1);
    uint64_t here = (uintptr_t)&k;
    CHECK(f[28] > here && f[28] < TASK_SIZE);  /* the initial stack pointer is above any frame */
    CHECK_EQ(f[26] <= (uintptr_t)&check_stat && (uintptr_t)&check_stat < f[27], 1);
    CHECK_EQ(f[48], (uintptr_t)argv[0]);
    CHECK_EQ(f[50], (uintptr_t)environ[0]);
}

/* status and statm: the guest's name, thread count, address-space size and text size. */
static void check_status(const char *comm) {
    slurp("/proc/self/status", buf, sizeof buf);
    char expect[64];
    snprintf(expect, sizeof expect, "Name:\t%.15s\n", comm);
    CHECK(strncmp(buf, expect, strlen(expect)) == 0);
    CHECK(strstr(buf, "\nThreads:\t1\n") != NULL);
    const char *vm = strstr(buf, "\nVmSize:");
    CHECK(vm != NULL);
    unsigned long long vm_kb = strtoull(vm + 8, NULL, 10);
    static char statm[256];
    slurp("/proc/self/statm", statm, sizeof statm);
    char *p = statm;
    unsigned long long size = strtoull(p, &p, 10);
    strtoull(p, &p, 10); /* resident */
    strtoull(p, &p, 10); /* shared */
    unsigned long long text = strtoull(p, &p, 10);
    CHECK_EQ(size * 4, vm_kb);
    /* Far below brisk's own address space, which reserves gigabytes for the guest. */
    CHECK(vm_kb > 0 && vm_kb < 512 * 1024);
    CHECK(text > 0 && text < size);
}

static void check_exe(const char *exe) {
    char link[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", link, sizeof link - 1);
    CHECK(n > 0);
    link[n] = 0;
    CHECK_STR(link, exe);
    snprintf(buf, sizeof buf, "/proc/%d/exe", getpid());
    n = readlink(buf, link, sizeof link - 1);
    CHECK(n > 0);
    link[n] = 0;
    CHECK_STR(link, exe);
    /* Opening it opens the riscv64 program, not the emulator. */
    int fd = open("/proc/self/exe", O_RDONLY);
    CHECK(fd >= 0);
    Elf64_Ehdr eh;
    CHECK_EQ(read(fd, &eh, sizeof eh), sizeof eh);
    CHECK(memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0);
    CHECK_EQ(eh.e_machine, EM_RISCV);
    close(fd);
    struct stat a, b;
    CHECK_EQ(stat("/proc/self/exe", &a), 0);
    CHECK_EQ(stat(exe, &b), 0);
    CHECK_EQ(a.st_ino, b.st_ino);
    CHECK_EQ(a.st_size, b.st_size);
}

/* Writing code through mem reaches instruction fetch after fence.i, as a store does. */
static void check_mem_code(void) {
    uint32_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(code != MAP_FAILED);
    code[0] = 0x00100513; /* li a0, 1 */
    code[1] = 0x00008067; /* ret */
    __asm__ volatile("fence.i" ::: "memory");
    int (*fn)(void) = (int (*)(void))code;
    CHECK_EQ(fn(), 1);
    CHECK_EQ(fn(), 1);
    int fd = open("/proc/self/mem", O_RDWR);
    CHECK(fd >= 0);
    uint32_t li2 = 0x00200513; /* li a0, 2 */
    CHECK_EQ(pwrite(fd, &li2, 4, (off_t)(uintptr_t)code), 4);
    close(fd);
    __asm__ volatile("fence.i" ::: "memory");
    CHECK_EQ(fn(), 2);
    /* As a debugger's, mem's access ignores the protections of private mappings (Linux's
     * FOLL_FORCE): it writes read-only code and data and reads PROT_NONE, and the mapping keeps its
     * protection. A shared mapping without write permission stays unwritable. */
    CHECK_EQ(mprotect(code, 4096, PROT_READ | PROT_EXEC), 0);
    uint32_t li3 = 0x00300513; /* li a0, 3 */
    fd = open("/proc/self/mem", O_RDWR);
    CHECK_EQ(pwrite(fd, &li3, 4, (off_t)(uintptr_t)code), 4);
    __asm__ volatile("fence.i" ::: "memory");
    CHECK_EQ(fn(), 3);
    uint64_t *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(ro != MAP_FAILED);
    CHECK_EQ(pwrite(fd, "x", 1, (off_t)(uintptr_t)ro), 1);
    CHECK_EQ(*(volatile char *)ro, 'x');
    CHECK_EQ(mprotect(ro, 4096, PROT_NONE), 0);
    char c = 0;
    CHECK_EQ(pread(fd, &c, 1, (off_t)(uintptr_t)ro), 1);
    CHECK_EQ(c, 'x');
    int self = open("/proc/self/exe", O_RDONLY);
    CHECK(self >= 0);
    char *shared = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self, 0);
    CHECK(shared != MAP_FAILED);
    CHECK_ERRNO(pwrite(fd, "x", 1, (off_t)(uintptr_t)shared), EIO);
    CHECK_EQ(pread(fd, &c, 1, (off_t)(uintptr_t)shared + 1), 1);
    CHECK_EQ(c, 'E');
    munmap(shared, 4096);
    close(self);
    /* Nothing mapped: EIO; a buffer the program may not write: EFAULT. */
    munmap(code, 4096);
    CHECK_ERRNO(pread(fd, &li2, 4, (off_t)(uintptr_t)code), EIO);
    CHECK_ERRNO(pread(fd, ro, 1, (off_t)(uintptr_t)&li2), EFAULT);
    munmap(ro, 4096);
    close(fd);
}

int main(int argc, char **argv) {
    CHECK_EQ(argc, 3);
    char exe[PATH_MAX];
    CHECK(realpath(argv[0], exe) != NULL);
    const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

    check_maps(exe);
    check_strings("/proc/self/cmdline", argv);
    check_strings("/proc/self/environ", environ);
    CHECK(getenv("ISOLATION_ENV") && strcmp(getenv("ISOLATION_ENV"), "yes") == 0);
    check_auxv();
    check_stat(base, argv);
    check_status(base);
    check_exe(exe);
    slurp("/proc/self/comm", buf, sizeof buf);
    char comm[32];
    snprintf(comm, sizeof comm, "%.15s\n", base);
    CHECK_STR(buf, comm);

    /* mem, however it is named. */
    char path[PATH_MAX];
    check_mem("/proc/self/mem", AT_FDCWD);
    snprintf(path, sizeof path, "/proc/%d/mem", getpid());
    check_mem(path, AT_FDCWD);
    check_mem("/proc/thread-self/mem", AT_FDCWD);
    snprintf(path, sizeof path, "/proc/self/task/%d/mem", getpid());
    check_mem(path, AT_FDCWD);
    check_mem("/proc/self/../self/mem", AT_FDCWD);
    int proc = open("/proc", O_RDONLY | O_DIRECTORY);
    CHECK(proc >= 0);
    check_mem("self/mem", proc);
    int fds = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);
    CHECK(fds >= 0);
    check_mem("../mem", fds);
    snprintf(path, sizeof path, "isolation-mem-link-%d", getpid());
    unlink(path);
    CHECK_EQ(symlink("/proc/self/mem", path), 0);
    check_mem(path, AT_FDCWD);
    unlink(path);
    /* An O_PATH descriptor reopened through /proc/self/fd. */
    int opath = open("/proc/self/mem", O_PATH);
    CHECK(opath >= 0);
    snprintf(path, sizeof path, "/proc/self/fd/%d", opath);
    check_mem(path, AT_FDCWD);
    close(opath);
    check_mem_code();

    /* maps through the other spellings is the same file. */
    static char again[sizeof buf];
    slurp("/proc/thread-self/maps", again, sizeof again);
    slurp("/proc/self/maps", buf, sizeof buf);
    CHECK_STR(again, buf);

    /* Entries that would show brisk's own memory or registers are refused. */
    static const char *refused[] = {"pagemap", "smaps", "smaps_rollup", "syscall", "map_files", "clear_refs"};
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
        snprintf(path, sizeof path, "/proc/self/%s", refused[k]);
        CHECK_ERRNO(open(path, O_RDONLY), EACCES);
        snprintf(path, sizeof path, "/proc/thread-self/%s", refused[k]);
        /* A task has no map_files of its own. */
        CHECK_ERRNO(open(path, O_RDONLY), strcmp(refused[k], "map_files") ? EACCES : ENOENT);
    }

    /* No descriptor the guest can use is brisk's: each one it can query it can also replace. */
    struct rlimit lim;
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
    for (int fd = 3; fd < (int)lim.rlim_cur && fd < 65536; fd++) {
        if (fd == proc || fd == fds || fcntl(fd, F_GETFD) < 0) continue;
        CHECK_EQ(dup3(0, fd, 0), fd);
        CHECK_EQ(close(fd), 0);
    }
    return 0;
}
