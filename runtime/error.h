// The one exception type brisk throws for bad input: its message is the one-line error the CLI prints.
#pragma once

#include <stdexcept>

#include <fmt/format.h>

namespace brisk {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
  template <typename... Args>
  explicit Error(fmt::format_string<Args...> f, Args&&... args)
      : std::runtime_error(fmt::format(f, std::forward<Args>(args)...)) {}
};

}  // namespace brisk
