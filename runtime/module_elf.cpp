#include "module_elf.hpp"

#include <libelf.h>

#include <map>

namespace kestrel::runtime::elf {

bool libelf_ready() {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  return ready;
}

// "R_RISCV_HI20 (26)": the name where messages need one, else the number.
std::string relocation_name(uint32_t type) {
  static const std::map<uint32_t, const char*> names = {
      {R_RISCV_NONE, "NONE"},
      {R_RISCV_32, "32"},
      {R_RISCV_64, "64"},
      {R_RISCV_RELATIVE, "RELATIVE"},
      {R_RISCV_COPY, "COPY"},
      {R_RISCV_JUMP_SLOT, "JUMP_SLOT"},
      {R_RISCV_TLS_TPREL32, "TLS_TPREL32"},
      {R_RISCV_BRANCH, "BRANCH"},
      {R_RISCV_JAL, "JAL"},
      {R_RISCV_CALL, "CALL"},
      {R_RISCV_CALL_PLT, "CALL_PLT"},
      {R_RISCV_GOT_HI20, "GOT_HI20"},
      {R_RISCV_TLS_GOT_HI20, "TLS_GOT_HI20"},
      {R_RISCV_TLS_GD_HI20, "TLS_GD_HI20"},
      {R_RISCV_PCREL_HI20, "PCREL_HI20"},
      {R_RISCV_PCREL_LO12_I, "PCREL_LO12_I"},
      {R_RISCV_PCREL_LO12_S, "PCREL_LO12_S"},
      {R_RISCV_HI20, "HI20"},
      {R_RISCV_LO12_I, "LO12_I"},
      {R_RISCV_LO12_S, "LO12_S"},
      {R_RISCV_TPREL_HI20, "TPREL_HI20"},
      {R_RISCV_TPREL_LO12_I, "TPREL_LO12_I"},
      {R_RISCV_TPREL_LO12_S, "TPREL_LO12_S"},
      {R_RISCV_TPREL_ADD, "TPREL_ADD"},
      {R_RISCV_ADD8, "ADD8"},
      {R_RISCV_ADD16, "ADD16"},
      {R_RISCV_ADD32, "ADD32"},
      {R_RISCV_ADD64, "ADD64"},
      {R_RISCV_SUB8, "SUB8"},
      {R_RISCV_SUB16, "SUB16"},
      {R_RISCV_SUB32, "SUB32"},
      {R_RISCV_SUB64, "SUB64"},
      {R_RISCV_ALIGN, "ALIGN"},
      {R_RISCV_RVC_BRANCH, "RVC_BRANCH"},
      {R_RISCV_RVC_JUMP, "RVC_JUMP"},
      {R_RISCV_RVC_LUI, "RVC_LUI"},
      {R_RISCV_GPREL_I, "GPREL_I"},
      {R_RISCV_GPREL_S, "GPREL_S"},
      {R_RISCV_RELAX, "RELAX"},
      {R_RISCV_SUB6, "SUB6"},
      {R_RISCV_SET6, "SET6"},
      {R_RISCV_SET8, "SET8"},
      {R_RISCV_SET16, "SET16"},
      {R_RISCV_SET32, "SET32"},
      {R_RISCV_32_PCREL, "32_PCREL"},
      {R_RISCV_IRELATIVE, "IRELATIVE"},
  };
  const auto found = names.find(type);
  const std::string number = "(" + std::to_string(type) + ")";
  return found == names.end() ? "relocation type " + number
                              : "R_RISCV_" + std::string(found->second) + " " + number;
}

std::optional<KeptType> kept_type(uint32_t type) {
  switch (type) {
    case R_RISCV_NONE:
    case R_RISCV_RELAX:
    case R_RISCV_ALIGN:
      return KeptType{KeptEffect::none, 0};
    case R_RISCV_PCREL_LO12_I:
    case R_RISCV_PCREL_LO12_S:
    case R_RISCV_LO12_I:
    case R_RISCV_LO12_S:
      return KeptType{KeptEffect::none, 4};
    case R_RISCV_BRANCH:
    case R_RISCV_JAL:
    case R_RISCV_PCREL_HI20:
    case R_RISCV_32_PCREL:
      return KeptType{KeptEffect::pc_relative, 4};
    case R_RISCV_CALL:
    case R_RISCV_CALL_PLT:
      return KeptType{KeptEffect::pc_relative, 8};  // auipc + jalr
    case R_RISCV_HI20:
      return KeptType{KeptEffect::upper20, 4};
    case R_RISCV_32:
    case R_RISCV_ADD32:
      return KeptType{KeptEffect::add, 4};
    case R_RISCV_ADD16:
      return KeptType{KeptEffect::add, 2};
    case R_RISCV_ADD8:
      return KeptType{KeptEffect::add, 1};
    case R_RISCV_SUB32:
      return KeptType{KeptEffect::subtract, 4};
    case R_RISCV_SUB16:
      return KeptType{KeptEffect::subtract, 2};
    case R_RISCV_SUB8:
      return KeptType{KeptEffect::subtract, 1};
    default:
      return std::nullopt;
  }
}

}  // namespace kestrel::runtime::elf
