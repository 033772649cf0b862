/* The guest's CPUs (brisk run --cpus N): sched_getaffinity, sysconf(_SC_NPROCESSORS_ONLN) and
 * _SC_NPROCESSORS_CONF (from /sys/devices/system/cpu/online and possible), /proc/cpuinfo and
 * riscv_hwprobe's cpu sets all name the same CPUs 0..N-1; sched_setaffinity narrows a thread's, as
 * /proc/self/status and a new thread then show. `cpus N` also checks that there are N. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check_c.h"

/* The first line of a file, without its newline. */
static void first_line(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    CHECK(fgets(out, (int)size, f) != NULL);
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

/* The value of a /proc/self/status line. */
static const char *status_line(const char *key, char *out, size_t size)
{
    FILE *f = fopen("/proc/self/status", "r");
    CHECK(f != NULL);
    while (fgets(out, (int)size, f))
        if (strncmp(out, key, strlen(key)) == 0) {
            fclose(f);
            out[strcspn(out, "\n")] = '\0';
            return out + strlen(key) + strspn(out + strlen(key), "\t ");
        }
    fclose(f);
    return NULL;
}

static void *count_cpus(void *arg)
{
    cpu_set_t set;
    CHECK_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    *(int *)arg = CPU_COUNT(&set);
    return NULL;
}

int main(int argc, char **argv)
{
    CHECK(argc <= 2);
    cpu_set_t set;
    CPU_ZERO(&set);
    CHECK_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    const int n = CPU_COUNT(&set);
    printf("%d CPUs\n", n);
    CHECK(n >= 1);
    if (argc == 2)
        CHECK_EQ(n, atoi(argv[1]));
    const cpu_set_t all = set;
    for (int c = 0; c < n; c++)
        CHECK(CPU_ISSET(c, &set));  /* 0..n-1, none missing */

    /* The raw syscall: a mask of longs, at least nr_cpu_ids bits; it returns the bytes it wrote
     * (cpumask_size(): nr_cpu_ids or NR_CPUS bits, as the kernel was built), none set past n. */
    uint64_t raw[CPU_SETSIZE / 64];
    memset(raw, 0xff, sizeof raw);
    const long bytes = syscall(SYS_sched_getaffinity, 0, sizeof raw, raw);
    CHECK(bytes >= (n + 63) / 64 * 8 && bytes % 8 == 0);
    if ((size_t)bytes < sizeof raw)
        CHECK_EQ(raw[bytes / 8], ~0ull);  /* nothing written past them */
    for (int c = n; c < bytes * 8; c++)
        CHECK_EQ((raw[c / 64] >> (c % 64)) & 1, 0);
    CHECK_EQ(syscall(SYS_sched_getaffinity, 0, 4, raw), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(syscall(SYS_sched_getaffinity, 0, sizeof raw, (void *)8), -1);
    CHECK_EQ(errno, EFAULT);
    CHECK_EQ(sched_getaffinity(gettid(), sizeof set, &set), 0);
    CHECK_EQ(CPU_COUNT(&set), n);

    CHECK_EQ(sysconf(_SC_NPROCESSORS_ONLN), n);
    CHECK_EQ(sysconf(_SC_NPROCESSORS_CONF), n);
    char want[32], line[256];
    if (n == 1)
        snprintf(want, sizeof want, "0");
    else
        snprintf(want, sizeof want, "0-%d", n - 1);
    first_line("/sys/devices/system/cpu/online", line, sizeof line);
    CHECK_STR(line, want);
    first_line("/sys/devices/system/cpu/possible", line, sizeof line);
    CHECK_STR(line, want);
    first_line("/sys/devices/system/cpu/present", line, sizeof line);
    CHECK_STR(line, want);

#ifndef GUEST_QEMU_REF /* qemu-riscv64 7.2 shows the host's /proc/cpuinfo and has no riscv_hwprobe */
    /* One "processor : k" and one "hart : k" per CPU, in order, each with the ISA string. */
    FILE *f = fopen("/proc/cpuinfo", "r");
    CHECK(f != NULL);
    int processors = 0, harts = 0, isas = 0, k;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "processor\t: %d", &k) == 1) {
            CHECK_EQ(k, processors);
            processors++;
        } else if (sscanf(line, "hart\t\t: %d", &k) == 1) {
            CHECK_EQ(k, harts);
            harts++;
        } else if (strncmp(line, "isa\t\t: rv64imafdc", 17) == 0) {
            isas++;
        }
    }
    fclose(f);
    CHECK_EQ(processors, n);
    CHECK_EQ(harts, n);
    CHECK_EQ(isas, n);

    /* riscv_hwprobe (258) answers for a set naming the last CPU; one past it is no CPU of the guest. */
    struct { int64_t key; uint64_t value; } pair = {0, 1};  /* mvendorid */
    uint8_t cpus[CPU_SETSIZE / 8] = {0};
    cpus[(n - 1) / 8] = (uint8_t)(1u << ((n - 1) % 8));
    CHECK_EQ(syscall(258, &pair, 1, sizeof cpus, cpus, 0), 0);
    CHECK_EQ(pair.value, 0);
    memset(cpus, 0, sizeof cpus);
    cpus[n / 8] = (uint8_t)(1u << (n % 8));
    CHECK_EQ(syscall(258, &pair, 1, sizeof cpus, cpus, 0), -1);
    CHECK_EQ(errno, EINVAL);
#endif

    /* /proc/self/status lists them, and sched_setaffinity narrows them to one, which a new thread
     * inherits; a set of none of the guest's CPUs is refused. */
    CHECK_STR(status_line("Cpus_allowed_list:", line, sizeof line), want);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(n - 1, &one);
    CHECK_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    CHECK_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    CHECK(CPU_EQUAL(&set, &one));
    snprintf(want, sizeof want, "%d", n - 1);
    CHECK_STR(status_line("Cpus_allowed_list:", line, sizeof line), want);
    pthread_t th;
    int inherited = 0;
    CHECK_EQ(pthread_create(&th, NULL, count_cpus, &inherited), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(inherited, 1);
    cpu_set_t none;
    CPU_ZERO(&none);
    CPU_SET(CPU_SETSIZE - 1, &none);
    CHECK_EQ(sched_setaffinity(0, sizeof none, &none), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(sched_setaffinity(0, sizeof all, &all), 0);
    CHECK_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    CHECK_EQ(CPU_COUNT(&set), n);

    unsigned cpu = ~0u;
    CHECK_EQ(getcpu(&cpu, NULL), 0);
    CHECK(cpu < (unsigned)n);
    return 0;
}
