/* Jumps to address 0, where nothing is mapped: the fetch there faults and Linux sends SIGSEGV
 * (tests/guest/CMakeLists.txt checks brisk's exit status and line). */
#include "check.h"

TEST_BEGIN
    li a0, 0
    jr a0
TEST_END
