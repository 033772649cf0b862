// runtime/exact_profile.cpp: brisk record --exact's counts of every transfer and fall-through range,
// in llvm-profgen's unsymbolized profile text.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "jit/transfer.h"
#include "runtime/error.h"
#include "runtime/profile.h"
#include "tests/unit/temp_dir.h"

namespace {

using namespace brisk::profile;

class ExactProfileTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    path_ = dir_ + "/prof.txt";
  }
  // Files in the directory besides the profile: a temporary left behind (runtime/output_file.h).
  size_t temporaries() const {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) n += e.path() != path_;
    return n;
  }
  std::string contents() const {
    std::ifstream f(path_);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  bool exists(const std::string& p) const {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0;
  }
  static Mapping text(uint64_t start, uint64_t len, const char* file = "/bin/prog") {
    Mapping m;
    m.pid = m.tid = 7;
    m.start = start;
    m.len = len;
    m.prot = 5;  // PROT_READ | PROT_EXEC
    m.filename = file;
    return m;
  }
  static Branch br(uint64_t from, uint64_t to, brisk::TransferType t = brisk::TransferType::TakenBranch) {
    return Branch{.from = from, .to = to, .type = static_cast<uint8_t>(t)};
  }
  static Sample sample(uint32_t tid, std::vector<Branch> youngest_first) {
    Sample s;
    s.pid = 7;
    s.tid = tid;
    s.branches = std::move(youngest_first);
    return s;
  }
  std::string path_;
};

// A loop at 0x10100..0x10108 taken three times, then a call into 0x10200 and its return, split
// over two samples: the range that spans the sample boundary is counted once, whole.
TEST_F(ExactProfileTest, CountsBranchesAndRangesAcrossSamples) {
  auto w = exact_writer(path_);
  w->mmap(text(0x10000, 0x2000));
  using brisk::TransferType;
  w->sample(sample(7, {br(0x10108, 0x10100), br(0x10108, 0x10100), br(0x100f0, 0x10100, TransferType::DirectJump)}));
  w->sample(sample(7, {br(0x10204, 0x1010e, TransferType::Return), br(0x1010a, 0x10200, TransferType::DirectCall),
                       br(0x10108, 0x10100)}));
  EXPECT_FALSE(exists(path_));  // written at finish(), not before
  w->finish();
  EXPECT_EQ(contents(),
            "3\n"
            "100-108:3\n"
            "100-10a:1\n"
            "200-204:1\n"
            "4\n"
            "f0->100:1\n"
            "108->100:3\n"
            "10a->200:1\n"
            "204->10e:1\n");
  EXPECT_EQ(temporaries(), 0u);
}

// Not-taken branches are part of a fall-through; each thread has its own run; a run that would
// go backwards (something unrecorded in between) or leave a segment is no range; transfers leaving
// the program's executable mappings are not in its profile, and the offsets count from its lowest one.
TEST_F(ExactProfileTest, RangesFollowThreadsAndStayInTheProgram) {
  auto w = exact_writer(path_);
  w->mmap(text(0x40000, 0x1000));
  w->mmap(text(0x7000000, 0x1000, "/lib/libc.so.6"));
  w->mmap(text(0x3f010, 0x800));  // lower executable segment of the same program, unaligned
  Mapping data = text(0x50000, 0x1000);
  data.prot = 3;  // PROT_READ | PROT_WRITE: not code
  w->mmap(data);
  using brisk::TransferType;
  w->sample(sample(7, {br(0x40020, 0x40100), br(0x40010, 0x40014, TransferType::NotTakenBranch)}));
  w->sample(sample(8, {br(0x40300, 0x40000)}));
  w->sample(sample(7, {br(0x40050, 0x40200), br(0x40104, 0x7000010, TransferType::IndirectCall)}));
  w->sample(sample(7, {br(0x40220, 0x3f100), br(0x40080, 0x40210)}));  // 0x40200 > 0x40080
  w->sample(sample(7, {br(0x3f180, 0x50010)}));
  w->sample(sample(9, {br(0x40040, 0x40000), br(0x3f100, 0x3f7f0)}));  // a run across the segments' gap
  w->finish();
  EXPECT_EQ(contents(),
            "3\n"
            "100-180:1\n"
            "1100-1104:1\n"
            "1210-1220:1\n"
            "7\n"
            "100->7f0:1\n"
            "1020->1100:1\n"
            "1040->1000:1\n"
            "1050->1200:1\n"
            "1080->1210:1\n"
            "1220->100:1\n"
            "1300->1000:1\n");
}

TEST_F(ExactProfileTest, WithoutFinishLeavesNoFile) {
  {
    auto w = exact_writer(path_);
    w->mmap(text(0x10000, 0x1000));
    w->sample(sample(7, {br(0x10010, 0x10000)}));
  }
  EXPECT_FALSE(exists(path_));
  EXPECT_EQ(temporaries(), 0u);
}

TEST_F(ExactProfileTest, UnwritablePathIsOneError) {
  std::string bad = dir_ + "/missing/prof.txt";
  try {
    exact_writer(bad);
    FAIL() << "no error for " << bad;
  } catch (const brisk::Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write the --exact profile " + bad + ": No such file or directory");
  }
}

}  // namespace
