// kestrel-cc: CUDA C++ sources in, a Kestrel device module out.
#include <iostream>
#include <string>
#include <vector>

#include "compiler.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return kestrel::cc::run_kestrel_cc(args, std::cout, std::cerr);
}
