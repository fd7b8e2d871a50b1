// Shared scaffolding for the RTL unit benches: one Verilated model owned with
// its VerilatedContext, a clock, and a deterministic random source.
#pragma once

#include <verilated.h>

#include <cstdint>
#include <memory>
#include <random>

namespace kestrel::rtlbench {

template <typename Model>
class Bench {
 public:
  Bench() : context_(std::make_unique<VerilatedContext>()) {
    context_->randReset(0);
    model_ = std::make_unique<Model>(context_.get());
  }
  ~Bench() { model_->final(); }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  Model& dut() { return *model_; }
  Model* operator->() { return model_.get(); }

  // Combinational settle without a clock edge.
  void eval() { model_->eval(); }

  // One full clock cycle: inputs set by the caller are sampled at the rising
  // edge; outputs read afterwards show the state after the edge.
  void tick() {
    model_->clk_i = 0;
    model_->eval();
    model_->clk_i = 1;
    model_->eval();
    context_->timeInc(1);
  }

  // A falling edge of rst_ni, even at the first reset (signals start at 0):
  // without one the asynchronous resets are never applied and a reset value
  // other than 0 would go untested.
  void reset() {
    model_->clk_i = 0;
    model_->rst_ni = 1;
    model_->eval();
    model_->rst_ni = 0;
    model_->eval();
    model_->rst_ni = 1;
    model_->eval();
  }

 private:
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<Model> model_;
};

// Operands that hit the interesting corners far more often than uniform
// random values do: zero, one, all ones, the sign bit, small values.
inline uint64_t corner_operand(std::mt19937_64& rng, unsigned xlen) {
  const uint64_t mask = xlen == 64 ? ~0ull : 0xFFFFFFFFull;
  const uint64_t sign = 1ull << (xlen - 1);
  switch (rng() % 8) {
    case 0:
      return 0;
    case 1:
      return 1;
    case 2:
      return mask;
    case 3:
      return sign;
    case 4:
      return (sign - 1) & mask;
    case 5:
      return rng() % 64;
    case 6:
      return (0xFFFFFFFF80000000ull | (rng() & 0xFFFFFFFF)) & mask;
    default:
      return rng() & mask;
  }
}

}  // namespace kestrel::rtlbench
