/* stdio to stdout through the C library (buffered printf/puts/fwrite flushed at exit, plus a
 * direct write), and printf formatting, which exercises integer and FP code in glibc.
 * CTest compares stdout with hello.expected. */
#include <stdint.h>
#include <unistd.h>

#include "check_c.h"

int main(void)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%d %u %x %o %c %s", -42, 42u, 0xbeefu, 8u, 'Z', "str");
    CHECK_STR(buf, "-42 42 beef 10 Z str");
    snprintf(buf, sizeof buf, "%lld %llu", (long long)INT64_MIN, (unsigned long long)UINT64_MAX);
    CHECK_STR(buf, "-9223372036854775808 18446744073709551615");
    snprintf(buf, sizeof buf, "%.5f %.3e %g %g %a", 3.14159265358979, -0.0025, 1e10, 0.1, 1.0);
    CHECK_STR(buf, "3.14159 -2.500e-03 1e+10 0.1 0x1p+0");
    snprintf(buf, sizeof buf, "[%8.3f] [%-6d] [%06d] [%+d]", 2.0 / 3.0, 7, -7, 5);
    CHECK_STR(buf, "[   0.667] [7     ] [-00007] [+5]");
    CHECK_EQ(strtod("6.02214076e23", NULL) == 6.02214076e23, 1);
    CHECK_EQ(strtoll("-123456789012", NULL, 10), -123456789012LL);

    puts("hello, world");
    printf("int %d hex %#x str [%s] char %c\n", 42, 0xdeadbeefu, "brisk", 'Z');
    printf("float %.5f %.2e %g\n", 3.14159265, -0.0025, 1e10);
    fputs("fputs line\n", stdout);
    fwrite("fwrite line\n", 1, 12, stdout);
    fflush(stdout);
    CHECK_EQ(write(1, "write line\n", 11), 11);
    printf("last line, flushed by exit\n");
    return 0;
}
