// OutputFile (runtime/output_file.h): what its writer thread writes, and a forked child's copy.
#include "runtime/output_file.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

#include "tests/unit/temp_dir.h"

namespace brisk {
namespace {

class OutputFileTest : public TempDirTest {
 protected:
  std::vector<uint8_t> read_back() const {
    std::ifstream in(dir_ + "/out", std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
};

// Chunks of every size around the 256 KiB buffer, one larger than it, and a patch of bytes long
// written out: the file holds exactly the bytes in order.
TEST_F(OutputFileTest, WritesEveryByteInOrder) {
  std::vector<uint8_t> expected;
  {
    OutputFile f(dir_ + "/out", "test output");
    uint32_t x = 1;
    for (size_t n : {size_t(1), size_t(100), size_t(4096), size_t(200000), size_t(70000), size_t(300000), size_t(3)}) {
      std::vector<uint8_t> chunk(n);
      for (auto& b : chunk) b = static_cast<uint8_t>((x = x * 1103515245 + 12345) >> 16);
      for (int rep = 0; rep < 3; rep++) {
        f.write(chunk.data(), chunk.size());
        expected.insert(expected.end(), chunk.begin(), chunk.end());
      }
    }
    EXPECT_EQ(f.size(), expected.size());
    const uint8_t patch[4] = {0xde, 0xad, 0xbe, 0xef};
    f.write_at(10, patch, sizeof(patch));  // long since handed to the writer thread
    std::copy(std::begin(patch), std::end(patch), expected.begin() + 10);
    f.commit();
  }
  const std::vector<uint8_t> got = read_back();
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

// A forked child that destroys its copy (brisk's child unwinding after an error) leaves the
// parent's temporary alone: the parent still commits the whole file.
TEST_F(OutputFileTest, AForkedChildsCopyLeavesTheFileToItsParent) {
  auto f = std::make_unique<OutputFile>(dir_ + "/out", "test output");
  const std::vector<uint8_t> data(1 << 20, 0x5a);
  f->write(data.data(), data.size());  // the writer thread is running
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    f.reset();
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  f->write(data.data(), data.size());
  f->commit();
  EXPECT_EQ(read_back().size(), 2 * data.size());
}

}  // namespace
}  // namespace brisk
