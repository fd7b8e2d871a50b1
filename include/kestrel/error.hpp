// The typed error thrown at Kestrel's C++ boundary.  The C API catches it and
// returns its status code.
#pragma once

#include <stdexcept>
#include <string>

#include "kestrel/status.h"

namespace kestrel {

class Error : public std::runtime_error {
 public:
  Error(kestrel_status status, const std::string& what) : std::runtime_error(what), status_(status) {}
  kestrel_status status() const noexcept { return status_; }

 private:
  kestrel_status status_;
};

}  // namespace kestrel
