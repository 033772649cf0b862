/* Control transfers translated code records between the points where it hands its state to C++
 * (jit/x64/translator.h): a loop of data-dependent branches that makes a system call every 1024
 * iterations (a helper call) and whose last iteration loads from an unmapped address (a guest fault
 * in the middle of a chain of blocks). The process dies of SIGSEGV, and its --ctr-dump at exit must
 * be the interpreter's (tests/integration/ctr_engines.sh). */
#include <stdint.h>
#include <unistd.h>

static volatile uint32_t cell = 1;

int main(void)
{
    uint32_t x = 2463534242u, sum = 0;
    volatile uint32_t *p = &cell;
    for (uint32_t i = 0;; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        if (x & 1)
            sum += x;
        else
            sum ^= i;
        if ((i & 1023) == 0)
            sum += (uint32_t)getpid();
        if (i == 4096 + 16) /* soon after a system call */
            p = (volatile uint32_t *)(uintptr_t)8; /* the page at 0 is never mapped */
        sum += *p;
    }
}
