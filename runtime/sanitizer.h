#pragma once

// BRISK_ASAN: built with AddressSanitizer (GCC's and clang's ways of saying so).
#if defined(__SANITIZE_ADDRESS__)
#define BRISK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BRISK_ASAN 1
#endif
#endif
