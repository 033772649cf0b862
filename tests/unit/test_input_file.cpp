// runtime/input_file: the one opener for every file brisk loads.
#include "runtime/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/error.h"
#include "tests/unit/temp_dir.h"

namespace {

using brisk::Error;

class InputFileTest : public TempDirTest {
 protected:
  void write(const char* name, const std::string& bytes) {
    FILE* f = std::fopen((dir_ + "/" + name).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  // The message of the brisk::Error that fn throws; empty when it throws none.
  template <typename Fn>
  static std::string error_of(Fn fn) {
    try {
      fn();
    } catch (const Error& e) {
      return e.what();
    }
    return {};
  }
};

TEST_F(InputFileTest, RefusesWhatIsNotARegularFileWithoutBlocking) {
  ASSERT_EQ(mkfifo((dir_ + "/fifo").c_str(), 0600), 0);
  uint64_t size = 0;
  EXPECT_EQ(error_of([&] { brisk::open_input(dir_ + "/fifo", "kernel", size); }),
            "the kernel " + dir_ + "/fifo is a FIFO, not a regular file");
  EXPECT_EQ(error_of([&] { brisk::open_input(dir_, "firmware", size); }),
            "the firmware " + dir_ + " is a directory, not a regular file");
  EXPECT_EQ(error_of([&] { brisk::open_input("/dev/null", "initrd", size); }),
            "the initrd /dev/null is a character device, not a regular file");
  EXPECT_EQ(error_of([&] { brisk::open_input(dir_ + "/missing", "program", size); }),
            "cannot open the program " + dir_ + "/missing: No such file or directory");
}

TEST_F(InputFileTest, OpensARegularFileAndTellsItsSize) {
  write("data", "brisk");
  uint64_t size = 0;
  const int fd = brisk::open_input(dir_ + "/data", "program", size);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(size, 5u);
  close(fd);
}

TEST_F(InputFileTest, ReadInputRefusesEmptyAndOversizedFiles) {
  write("empty", "");
  write("data", "0123456789");
  EXPECT_EQ(error_of([&] { brisk::read_input(dir_ + "/empty", "initrd", 100); }),
            "the initrd " + dir_ + "/empty is empty");
  EXPECT_NE(error_of([&] { brisk::read_input(dir_ + "/data", "initrd", 9); }).find("is larger than RAM"),
            std::string::npos);
  const std::vector<uint8_t> data = brisk::read_input(dir_ + "/data", "initrd", 10);
  EXPECT_EQ(std::string(data.begin(), data.end()), "0123456789");
}

TEST(Printable, EscapesControlAndNonAsciiBytes) {
  EXPECT_EQ(brisk::printable("/lib/ld-linux-riscv64-lp64d.so.1"), "/lib/ld-linux-riscv64-lp64d.so.1");
  EXPECT_EQ(brisk::printable("/lib/\x1b[31mred\n"), "/lib/\\x1b[31mred\\x0a");
  EXPECT_EQ(brisk::printable("a\\b\xff"), "a\\x5cb\\xff");
}

}  // namespace
