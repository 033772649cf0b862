/* AT_HWCAP and riscv_hwprobe's RISCV_HWPROBE_KEY_IMA_EXT_0 name exactly the extensions --cpu leaves on:
 *   hwcap LETTERS EXT,EXT,...
 * (the single letters, then the multi-letter extensions hwprobe knows, as the test's --cpu leaves
 * them). RISCV_HWPROBE_KEY_CPUPERF_0 reports misaligned accesses fast, which is what glibc's memcpy
 * IFUNC looks for. The hwprobe bits are the kernel's (arch/riscv/include/uapi/asm/hwprobe.h),
 * written here. */
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "check_c.h"

struct hwprobe_pair {
    long long key;
    unsigned long long value;
};
#define KEY_IMA_EXT_0 4
#define KEY_CPUPERF_0 5
#define MISALIGNED_MASK 7
#define MISALIGNED_FAST 3
static const struct {
    const char *name;
    unsigned long long bit;
} kExt[] = {
    {"zba", 1ull << 3}, {"zbb", 1ull << 4}, {"zbs", 1ull << 5}, {"zicboz", 1ull << 6}, {"zicond", 1ull << 35},
};

int main(int argc, char **argv)
{
    CHECK(argc == 3);
    unsigned long letters = 0;
    for (const char *c = argv[1]; *c; c++)
        letters |= 1ul << (*c - 'A');
    CHECK_EQ(getauxval(AT_HWCAP) & ((1ul << 26) - 1), letters);

    unsigned long long want = 0, known = 1ull << 0 | 1ull << 1; /* IMA_FD, IMA_C */
    if ((letters >> ('F' - 'A') & 1) && (letters >> ('D' - 'A') & 1))
        want |= 1ull << 0;
    if (letters >> ('C' - 'A') & 1)
        want |= 1ull << 1;
    for (unsigned k = 0; k < sizeof kExt / sizeof kExt[0]; k++) {
        known |= kExt[k].bit;
        for (const char *p = argv[2]; (p = strstr(p, kExt[k].name)); p++)
            if ((p == argv[2] || p[-1] == ',') && (p[strlen(kExt[k].name)] == ',' || !p[strlen(kExt[k].name)]))
                want |= kExt[k].bit;
    }
    struct hwprobe_pair pair = {KEY_IMA_EXT_0, 0};
    CHECK_EQ(syscall(258, &pair, 1, 0, NULL, 0), 0);
    CHECK_EQ(pair.key, KEY_IMA_EXT_0);
    CHECK_EQ(pair.value & known, want);

    struct hwprobe_pair perf = {KEY_CPUPERF_0, 0};
    CHECK_EQ(syscall(258, &perf, 1, 0, NULL, 0), 0);
    CHECK_EQ(perf.key, KEY_CPUPERF_0);
    CHECK_EQ(perf.value & MISALIGNED_MASK, MISALIGNED_FAST);
    return 0;
}
