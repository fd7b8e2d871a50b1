// The instruction trace's format (kestrel/model/itrace.hpp).
#include "kestrel/model/itrace.hpp"

#include <cinttypes>
#include <map>
#include <tuple>

#include "kestrel/error.hpp"
#include "kestrel/model/disasm.hpp"

namespace kestrel::model {

InstructionTrace::InstructionTrace(const std::string& path, unsigned xlen)
    : file_(std::fopen(path.c_str(), "w")), xlen_(xlen) {
  if (file_ == nullptr) throw Error(KESTREL_ERROR_IO, "cannot write the instruction trace '" + path + "'");
  std::fprintf(file_, "# Kestrel instruction trace (docs/runtime.md): %-5s %2s %4s %-18s %-8s  %-32s %s\n",
               "cycle", "sm", "warp", "pc", "mask", "instruction", "writes");
}

InstructionTrace::~InstructionTrace() { std::fclose(file_); }

void InstructionTrace::launch(const LaunchDesc& d) {
  std::fprintf(file_, "# launch %" PRIu64 ": entry 0x%" PRIx64 ", grid %ux%ux%u, block %ux%ux%u\n",
               ++launches_, d.entry_pc, d.grid.x, d.grid.y, d.grid.z, d.block.x, d.block.y, d.block.z);
}

void InstructionTrace::retire(uint64_t cycle, uint32_t sm, uint32_t warp_slot, uint64_t pc, uint32_t mask,
                              uint32_t word, const std::vector<RegWrite>& writes) {
  // Writes by register (the issuing warp's first), values in lane order.
  std::map<std::tuple<bool, uint32_t, bool, uint8_t>, std::vector<uint64_t>> by_register;
  for (const RegWrite& w : writes)
    by_register[{w.warp_slot != warp_slot, w.warp_slot, w.fp, w.reg}].push_back(w.value);
  std::string text;
  for (const auto& [key, values] : by_register) {
    const auto& [other, slot, fp, reg] = key;
    if (!text.empty()) text += ' ';
    if (other) text += "w" + std::to_string(slot) + ".";
    text += fp ? f_register_name(reg) : x_register_name(reg);
    bool uniform = true;
    for (uint64_t v : values) uniform = uniform && v == values.front();
    char number[24];
    if (uniform) {
      std::snprintf(number, sizeof number, "=0x%" PRIx64, values.front());
      text += number;
      continue;
    }
    text += "=[";
    for (size_t i = 0; i < values.size(); ++i) {
      std::snprintf(number, sizeof number, i == 0 ? "0x%" PRIx64 : " 0x%" PRIx64, values[i]);
      text += number;
    }
    text += ']';
  }
  std::fprintf(file_, "%12" PRIu64 " %2u %4u 0x%016" PRIx64 " %08x  %-32s %s\n", cycle, sm, warp_slot, pc,
               mask, disassemble(word, xlen_, pc).c_str(), text.c_str());
}

}  // namespace kestrel::model
