/* Loop-heavy kernels with known results: a sieve of Eratosthenes, bitwise CRC-32, Collatz chain
 * lengths, and a matrix product in doubles that holds only exact integers. */
#include <stdint.h>

#include "check_c.h"

#define LIMIT 2000000
#define M 96

static uint32_t crc32(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
    }
    return ~crc;
}

int main(void)
{
    static unsigned char composite[LIMIT];
    unsigned count = 0;
    uint64_t sum = 0;
    for (uint64_t i = 2; i < LIMIT; i++) {
        if (composite[i])
            continue;
        count++;
        sum += i;
        for (uint64_t j = i * i; j < LIMIT; j += i)
            composite[j] = 1;
    }
    CHECK_EQ(count, 148933);
    CHECK_EQ(sum, 142913828922ull);

    CHECK_EQ(crc32((const unsigned char *)"123456789", 9), 0xcbf43926u);
    static unsigned char buf[1 << 20];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i ^ (i >> 8) ^ (i >> 16));
    CHECK_EQ(crc32(buf, sizeof buf), 0x0354c631u);

    unsigned best = 0, best_start = 0;
    for (unsigned s = 1; s < 300000; s++) {
        uint64_t x = s;
        unsigned len = 1;
        while (x != 1) {
            x = (x & 1) ? 3 * x + 1 : x / 2;
            len++;
        }
        if (len > best) {
            best = len;
            best_start = s;
        }
    }
    CHECK_EQ(best_start, 230631u);
    CHECK_EQ(best, 443u);

    static double a[M][M], b[M][M], c[M][M];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++) {
            a[i][j] = (i * 7 + j * 3) % 17 - 8;
            b[i][j] = (i * 5 + j * 11) % 13 - 6;
        }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++) {
            double s = 0;
            for (int k = 0; k < M; k++)
                s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
    int64_t trace = 0, total = 0;
    for (int i = 0; i < M; i++) {
        trace += (int64_t)c[i][i];
        for (int j = 0; j < M; j++)
            total += (int64_t)c[i][j] * (i + 2 * j + 1);
    }
    CHECK_EQ(trace, 191);
    CHECK_EQ(total, 13533);
    return 0;
}
