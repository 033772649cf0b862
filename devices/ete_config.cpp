#include "devices/ete_config.h"

#include <cctype>
#include <charconv>
#include <string>

#include "runtime/error.h"

namespace brisk::ete {

namespace {

// The registers a configuration may program. TRCPRGCTLR is program()'s, the rest read-only.
struct Named {
  const char* name;
  uint64_t offset;
};
constexpr Named kRegisters[] = {
    {"TRCCONFIGR", TRCCONFIGR},       {"TRCEVENTCTL0R", TRCEVENTCTL0R}, {"TRCEVENTCTL1R", TRCEVENTCTL1R},
    {"TRCTSCTLR", TRCTSCTLR},         {"TRCSYNCPR", TRCSYNCPR},         {"TRCCCCTLR", TRCCCCTLR},
    {"TRCBBCTLR", TRCBBCTLR},
    {"TRCTRACEIDR", TRCTRACEIDR},     {"TRCVICTLR", TRCVICTLR},
    {"TRCVIIECTLR", TRCVIIECTLR},     {"TRCVISSCTLR", TRCVISSCTLR},     {"TRCVIPCSSCTLR", TRCVIPCSSCTLR},
    {"TRCSEQRSTEVR", TRCSEQRSTEVR},   {"TRCSEQSTR", TRCSEQSTR},         {"TRCCLAIMSET", TRCCLAIMSET},
    {"TRCCLAIMCLR", TRCCLAIMCLR},
};
// Register<n>: offset base + stride * n for first <= n < end.
struct Family {
  const char* name;
  uint64_t base;
  unsigned stride, first, end;
};
constexpr Family kFamilies[] = {
    {"TRCSEQEVR", TRCSEQEVR0, 4, 0, 3},     {"TRCEXTINSELR", TRCEXTINSELR0, 4, 0, 4},
    {"TRCCNTRLDVR", TRCCNTRLDVR0, 4, 0, 4}, {"TRCCNTCTLR", TRCCNTCTLR0, 4, 0, 4},
    {"TRCCNTVR", TRCCNTVR0, 4, 0, 4},       {"TRCRSCTLR", TRCRSCTLR0, 4, 2, 32},
    {"TRCSSCCR", TRCSSCCR0, 4, 0, 8},       {"TRCSSCSR", TRCSSCSR0, 4, 0, 8},
    {"TRCSSPCICR", TRCSSPCICR0, 4, 0, 8},   {"TRCACVR", TRCACVR0, 8, 0, 16},
    {"TRCACATR", TRCACATR0, 8, 0, 16},      {"TRCCIDCVR", TRCCIDCVR0, 8, 0, 8},
    {"TRCVMIDCVR", TRCVMIDCVR0, 8, 0, 8},   {"TRCCIDCCTLR", TRCCIDCCTLR0, 4, 0, 2},
    {"TRCVMIDCCTLR", TRCVMIDCCTLR0, 4, 0, 2},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool parse_number(std::string_view s, uint64_t& v) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

int64_t register_offset(std::string_view name) {
  for (const Named& r : kRegisters)
    if (name == r.name) return static_cast<int64_t>(r.offset);
  size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) digits--;
  uint64_t n = 0;
  if (digits == name.size() || !parse_number(name.substr(digits), n)) return -1;
  for (const Family& f : kFamilies)
    if (name.substr(0, digits) == f.name && n >= f.first && n < f.end) return static_cast<int64_t>(f.base + f.stride * n);
  return -1;
}

std::vector<RegisterWrite> parse_config(std::string_view text, std::string_view what) {
  std::vector<RegisterWrite> writes;
  unsigned line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    line_no++;
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) throw Error("{}:{}: '{}' is not NAME = VALUE", what, line_no, line);
    const std::string_view name = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    const int64_t offset = register_offset(name);
    if (offset < 0) throw Error("{}:{}: '{}' is no programmable ETE register", what, line_no, name);
    uint64_t v = 0;
    if (!parse_number(value, v) || (!is_64bit_register(offset) && v > UINT32_MAX))
      throw Error("{}:{}: {} = '{}' is not a {}-bit number", what, line_no, name, value,
                  is_64bit_register(offset) ? 64 : 32);
    writes.push_back({static_cast<uint64_t>(offset), v});
  }
  return writes;
}

std::vector<RegisterWrite> autofdo_config(unsigned window, unsigned period) {
  if (window == 0 || window > 0xffff || period == 0 || period > 0xffff)
    throw Error("--trace-config autofdo: window {} and period {} must be 1 to 65535", window, period);
  return {
      {TRCSYNCPR, 0xc},
      {TRCVICTLR, 0x03 | VICTLR_SSSTATUS},  // ViewInst EVENT: selector 3
      {TRCRSCTLR0 + 4 * 2, 0x20001},        // selector 2: counter 0 at zero
      {TRCRSCTLR0 + 4 * 3, 0x20002},        // selector 3: counter 1 at zero
      {TRCCNTRLDVR0, window},
      {TRCCNTVR0, window},
      {TRCCNTCTLR0, 0x10001},  // RLDSELF, count every cycle
      {TRCCNTRLDVR0 + 4, period},
      {TRCCNTVR0 + 4, period},
      {TRCCNTCTLR0 + 4, 0x8102},  // reload on pair 1 (both at zero), count on selector 2
      {TRCSEQEVR0, 0x81},
  };
}

void program(EteUnit& unit, const std::vector<RegisterWrite>& writes) {
  auto write = [&unit](uint64_t offset, uint64_t value) {
    if (!unit.write(offset, is_64bit_register(offset) ? 8 : 4, value))
      throw Error("ETE: the trace unit refused a write of {:#x} at {:#x}", value, offset);
  };
  write(TRCOSLAR, 0);
  write(TRCPRGCTLR, 0);
  for (const RegisterWrite& w : writes) write(w.offset, w.value);
  write(TRCPRGCTLR, PRGCTLR_EN);
}

}  // namespace brisk::ete
