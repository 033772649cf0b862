// brisk trace-decode (runtime/ete_decode): an ETE stream from the input, parsed packet by packet and
// decoded against a code image that is also from the input. Either may be anything: the decoder
// must end every stream with its flow or one brisk::Error, and report only instructions of the code.
#include "runtime/ete_decode.h"
#include "runtime/error.h"
#include "tests/fuzz/fuzz.h"

using namespace brisk;

namespace {

constexpr uint64_t kCodeBase = 0x80000000;
constexpr size_t kMaxCode = 4096;

// Checks that every instruction the decoder reports lies in the code it was given.
struct Checked : ete::FlowSink {
  uint64_t end;
  explicit Checked(uint64_t code_end) : end(code_end) {}
  void trace_on(uint64_t, uint8_t) override {}
  void insn(uint64_t pc, const Insn& in) override {
    if (pc < kCodeBase || pc + in.len > end) __builtin_trap();
  }
  void branch(uint64_t, uint64_t) override {}
  void exception(uint32_t, uint64_t, uint64_t, uint8_t) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  const size_t code_size = std::min<size_t>(in.take<uint16_t>(), std::min(kMaxCode, in.left()));
  const uint8_t* p = in.rest();
  const std::vector<uint8_t> code(p, p + code_size), stream(p + code_size, p + in.left());

  ete::PacketParser parser(stream.data(), stream.size(), "fuzz");
  ete::Packet pk;
  try {
    while (parser.next(pk))
      if (pk.offset >= stream.size()) __builtin_trap();
  } catch (const Error&) {
  }

  ete::CodeImage image;
  image.add_code(kCodeBase, code);
  Checked sink(kCodeBase + code.size());
  try {
    ete::decode_flow(stream, "fuzz", image, sink);
  } catch (const Error&) {
  }
  return 0;
}
