// OutputFile (runtime/output_file.h): what its writer thread writes, and a forked child's copy.
#include "runtime/output_file.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/sanitizer.h"
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

// Chunks of every size around the buffer, one larger than it, and a patch of bytes long
// written out: the file holds exactly the bytes in order.
TEST_F(OutputFileTest, WritesEveryByteInOrder) {
  std::vector<uint8_t> expected;
  {
    OutputFile f(dir_ + "/out", "test output");
    uint32_t x = 1;
    constexpr size_t kBuffer = OutputFile::kBufferSize;
    for (size_t n : {size_t(1), size_t(100), size_t(4096), kBuffer * 3 / 4, kBuffer / 4 + 7, kBuffer + 4099, size_t(3)}) {
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

// A path that is no regular file is written in place: here a link to /dev/null (the link, not the
// device, is what a rename would replace), so the link stays a link, and nothing else is left in
// its directory. The same for a perf.data whose header is patched at the end (write_at).
TEST_F(OutputFileTest, WritesADeviceInPlace) {
  const std::string link = dir_ + "/null";
  std::filesystem::create_symlink("/dev/null", link);
  {
    OutputFile f(link, "test output");
    const uint8_t bytes[3] = {1, 2, 3};
    f.write(bytes, sizeof bytes);
    f.write_at(0, bytes, 1);
    f.commit();
  }
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_TRUE(std::filesystem::is_character_file(link));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), std::filesystem::directory_iterator()), 1);
}

// Records built in place (append), between plain writes, of sizes that end buffers at every
// offset: each takes the bytes its fill wrote, no more than it said, in order.
TEST_F(OutputFileTest, AppendsRecordsBuiltInPlace) {
  std::vector<uint8_t> expected;
  {
    OutputFile f(dir_ + "/out", "test output");
    uint32_t x = 7;
    auto next = [&] { return static_cast<uint8_t>((x = x * 1103515245 + 12345) >> 16); };
    for (int i = 0; i < 700; i++) {
      const size_t max = 1 + (i * 6151) % OutputFile::kMaxAppend, used = max - (i % 3) * (max / 3);
      f.append(max, [&](uint8_t* p) {
        for (size_t k = 0; k < max; k++) p[k] = next();  // all of max, used or not
        expected.insert(expected.end(), p, p + used);
        return used;
      });
      const uint8_t between[5] = {next(), next(), next(), next(), next()};
      f.write(between, i % 5);
      expected.insert(expected.end(), between, between + i % 5);
    }
    EXPECT_EQ(f.size(), expected.size());
    EXPECT_THROW(f.append(OutputFile::kMaxAppend + 1, [](uint8_t*) { return size_t(0); }), Error);
    f.commit();
  }
  const std::vector<uint8_t> got = read_back();
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

// The writer thread runs below the thread that fills its buffers (nice 5, as tier 2's compiler),
// so that waking it does not take a busy machine's CPU from the guest being sampled.
TEST_F(OutputFileTest, TheWriterThreadRunsBelowTheHarts) {
  OutputFile f(dir_ + "/out", "test output");
  const std::vector<uint8_t> data(OutputFile::kBufferSize * 3 / 4, 0x5a);
  f.write(data.data(), data.size());
  f.write(data.data(), data.size());  // the first buffer is full: the writer thread starts
  f.write_at(0, data.data(), 1);       // and has written it (and set its priority first)
  std::vector<int> nices;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));  // after the comm, field 3 on
    std::string field;
    for (int k = 3; k <= 19 && fields >> field; k++)
      if (k == 19) nices.push_back(std::stoi(field));
  }
  EXPECT_EQ(std::count(nices.begin(), nices.end(), getpriority(PRIO_PROCESS, 0) + 5), 1)
      << "one thread, the writer, 5 below this one";
  f.commit();
}

// Both buffers come with their pages present (runtime/output_file.cpp, new_buffer): filling
// them faults no page in.
TEST_F(OutputFileTest, FillsItsBuffersWithoutPageFaults) {
#ifdef BRISK_ASAN
  GTEST_SKIP() << "ASan faults in its shadow of the buffers as they fill; the build without it runs this";
#endif
  OutputFile f(dir_ + "/out", "test output");
  const std::vector<uint8_t> data(OutputFile::kBufferSize * 3 / 4, 0x5a);
  auto faults = [] {
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    return u.ru_minflt;
  };
  const long first = faults();
  f.write(data.data(), data.size());  // into the first buffer
  EXPECT_EQ(faults() - first, 0) << "filling the first buffer";
  f.write(data.data(), data.size());  // the first goes to the writer thread, this into the second
  const long second = faults();
  f.write(data.data(), OutputFile::kBufferSize / 4);  // the rest of the second, not touched yet
  EXPECT_EQ(faults() - second, 0) << "filling the second buffer";
  f.commit();
  EXPECT_EQ(read_back().size(), 2 * data.size() + OutputFile::kBufferSize / 4);
}

// A forked child that destroys its copy (brisk's child unwinding after an error) leaves the
// parent's temporary alone: the parent still commits the whole file.
TEST_F(OutputFileTest, AForkedChildsCopyLeavesTheFileToItsParent) {
  auto f = std::make_unique<OutputFile>(dir_ + "/out", "test output");
  const std::vector<uint8_t> data(OutputFile::kBufferSize * 3 / 4, 0x5a);
  f->write(data.data(), data.size());
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
  EXPECT_EQ(read_back().size(), 3 * data.size());
}

}  // namespace
}  // namespace brisk
