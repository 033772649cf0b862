/* The initial process state: argv (CTest passes: alpha "b e t a" --gamma=1 ""), envp (CTest sets
 * BRISK_GUEST_ENV="hello world=1"), and the auxiliary vector glibc and programs read. */
#include <elf.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "check_c.h"

extern char _start[];

int main(int argc, char **argv, char **envp)
{
    CHECK_EQ(argc, 5);
    const char *base = strrchr(argv[0], '/');
    CHECK_STR(base ? base + 1 : argv[0], "args");
    CHECK_STR(argv[1], "alpha");
    CHECK_STR(argv[2], "b e t a");
    CHECK_STR(argv[3], "--gamma=1");
    CHECK_STR(argv[4], "");
    CHECK(argv[5] == NULL);

    CHECK_STR(getenv("BRISK_GUEST_ENV"), "hello world=1");
    int seen = 0;
    for (char **e = envp; *e; e++)
        if (strcmp(*e, "BRISK_GUEST_ENV=hello world=1") == 0)
            seen++;
    CHECK_EQ(seen, 1);
    CHECK(envp == argv + argc + 1);

    CHECK_EQ(getauxval(AT_PAGESZ), 4096);
    CHECK_EQ(getauxval(AT_ENTRY), (uintptr_t)_start);
    CHECK(getauxval(AT_PHDR) != 0);
    CHECK_EQ(getauxval(AT_PHENT), sizeof(Elf64_Phdr));
    CHECK(getauxval(AT_PHNUM) > 0);
    CHECK_EQ(getauxval(AT_SECURE), 0);
    CHECK_EQ(getauxval(AT_UID), getuid());
    CHECK_EQ(getauxval(AT_GID), getgid());
    const unsigned char *rnd = (const unsigned char *)getauxval(AT_RANDOM);
    CHECK(rnd != NULL);
    int nonzero = 0;
    for (int i = 0; i < 16; i++)
        nonzero |= rnd[i];
    CHECK(nonzero != 0);
    /* The single-letter ISA bits: I M A F D C. */
    unsigned long hwcap = getauxval(AT_HWCAP);
    for (const char *c = "IMAFDC"; *c; c++)
        CHECK(hwcap & (1ul << (*c - 'A')));
    const char *execfn = (const char *)getauxval(AT_EXECFN);
    CHECK(execfn != NULL);
    CHECK_STR(strrchr(execfn, '/') ? strrchr(execfn, '/') + 1 : execfn, "args");

    /* The stack is usable well below the initial pointer. */
    volatile char deep[512 * 1024];
    deep[0] = 1;
    deep[sizeof deep - 1] = 2;
    CHECK_EQ(deep[0] + deep[sizeof deep - 1], 3);
    return 0;
}
