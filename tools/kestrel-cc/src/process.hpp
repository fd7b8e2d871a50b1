// Running clang and ld.lld: no shell, arguments passed as they are, and the
// tool's output (its diagnostics) captured for kestrel-cc to print.
#pragma once

#include <string>
#include <vector>

namespace kestrel::cc {

struct ProcessResult {
  int exit_code = 0;   // 128 + signal number if the tool crashed
  std::string output;  // stdout and stderr, interleaved as written
};

// Throws CompileError if the program cannot be started at all.
ProcessResult run_process(const std::vector<std::string>& argv);

// The command as a shell would need it typed (for -v and error messages).
std::string format_command(const std::vector<std::string>& argv);

}  // namespace kestrel::cc
