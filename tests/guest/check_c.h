/* Shared checks for the C guest programs. The first failing check prints
 *   FAIL <file>:<line>: <expression>: expected ..., got ...
 * to stderr and exits with status 1; a program that returns from main has passed. */
#ifndef GUEST_CHECK_C_H
#define GUEST_CHECK_C_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);           \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define CHECK_EQ(got, expected)                                                       \
    do {                                                                              \
        unsigned long long g_ = (unsigned long long)(got);                            \
        unsigned long long e_ = (unsigned long long)(expected);                       \
        if (g_ != e_) {                                                               \
            fprintf(stderr, "FAIL %s:%d: %s == %s: expected %lld (0x%llx), got %lld (0x%llx)\n", \
                    __FILE__, __LINE__, #got, #expected, (long long)e_, e_, (long long)g_, g_); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define CHECK_STR(got, expected)                                                      \
    do {                                                                              \
        const char *g_ = (got);                                                       \
        const char *e_ = (expected);                                                  \
        if (g_ == NULL || strcmp(g_, e_) != 0) {                                      \
            fprintf(stderr, "FAIL %s:%d: %s: expected \"%s\", got \"%s\"\n",          \
                    __FILE__, __LINE__, #got, e_, g_ ? g_ : "(null)");                \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#endif
