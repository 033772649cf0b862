// Register-level behaviour of the virt machine's devices (devices/), with fake interrupt wiring and clock.
#include "csr/privileged.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "devices/clint.h"
#include "devices/plic.h"
#include "devices/sifive_test.h"
#include "devices/uart16550.h"
#include "tests/unit/fake_sink.h"

namespace brisk {
namespace {

struct FakeIrq : IrqLine {
  std::map<unsigned, bool> level;
  void set_irq(unsigned source, bool l) override { level[source] = l; }
  bool get(unsigned source) const {
    auto it = level.find(source);
    return it != level.end() && it->second;
  }
};

struct FakeClock : Clock {
  uint64_t t = 0;
  uint64_t now() const override { return t; }
  void set(uint64_t v) override { t = v; }
};

uint64_t rd(Device& d, uint64_t off, unsigned size = 1) {
  uint64_t v = ~0ull;
  EXPECT_TRUE(d.read(off, size, v)) << d.name() << " read at " << off;
  return v;
}

void wr(Device& d, uint64_t off, uint64_t v, unsigned size = 1) {
  EXPECT_TRUE(d.write(off, size, v)) << d.name() << " write at " << off;
}

// ---------------------------------------------------------------------------------------------- UART

using namespace uart16550;

constexpr unsigned kUartIrq = 10;

struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    r = fds[0];
    w = fds[1];
  }
  ~Pipe() {
    if (r >= 0) close(r);
    if (w >= 0) close(w);
  }
  std::string drain() {
    std::string s;
    char buf[256];
    close(w);
    w = -1;
    for (ssize_t n; (n = ::read(r, buf, sizeof buf)) > 0;) s.append(buf, n);
    return s;
  }
};

class UartTest : public ::testing::Test {
 protected:
  void feed(const std::string& s) { uart.receive(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }
  FakeIrq irq;
  int quits = 0;
  Uart16550 uart{irq, kUartIrq, -1, -1, [this] { quits++; }};
};

TEST_F(UartTest, ResetState) {
  EXPECT_EQ(rd(uart, LSR), LSR_THRE | LSR_TEMT);
  EXPECT_EQ(rd(uart, IIR), IIR_NO_INT);
  EXPECT_EQ(rd(uart, IER), 0u);
  EXPECT_EQ(rd(uart, MSR), MSR_DCD | MSR_DSR | MSR_CTS);
  EXPECT_FALSE(irq.get(kUartIrq));
}

TEST(Uart, OutputGoesToTheFdAtOnce) {
  FakeIrq irq;
  Pipe out;
  Uart16550 uart(irq, kUartIrq, -1, out.w, nullptr);
  for (char c : std::string("hi\n")) wr(uart, THR, static_cast<uint8_t>(c));
  wr(uart, THR, 0x4142, 8);  // a wide store writes its low byte
  EXPECT_EQ(out.drain(), "hi\nB");
}

TEST_F(UartTest, DivisorLatch) {
  wr(uart, IER, IER_ERBFI);
  wr(uart, LCR, LCR_DLAB | 0x03);
  wr(uart, DLL, 0x12);
  wr(uart, DLM, 0x34);
  EXPECT_EQ(rd(uart, DLL), 0x12u);
  EXPECT_EQ(rd(uart, DLM), 0x34u);
  wr(uart, LCR, 0x03);
  EXPECT_EQ(rd(uart, LCR), 0x03u);
  EXPECT_EQ(rd(uart, IER), IER_ERBFI);  // the latch did not touch IER
  wr(uart, LCR, LCR_DLAB);
  EXPECT_EQ(rd(uart, DLL), 0x12u);
}

TEST_F(UartTest, ReceivedDataRaisesTheInterruptUntilRead) {
  feed("ab");
  EXPECT_EQ(rd(uart, LSR), LSR_THRE | LSR_TEMT | LSR_DR);
  EXPECT_FALSE(irq.get(kUartIrq));  // not enabled yet
  wr(uart, IER, IER_ERBFI);
  EXPECT_TRUE(irq.get(kUartIrq));
  EXPECT_EQ(rd(uart, IIR), IIR_RDA);
  EXPECT_EQ(rd(uart, RBR), 'a');
  EXPECT_TRUE(irq.get(kUartIrq));
  EXPECT_EQ(rd(uart, RBR, 4), 'b');  // wide loads read the register, zero-extended
  EXPECT_FALSE(irq.get(kUartIrq));
  EXPECT_EQ(rd(uart, IIR), IIR_NO_INT);
  EXPECT_EQ(rd(uart, LSR), LSR_THRE | LSR_TEMT);
}

TEST_F(UartTest, ThreInterruptFiresOnEnableAndIsAcknowledgedByIir) {
  wr(uart, IER, IER_ETBEI);
  EXPECT_TRUE(irq.get(kUartIrq));
  EXPECT_EQ(rd(uart, IIR), IIR_THRE);  // reading it acknowledges it
  EXPECT_FALSE(irq.get(kUartIrq));
  EXPECT_EQ(rd(uart, IIR), IIR_NO_INT);
  // Writing THR: the byte leaves at once, THR is empty again and the interrupt re-arms.
  wr(uart, THR, 'x');
  EXPECT_TRUE(irq.get(kUartIrq));
  EXPECT_EQ(rd(uart, IIR), IIR_THRE);
  // Re-enabling ETBEI re-raises it even after the acknowledgement; disabling drops it.
  wr(uart, IER, IER_ETBEI);
  EXPECT_FALSE(irq.get(kUartIrq));  // no rising edge: still acknowledged
  wr(uart, IER, 0);
  wr(uart, IER, IER_ETBEI);
  EXPECT_TRUE(irq.get(kUartIrq));
  wr(uart, IER, 0);
  EXPECT_FALSE(irq.get(kUartIrq));
  wr(uart, THR, 'y');  // with ETBEI off, THRE neither reaches the line nor shows in IIR
  EXPECT_FALSE(irq.get(kUartIrq));
  EXPECT_EQ(rd(uart, IIR), IIR_NO_INT);
}

TEST_F(UartTest, ReceivedDataHasPriorityOverThre) {
  wr(uart, IER, IER_ERBFI | IER_ETBEI);
  feed("z");
  EXPECT_EQ(rd(uart, IIR), IIR_RDA);  // THRE is not acknowledged by this read
  EXPECT_EQ(rd(uart, RBR), 'z');
  EXPECT_EQ(rd(uart, IIR), IIR_THRE);
  EXPECT_EQ(rd(uart, IIR), IIR_NO_INT);
}

TEST_F(UartTest, FifoControl) {
  wr(uart, FCR, FCR_FIFO_ENABLE);
  EXPECT_EQ(rd(uart, IIR), IIR_FIFOS_ENABLED | IIR_NO_INT);
  feed("abc");
  wr(uart, FCR, FCR_FIFO_ENABLE | FCR_RCVR_FIFO_RESET);
  EXPECT_EQ(rd(uart, LSR) & LSR_DR, 0u);
}

TEST_F(UartTest, OverrunIsReportedOnce) {
  wr(uart, IER, IER_ELSI);
  feed(std::string(kRxBufferSize, 'a'));
  EXPECT_FALSE(irq.get(kUartIrq));
  feed("b");
  EXPECT_TRUE(irq.get(kUartIrq));
  EXPECT_EQ(rd(uart, IIR), IIR_RLS);
  EXPECT_EQ(rd(uart, LSR), LSR_THRE | LSR_TEMT | LSR_DR | LSR_OE);
  EXPECT_FALSE(irq.get(kUartIrq));
  EXPECT_EQ(rd(uart, LSR), LSR_THRE | LSR_TEMT | LSR_DR);
}

TEST_F(UartTest, ScratchRegister) {
  wr(uart, SCR, 0x5a);
  EXPECT_EQ(rd(uart, SCR), 0x5au);
}

TEST_F(UartTest, CtrlAXQuits) {
  feed("a\x01xb");
  EXPECT_EQ(quits, 1);
  EXPECT_EQ(rd(uart, RBR), 'a');
  EXPECT_EQ(rd(uart, RBR), 'b');
  EXPECT_EQ(rd(uart, LSR) & LSR_DR, 0u);
  // The escape and its key may arrive in different reads.
  feed("\x01");
  EXPECT_EQ(quits, 1);
  feed("x");
  EXPECT_EQ(quits, 2);
}

TEST_F(UartTest, CtrlACtrlASendsOneCtrlA) {
  feed("\x01\x01q");
  EXPECT_EQ(quits, 0);
  EXPECT_EQ(rd(uart, RBR), 0x01u);
  EXPECT_EQ(rd(uart, RBR), 'q');
  feed("\x01h");  // unknown commands are swallowed
  EXPECT_EQ(rd(uart, LSR) & LSR_DR, 0u);
  EXPECT_EQ(quits, 0);
}

TEST(Uart, PollReadsTheInputFd) {
  FakeIrq irq;
  Pipe in;
  int quits = 0;
  Uart16550 uart(irq, kUartIrq, in.r, -1, [&] { quits++; });
  EXPECT_EQ(uart.poll(0), UINT64_MAX);  // nothing waiting: does not block
  wr(uart, IER, IER_ERBFI);
  ASSERT_EQ(::write(in.w, "k\x01x", 3), 3);
  uart.poll(0);
  EXPECT_TRUE(irq.get(kUartIrq));
  EXPECT_EQ(rd(uart, RBR), 'k');
  EXPECT_EQ(quits, 1);
  close(in.w);
  in.w = -1;
  uart.poll(0);  // end of input
  uart.poll(0);
  EXPECT_EQ(rd(uart, LSR) & LSR_DR, 0u);
}

// --------------------------------------------------------------------------------------------- CLINT

class ClintTest : public ::testing::Test {
 protected:
  FakeSink sink;
  FakeClock clock;
  Clint clint{2, sink, clock};
};

TEST_F(ClintTest, Msip) {
  wr(clint, clint::MSIP + 4, 1, 4);
  EXPECT_TRUE(sink.get(1, csr::IRQ_M_SOFT));
  EXPECT_FALSE(sink.get(0, csr::IRQ_M_SOFT));
  EXPECT_EQ(rd(clint, clint::MSIP + 4, 4), 1u);
  wr(clint, clint::MSIP + 4, 0xfffffffe, 4);  // only bit 0 is implemented
  EXPECT_FALSE(sink.get(1, csr::IRQ_M_SOFT));
  EXPECT_EQ(rd(clint, clint::MSIP + 4, 4), 0u);
  uint64_t v;
  EXPECT_FALSE(clint.write(clint::MSIP, 8, 1));
  EXPECT_FALSE(clint.read(clint::MSIP + 2, 4, v));
}

TEST_F(ClintTest, MtimecmpResetsToAllOnes) {
  EXPECT_EQ(rd(clint, clint::MTIMECMP + 8, 8), UINT64_MAX);
  EXPECT_EQ(rd(clint, clint::MTIMECMP + 8, 4), 0xffffffffu);
  EXPECT_EQ(rd(clint, clint::MTIMECMP + 12, 4), 0xffffffffu);
  EXPECT_EQ(clint.poll(0), UINT64_MAX);
  EXPECT_FALSE(sink.get(0, csr::IRQ_M_TIMER));
}

TEST_F(ClintTest, MtipFollowsMtimecmpWrites) {
  clock.t = 100;
  wr(clint, clint::MTIMECMP, 50, 8);
  EXPECT_TRUE(sink.get(0, csr::IRQ_M_TIMER));
  EXPECT_FALSE(sink.get(1, csr::IRQ_M_TIMER));
  wr(clint, clint::MTIMECMP, 100, 8);  // mtime >= mtimecmp
  EXPECT_TRUE(sink.get(0, csr::IRQ_M_TIMER));
  wr(clint, clint::MTIMECMP, 200, 8);
  EXPECT_FALSE(sink.get(0, csr::IRQ_M_TIMER));
  EXPECT_EQ(clint.poll(199), 200u);
  EXPECT_FALSE(sink.get(0, csr::IRQ_M_TIMER));
  EXPECT_EQ(clint.poll(200), UINT64_MAX);
  EXPECT_TRUE(sink.get(0, csr::IRQ_M_TIMER));
}

TEST_F(ClintTest, MtimecmpHalves) {
  clock.t = 0x100;
  // The usual RV32 sequence: high half all ones, low half, then the real high half.
  wr(clint, clint::MTIMECMP + 8 + 4, 0xffffffff, 4);
  wr(clint, clint::MTIMECMP + 8, 0x80, 4);
  EXPECT_EQ(rd(clint, clint::MTIMECMP + 8, 8), 0xffffffff00000080u);
  EXPECT_FALSE(sink.get(1, csr::IRQ_M_TIMER));
  wr(clint, clint::MTIMECMP + 8 + 4, 0, 4);
  EXPECT_EQ(rd(clint, clint::MTIMECMP + 8, 8), 0x80u);
  EXPECT_TRUE(sink.get(1, csr::IRQ_M_TIMER));
  uint64_t v;
  EXPECT_FALSE(clint.read(clint::MTIMECMP + 8, 2, v));
  EXPECT_FALSE(clint.write(clint::MTIMECMP + 12, 8, 0));
}

TEST_F(ClintTest, MtimeReadsAndSetsTheClock) {
  clock.t = 0x1234567890ull;
  EXPECT_EQ(rd(clint, clint::MTIME, 8), 0x1234567890u);
  EXPECT_EQ(rd(clint, clint::MTIME, 4), 0x34567890u);
  EXPECT_EQ(rd(clint, clint::MTIME + 4, 4), 0x12u);
  wr(clint, clint::MTIME, 0x77, 4);  // the low half only
  EXPECT_EQ(clock.t, 0x1200000077u);
  wr(clint, clint::MTIME, 0x10, 8);
  wr(clint, clint::MTIMECMP, 0x100, 8);
  EXPECT_FALSE(sink.get(0, csr::IRQ_M_TIMER));
  wr(clint, clint::MTIME, 0x100, 8);  // moving mtime past mtimecmp raises MTIP
  EXPECT_EQ(clock.t, 0x100u);
  EXPECT_TRUE(sink.get(0, csr::IRQ_M_TIMER));
}

TEST_F(ClintTest, PollReturnsTheEarliestFutureDeadline) {
  wr(clint, clint::MTIMECMP, 500, 8);
  wr(clint, clint::MTIMECMP + 8, 300, 8);
  EXPECT_EQ(clint.poll(10), 300u);
  EXPECT_EQ(clint.poll(300), 500u);
  EXPECT_TRUE(sink.get(1, csr::IRQ_M_TIMER));
  EXPECT_FALSE(sink.get(0, csr::IRQ_M_TIMER));
}

// ---------------------------------------------------------------------------------------------- PLIC

constexpr uint64_t prio(unsigned src) { return plic::PRIORITY_BASE + 4 * src; }
constexpr uint64_t enable(unsigned ctx, unsigned word = 0) {
  return plic::ENABLE_BASE + plic::ENABLE_PER_CONTEXT * ctx + 4 * word;
}
constexpr uint64_t threshold(unsigned ctx) {
  return plic::CONTEXT_BASE + plic::CONTEXT_PER_CONTEXT * ctx + plic::CONTEXT_THRESHOLD;
}
constexpr uint64_t claim(unsigned ctx) {
  return plic::CONTEXT_BASE + plic::CONTEXT_PER_CONTEXT * ctx + plic::CONTEXT_CLAIM;
}

class PlicTest : public ::testing::Test {
 protected:
  FakeSink sink;
  Plic plic{2, 95, sink};
};

TEST_F(PlicTest, ClaimReturnsHighestPriorityAndComplete) {
  wr(plic, prio(5), 1, 4);
  wr(plic, prio(10), 3, 4);
  wr(plic, enable(1), (1u << 5) | (1u << 10), 4);  // hart 0, S mode
  plic.set_irq(5, true);
  EXPECT_TRUE(sink.get(0, csr::IRQ_S_EXT));
  EXPECT_FALSE(sink.get(0, csr::IRQ_M_EXT));  // context 0 enables nothing
  EXPECT_EQ(rd(plic, plic::PENDING_BASE, 4), 1u << 5);
  plic.set_irq(10, true);
  EXPECT_EQ(rd(plic, claim(1), 4), 10u);
  EXPECT_EQ(rd(plic, plic::PENDING_BASE, 4), 1u << 5);
  EXPECT_TRUE(sink.get(0, csr::IRQ_S_EXT));
  EXPECT_EQ(rd(plic, claim(1), 4), 5u);
  EXPECT_FALSE(sink.get(0, csr::IRQ_S_EXT));
  EXPECT_EQ(rd(plic, claim(1), 4), 0u);
  // Claimed sources do not pend again until completed; a source still high pends on completion.
  plic.set_irq(5, false);
  wr(plic, claim(1), 10, 4);
  EXPECT_TRUE(sink.get(0, csr::IRQ_S_EXT));
  EXPECT_EQ(rd(plic, plic::PENDING_BASE, 4), 1u << 10);
  wr(plic, claim(1), 5, 4);
  EXPECT_EQ(rd(plic, plic::PENDING_BASE, 4), 1u << 10);
  EXPECT_EQ(rd(plic, claim(1), 4), 10u);
}

TEST_F(PlicTest, TiesGoToTheLowestId) {
  wr(plic, prio(7), 2, 4);
  wr(plic, prio(3), 2, 4);
  wr(plic, prio(40), 2, 4);
  wr(plic, enable(0), (1u << 7) | (1u << 3), 4);
  wr(plic, enable(0, 1), 1u << (40 - 32), 4);
  plic.set_irq(40, true);
  plic.set_irq(7, true);
  plic.set_irq(3, true);
  EXPECT_TRUE(sink.get(0, csr::IRQ_M_EXT));
  EXPECT_EQ(rd(plic, claim(0), 4), 3u);
  EXPECT_EQ(rd(plic, claim(0), 4), 7u);
  EXPECT_EQ(rd(plic, claim(0), 4), 40u);
  EXPECT_FALSE(sink.get(0, csr::IRQ_M_EXT));
}

TEST_F(PlicTest, ThresholdAndPriorityZeroMask) {
  wr(plic, enable(3), 1u << 4, 4);  // hart 1, S mode
  plic.set_irq(4, true);
  EXPECT_FALSE(sink.get(1, csr::IRQ_S_EXT));  // priority 0 never interrupts
  wr(plic, prio(4), 3, 4);
  EXPECT_TRUE(sink.get(1, csr::IRQ_S_EXT));
  wr(plic, threshold(3), 3, 4);  // must exceed the threshold
  EXPECT_FALSE(sink.get(1, csr::IRQ_S_EXT));
  EXPECT_EQ(rd(plic, claim(3), 4), 0u);
  wr(plic, threshold(3), 2, 4);
  EXPECT_TRUE(sink.get(1, csr::IRQ_S_EXT));
  EXPECT_EQ(rd(plic, threshold(3), 4), 2u);
  EXPECT_FALSE(sink.get(0, csr::IRQ_S_EXT));
}

TEST_F(PlicTest, SourceDroppedBeforeClaimStopsPending) {
  wr(plic, prio(1), 1, 4);
  wr(plic, enable(2), 1u << 1, 4);  // hart 1, M mode
  plic.set_irq(1, true);
  EXPECT_TRUE(sink.get(1, csr::IRQ_M_EXT));
  plic.set_irq(1, false);
  EXPECT_FALSE(sink.get(1, csr::IRQ_M_EXT));
  EXPECT_EQ(rd(plic, claim(2), 4), 0u);
}

TEST_F(PlicTest, CompleteOfASourceNotEnabledIsIgnored) {
  wr(plic, prio(6), 1, 4);
  wr(plic, enable(1), 1u << 6, 4);
  plic.set_irq(6, true);
  EXPECT_EQ(rd(plic, claim(1), 4), 6u);
  wr(plic, enable(1), 0, 4);
  wr(plic, claim(1), 6, 4);
  EXPECT_EQ(rd(plic, plic::PENDING_BASE, 4), 0u);  // still claimed
  wr(plic, enable(1), 1u << 6, 4);
  wr(plic, claim(1), 6, 4);
  EXPECT_EQ(rd(plic, plic::PENDING_BASE, 4), 1u << 6);
  EXPECT_TRUE(sink.get(0, csr::IRQ_S_EXT));
}

TEST_F(PlicTest, RegisterMasks) {
  wr(plic, prio(2), 0xff, 4);
  EXPECT_EQ(rd(plic, prio(2), 4), plic::kPriorityMask);
  wr(plic, prio(0), 5, 4);
  EXPECT_EQ(rd(plic, prio(0), 4), 0u);
  wr(plic, enable(0), 0xffffffff, 4);
  EXPECT_EQ(rd(plic, enable(0), 4), 0xfffffffeu);  // source 0 does not exist
  wr(plic, plic::PENDING_BASE, 0xffffffff, 4);
  EXPECT_EQ(rd(plic, plic::PENDING_BASE, 4), 0u);  // read-only
  uint64_t v;
  EXPECT_FALSE(plic.read(claim(0), 8, v));
  EXPECT_FALSE(plic.write(prio(1) + 2, 4, 1));
}

TEST(Plic, EnableBitsPastTheLastSourceReadZero) {
  FakeSink sink;
  Plic plic(1, 40, sink);
  wr(plic, enable(1, 1), 0xffffffff, 4);
  EXPECT_EQ(rd(plic, enable(1, 1), 4), 0x1ffu);  // sources 32..40
  EXPECT_EQ(rd(plic, enable(1, 2), 4), 0u);
  EXPECT_EQ(plic::window_size(1), 0x202000u);
}

// --------------------------------------------------------------------------------------- sifive,test0

TEST(SifiveTestDevice, FinisherWrites) {
  std::vector<std::pair<SifiveTest::Event, uint16_t>> events;
  SifiveTest test([&](SifiveTest::Event e, uint16_t code) { events.emplace_back(e, code); });
  wr(test, sifive_test::FINISHER, 0x1234, 4);  // not a finisher value
  EXPECT_TRUE(events.empty());
  wr(test, sifive_test::FINISHER, sifive_test::FINISHER_PASS, 4);
  wr(test, sifive_test::FINISHER, sifive_test::FINISHER_FAIL | (3u << 16), 4);
  wr(test, sifive_test::FINISHER, sifive_test::FINISHER_RESET, 4);
  using E = SifiveTest::Event;
  std::vector<std::pair<E, uint16_t>> want{{E::Pass, 0}, {E::Fail, 3}, {E::Reset, 0}};
  EXPECT_EQ(events, want);
  EXPECT_FALSE(test.write(sifive_test::FINISHER, 2, sifive_test::FINISHER_PASS));
  EXPECT_EQ(events.size(), 3u);
  EXPECT_EQ(rd(test, sifive_test::FINISHER, 4), 0u);
}

}  // namespace
}  // namespace brisk
