#include "csr/extensions.h"

#include <sstream>
#include <utility>

#include "runtime/error.h"

namespace brisk {

namespace {
const char* const kNames[] = {
#define EXT(id, name) name,
    BRISK_EXTENSIONS(EXT)
#undef EXT
};

// {a, b}: extension a is only defined together with b.
constexpr std::pair<Ext, Ext> kNeeds[] = {
    {Ext::D, Ext::F},
    {Ext::F, Ext::Zicsr},  // fcsr
    {Ext::Smstateen, Ext::Ssstateen},  // Smstateen comprises the sstateen CSRs
    {Ext::Smcsrind, Ext::Sscsrind},    // likewise siselect/sireg*
    {Ext::Smcdeleg, Ext::Ssccfg},      // the two are always implemented in tandem
    {Ext::Ssccfg, Ext::Smcdeleg},
    {Ext::Ssccfg, Ext::Sscsrind},  // delegated counters are reached through sireg*
    // A hart with M-mode has Smctr whenever it has Ssctr; CTR entries are reached through sireg*,
    // so turning sscsrind off without ctr is rejected rather than silently dropping CTR.
    {Ext::Smctr, Ext::Ssctr},
    {Ext::Ssctr, Ext::Smctr},
    {Ext::Ssctr, Ext::Sscsrind},
};

// `ctr-depths=16,32,...`: the DEPTH code of one listed depth.
unsigned ctr_depth_code(const std::string& item) {
  for (unsigned code = 0; code < 5; code++)
    if (item == std::to_string(16u << code)) return code;
  throw Error("--cpu: ctr-depths: '{}' is not a CTR depth (16, 32, 64, 128 or 256)", item);
}
}  // namespace

const char* ext_name(Ext e) { return kNames[static_cast<unsigned>(e)]; }

void IsaConfig::apply(const std::string& spec) {
  std::stringstream ss(spec);
  std::string item;
  bool first = true;
  bool in_depths = false;  // the items after ctr-depths= that are bare numbers continue its list
  while (std::getline(ss, item, ',')) {
    if (first) {
      first = false;
      if (item != "rv64" && item != "rv32" && item != "max")
        throw Error("--cpu: unknown CPU model '{}' (brisk models rv64 and rv32)", item);
      xlen = item == "rv32" ? 32 : 64;
      continue;
    }
    auto eq = item.find('=');
    if (in_depths && eq == std::string::npos) {
      ctr_depths |= 1u << ctr_depth_code(item);
      continue;
    }
    in_depths = false;
    if (eq == std::string::npos) throw Error("--cpu: '{}' is not EXT=on|off", item);
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (name == "ctr-depths") {
      ctr_depths = static_cast<uint8_t>(1u << ctr_depth_code(value));
      in_depths = true;
      continue;
    }
    if (name.rfind("ete-", 0) == 0) {
      if (!ete.apply(std::string_view(name).substr(4), value)) throw Error("--cpu: unknown ETE size '{}'", name);
      continue;
    }
    bool enable;
    if (value == "on" || value == "true") enable = true;
    else if (value == "off" || value == "false") enable = false;
    else throw Error("--cpu: '{}' must be on or off", item);
    unsigned k = 0;
    for (; k < static_cast<unsigned>(Ext::Count); k++)
      if (name == kNames[k]) break;
    if (k == static_cast<unsigned>(Ext::Count)) throw Error("--cpu: unknown extension '{}'", name);
    if (k == static_cast<unsigned>(Ext::I) && !enable) throw Error("--cpu: the base ISA (i) cannot be turned off");
    on.set(k, enable);
  }
  for (auto [a, b] : kNeeds)
    if (has(a) && !has(b)) throw Error("--cpu: {} needs {}", ext_name(a), ext_name(b));
}

std::string IsaConfig::isa_string() const {
  std::string s = rv32() ? "rv32" : "rv64";
  for (Ext e : {Ext::I, Ext::M, Ext::A, Ext::F, Ext::D, Ext::C})
    if (has(e)) s += ext_name(e);
  for (unsigned k = static_cast<unsigned>(Ext::C) + 1; k < static_cast<unsigned>(Ext::Count); k++)
    if (on.test(k)) s += std::string("_") + kNames[k];
  return s;
}

uint64_t IsaConfig::letters() const {
  uint64_t m = 0;
  for (Ext e : {Ext::I, Ext::M, Ext::A, Ext::F, Ext::D, Ext::C})
    if (has(e)) m |= 1ull << (ext_name(e)[0] - 'a');
  return m;
}

std::vector<std::string> IsaConfig::extension_names() const {
  std::vector<std::string> v;
  for (unsigned k = 0; k < static_cast<unsigned>(Ext::Count); k++)
    if (on.test(k)) v.emplace_back(kNames[k]);
  return v;
}

}  // namespace brisk
