// The one error type of kestrel-cc: a message for the user, printed as
// "kestrel-cc: error: <message>" and turned into exit status 1.
#pragma once

#include <stdexcept>
#include <string>

namespace kestrel::cc {

class CompileError : public std::runtime_error {
 public:
  explicit CompileError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace kestrel::cc
