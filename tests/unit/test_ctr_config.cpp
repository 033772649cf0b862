// --ctr's filter names (runtime/ctr_config.h): each maps to exactly the mctrctl TYPE inhibits, NTBREN
// and RASEMU of csr/ctr.h, and bad names and depths are refused with the names that would do.
#include <linux/perf_event.h>

#include <gtest/gtest.h>

#include "csr/ctr.h"
#include "runtime/ctr_config.h"
#include "runtime/error.h"

namespace brisk::ctr {
namespace {

// The mctrctl type field (bits 32..47) that records exactly `types` (bit TYPE each).
uint64_t recording(std::initializer_list<TransferType> types) {
  uint32_t inhibit = 0xff2e;  // every inhibitable type: 1-3, 5, 8-15
  uint64_t v = 0;
  for (TransferType t : types) {
    if (t == TransferType::NotTakenBranch)
      v |= CTRCTL_NTBREN;
    else
      inhibit &= ~(1u << unsigned(t));
  }
  return v | uint64_t(inhibit) << CTRCTL_TYPE_SHIFT;
}

TEST(CtrFilters, AnyRecordsEveryTypeButNotTaken) {
  EXPECT_EQ(parse_filters("any").ctrctl, 0u);  // mctrctl's reset value: nothing inhibited, NTBREN clear
  EXPECT_EQ(parse_filters("any").modes, 0u);
  EXPECT_EQ(parse_filters("any,not_taken").ctrctl, CTRCTL_NTBREN);
}

TEST(CtrFilters, PerfNamesMapToTheirTypes) {
  using T = TransferType;
  EXPECT_EQ(parse_filters("call").ctrctl, recording({T::DirectCall}));
  EXPECT_EQ(parse_filters("ind_call").ctrctl, recording({T::IndirectCall}));
  EXPECT_EQ(parse_filters("any_call").ctrctl,
            recording({T::Exception, T::Interrupt, T::IndirectCall, T::DirectCall, T::CoroutineSwap}));
  EXPECT_EQ(parse_filters("any_ret").ctrctl, recording({T::TrapReturn, T::Return, T::CoroutineSwap}));
  EXPECT_EQ(parse_filters("return").ctrctl, parse_filters("any_ret").ctrctl);
  EXPECT_EQ(parse_filters("ind_jmp").ctrctl, recording({T::IndirectJump, T::OtherIndirectJump}));
  EXPECT_EQ(parse_filters("cond").ctrctl, recording({T::TakenBranch}));
  EXPECT_EQ(parse_filters("not_taken").ctrctl, recording({T::NotTakenBranch}));
  EXPECT_EQ(parse_filters("cond,not_taken").ctrctl, recording({T::TakenBranch, T::NotTakenBranch}));
  EXPECT_EQ(parse_filters("call,return").ctrctl,
            recording({T::DirectCall, T::TrapReturn, T::Return, T::CoroutineSwap}));
}

TEST(CtrFilters, TypeNamesAreFiltersToo) {
  using T = TransferType;
  EXPECT_EQ(parse_filters("co-routine-swap,other-direct-jump").ctrctl,
            recording({T::CoroutineSwap, T::OtherDirectJump}));
  EXPECT_EQ(parse_filters("not-taken-branch").ctrctl, CTRCTL_NTBREN | recording({}));
  EXPECT_STREQ(type_name(T::TakenBranch), "taken-branch");
  EXPECT_STREQ(type_name(T::Return), "function-return");
}

TEST(CtrFilters, StackIsRasemuAndModesAreSeparate) {
  const Filters f = parse_filters("call,stack,u");
  EXPECT_EQ(f.ctrctl, recording({TransferType::DirectCall}) | CTRCTL_RASEMU);
  EXPECT_EQ(f.modes, CTRCTL_U);
  // Modes alone record every type, as --ctr does.
  EXPECT_EQ(parse_filters("u,k").ctrctl, 0u);
  EXPECT_EQ(parse_filters("u,k").modes, CTRCTL_U | CTRCTL_S);
  // hv is M mode, as perf.data calls M-mode samples the hypervisor's.
  EXPECT_EQ(parse_filters("any,hv").modes, CTRCTL_M);
  EXPECT_EQ(parse_filters("any,hv").perf, uint64_t(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HV));
}

std::string error_of(void (*f)()) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CtrFilters, UnknownNamesAreNamedWithTheAcceptedOnes) {
  const std::string e = error_of([] { parse_filters("any,jumps"); });
  EXPECT_NE(e.find("unknown filter 'jumps'"), std::string::npos) << e;
  EXPECT_NE(e.find("any_call"), std::string::npos) << e;
  EXPECT_NE(e.find("other-indirect-jump"), std::string::npos) << e;
  EXPECT_NE(error_of([] { parse_filters("any,"); }).find("unknown filter ''"), std::string::npos);
  // Reserved types 6 and 7 and TYPE 0 are no filters.
  EXPECT_NE(error_of([] { parse_filters("none"); }), "no error");
  EXPECT_NE(error_of([] { parse_filters("reserved-6"); }), "no error");
}

TEST(CtrFilters, DepthsAreTheFiveOfSctrdepth) {
  EXPECT_EQ(parse_depth("16"), 0u);
  EXPECT_EQ(parse_depth("32"), 1u);
  EXPECT_EQ(parse_depth("64"), 2u);
  EXPECT_EQ(parse_depth("128"), 3u);
  EXPECT_EQ(parse_depth("256"), 4u);
  for (const char* bad : {"0", "8", "512", "016", "", "256x", "-16"})
    EXPECT_THROW(parse_depth(bad), Error) << bad;
}

}  // namespace
}  // namespace brisk::ctr
