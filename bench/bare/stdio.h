/* The bench kernels built bare-metal for brisk system (bench/ete-system): printf is bench/bare/printf.c. */
#pragma once
int printf(const char *fmt, ...);
