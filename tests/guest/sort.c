/* A call- and recursion-heavy kernel with known results: qsort (callbacks) against a recursive
 * merge sort on the same pseudo-random data, checksums, naive Fibonacci, Ackermann, and a
 * recursive N-queens count. */
#include <stdint.h>

#include "check_c.h"

#define N 200000

static uint32_t lcg = 12345;

static uint32_t next(void)
{
    lcg = lcg * 1103515245u + 12345u;
    return lcg >> 1;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void merge_sort(uint32_t *a, uint32_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(a, tmp, h);
    merge_sort(a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

static unsigned fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static unsigned long ack(unsigned long m, unsigned long n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}

static int queens(int n, int row, unsigned cols, unsigned d1, unsigned d2)
{
    if (row == n)
        return 1;
    int count = 0;
    for (int c = 0; c < n; c++) {
        unsigned a = 1u << c, b = 1u << (row + c), e = 1u << (row - c + n);
        if (!(cols & a) && !(d1 & b) && !(d2 & e))
            count += queens(n, row + 1, cols | a, d1 | b, d2 | e);
    }
    return count;
}

int main(void)
{
    static uint32_t a[N], b[N], tmp[N];
    uint64_t sum = 0;
    for (size_t i = 0; i < N; i++) {
        a[i] = b[i] = next();
        sum += a[i];
    }
    CHECK_EQ(sum, 214616175923744ull);
    qsort(a, N, sizeof a[0], cmp_u32);
    merge_sort(b, tmp, N);
    uint64_t weighted = 0;
    for (size_t i = 0; i < N; i++) {
        CHECK_EQ(a[i], b[i]);
        if (i)
            CHECK(a[i - 1] <= a[i]);
        weighted = weighted * 31 + a[i] * (uint64_t)(i + 1);
    }
    CHECK_EQ(a[0], 15975u);
    CHECK_EQ(a[N - 1], 2147474742u);
    CHECK_EQ(weighted, 0x589558d5094c8959ull);

    CHECK_EQ(fib(27), 196418);
    CHECK_EQ(ack(2, 2000), 4003);
    CHECK_EQ(ack(3, 6), 509);
    CHECK_EQ(queens(9, 0, 0, 0, 0), 352);
    return 0;
}
