/* Shared by the isolation programs: checks on check_c.h, plus one for a failing system call. */
#ifndef ISOLATION_H
#define ISOLATION_H

#include <errno.h>

#include "check_c.h"

/* `call` returns -1 with errno set to `e`. */
#define CHECK_ERRNO(call, e)   \
    do {                       \
        errno = 0;             \
        CHECK_EQ((call), -1);  \
        CHECK_EQ(errno, (e));  \
    } while (0)

#endif
