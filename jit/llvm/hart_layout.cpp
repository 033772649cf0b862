// The Hart fields region code addresses by brisk's offsets (jit/llvm/region.cpp), compiled both into
// brisk and into the semantics' bitcode, so that a compilation can see that the two agree.
#include <cstddef>
#include <cstdint>

#include "runtime/hart.h"

namespace brisk::tier2 {

extern const uint64_t kHartLayout[6];
const uint64_t kHartLayout[6] = {sizeof(Hart),
                                 offsetof(Hart, x),
                                 offsetof(Hart, pc),
                                 offsetof(Hart, instret),
                                 offsetof(Hart, deadline),
                                 offsetof(Hart, code_written)};

}  // namespace brisk::tier2
