#include "stack_need.hpp"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "compile_error.hpp"
#include "kestrel/module_format.h"
#include "module_elf.hpp"

namespace kestrel::cc {

namespace {

// t0 links the calls of the prologue routines __riscv_save_N (gcc's
// -msave-restore, which the C library is built with): the frame such a
// routine allocates stays when it returns, so it belongs to its caller.
constexpr uint32_t kRegZero = 0, kRegRa = 1, kRegSp = 2, kRegT0 = 5;

// The parts of the linked file the analysis reads, through elfutils' libelf
// as the module loader reads modules (runtime/module_elf.hpp).  kestrel-cc
// wrote the file moments ago, but a malformed one still gets a message
// rather than a crash.
class LinkedFile {
 public:
  struct Section {
    std::string name;
    uint32_t type = 0;
    uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  };
  struct Symbol {
    uint64_t value = 0, size = 0;
    unsigned type = 0;
  };

  // libelf works on a private copy: elf_memory takes writable memory.
  explicit LinkedFile(const std::vector<uint8_t>& file) : copy_(file) {
    if (!runtime::elf::libelf_ready()) fail("libelf cannot be used");
    elf_ = elf_memory(reinterpret_cast<char*>(copy_.data()), copy_.size());
    if (elf_ == nullptr || elf_kind(elf_) != ELF_K_ELF) fail("not an ELF file");
    is64_ = gelf_getclass(elf_) == ELFCLASS64;
    size_t names = 0;
    if (elf_getshdrstrndx(elf_, &names) != 0) fail("no section name table");
    for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn != nullptr; scn = elf_nextscn(elf_, scn)) {
      GElf_Shdr header;
      if (gelf_getshdr(scn, &header) == nullptr) fail("a section header cannot be read");
      const char* name = elf_strptr(elf_, names, header.sh_name);
      if (name == nullptr) fail("a section name lies outside its string table");
      if (header.sh_type != SHT_NOBITS) bounds(header.sh_offset, header.sh_size);
      sections_.push_back(
          {name, header.sh_type, header.sh_flags, header.sh_addr, header.sh_offset, header.sh_size});
      if (header.sh_type == SHT_SYMTAB) read_symbols(scn);
    }
    if (symbols_.empty()) fail("no symbol table");
  }
  ~LinkedFile() { elf_end(elf_); }
  LinkedFile(const LinkedFile&) = delete;
  LinkedFile& operator=(const LinkedFile&) = delete;

  bool is64() const { return is64_; }
  const std::vector<Section>& sections() const { return sections_; }
  const std::vector<Symbol>& symbols() const { return symbols_; }

  uint64_t load(uint64_t offset, unsigned width) const {
    bounds(offset, width);
    uint64_t value = 0;
    std::memcpy(&value, copy_.data() + offset, width);  // little endian on both sides
    return value;
  }

  [[noreturn]] static void fail(const std::string& why) {
    throw CompileError("cannot compute the kernels' stack need: the linked module is malformed (" + why +
                       ")");
  }

 private:
  void bounds(uint64_t offset, uint64_t width) const {
    if (!runtime::elf::range_within(offset, width, copy_.size()))
      fail("a read lies past the end of the file");
  }

  void read_symbols(Elf_Scn* scn) {
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) fail("the symbol table cannot be read");
    GElf_Sym symbol;
    for (int i = 0; gelf_getsym(data, i, &symbol) != nullptr; ++i)
      symbols_.push_back({symbol.st_value, symbol.st_size, GELF_ST_TYPE(symbol.st_info)});
  }

  std::vector<uint8_t> copy_;
  Elf* elf_ = nullptr;
  bool is64_ = true;
  std::vector<Section> sections_;
  std::vector<Symbol> symbols_;
};

struct Function {
  uint64_t start = 0, end = 0;
  std::optional<uint32_t> recorded_frame;  // from .stack_sizes
  uint32_t frame = 0;
  uint32_t own_flags = 0;
  std::vector<uint64_t> callees;    // start addresses
  std::vector<uint64_t> prologues;  // __riscv_save_N routines called through t0
  // The depth-first walk's state.
  enum class Visit { fresh, on_path, done } visit = Visit::fresh;
  StackNeed need;
};

int64_t sign_extend(uint64_t value, unsigned bits) {
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((value ^ sign) - sign);
}

class CallGraph {
 public:
  explicit CallGraph(const std::vector<uint8_t>& bytes) : file_(bytes) {
    read_functions();
    read_stack_sizes();
    for (auto& [start, function] : functions_) decode(function);
    for (auto& [start, function] : functions_) {
      if (function.recorded_frame) continue;
      for (const uint64_t target : function.prologues) function.frame += prologue_frame(target);
    }
  }

  StackNeed need_of(uint64_t entry) {
    auto found = functions_.find(entry);
    if (found == functions_.end())
      LinkedFile::fail("no function symbol starts at kernel entry " + std::to_string(entry));
    return walk(found->second);
  }

 private:
  // The bytes a __riscv_save_N routine allocates: its first instruction,
  // addi sp, sp, -N.  (The routines share one body, which later moves sp
  // back up by what a smaller N does not save: N is an upper bound.)
  uint32_t prologue_frame(uint64_t address) const {
    const std::optional<uint64_t> offset = code_offset(address, 4);
    if (!offset) return 0;
    const uint32_t inst = static_cast<uint32_t>(file_.load(*offset, 4));
    const int64_t imm = sign_extend(inst >> 20, 12);
    const bool decrements_sp = (inst & 0x000fffffu) == ((kRegSp << 15) | (kRegSp << 7) | 0x13) && imm < 0;
    return decrements_sp ? static_cast<uint32_t>(-imm) : 0;
  }

  Function* containing(uint64_t address) {
    auto found = functions_.upper_bound(address);
    if (found == functions_.begin()) return nullptr;
    --found;
    return address < found->second.end ? &found->second : nullptr;
  }

  const LinkedFile::Section* section_named(const std::string& name) const {
    for (const LinkedFile::Section& s : file_.sections())
      if (s.name == name) return &s;
    return nullptr;
  }

  void read_functions() {
    for (const LinkedFile::Symbol& symbol : file_.symbols()) {
      if (symbol.type != STT_FUNC || symbol.size == 0) continue;
      // An alias (the entry wrapper's) names the same code: one node.
      Function& function = functions_[symbol.value];
      function.start = symbol.value;
      function.end = std::max(function.end, symbol.value + symbol.size);
    }
  }

  // .stack_sizes (clang -fstack-size-section): per function, its address
  // (XLEN wide) and its frame size (ULEB128).
  void read_stack_sizes() {
    const LinkedFile::Section* section = section_named(".stack_sizes");
    if (section == nullptr) return;
    const unsigned word = file_.is64() ? 8 : 4;
    uint64_t at = section->offset;
    const uint64_t end = section->offset + section->size;
    while (at < end) {
      const uint64_t address = file_.load(at, word);
      at += word;
      uint64_t size = 0;
      for (unsigned shift = 0;; shift += 7) {
        if (at >= end || shift > 35) LinkedFile::fail(".stack_sizes has a truncated entry");
        const uint64_t byte = file_.load(at++, 1);
        size |= (byte & 0x7f) << shift;
        if (!(byte & 0x80)) break;
      }
      auto found = functions_.find(address);
      if (found != functions_.end()) found->second.recorded_frame = static_cast<uint32_t>(size);
    }
  }

  // The file offset of the code at link-time address `address`, if an
  // executable section holds it.
  std::optional<uint64_t> code_offset(uint64_t address, uint64_t bytes) const {
    for (const LinkedFile::Section& s : file_.sections()) {
      if (!(s.flags & SHF_EXECINSTR) || s.type != SHT_PROGBITS) continue;
      if (address >= s.addr && address - s.addr <= s.size && bytes <= s.size - (address - s.addr))
        return s.offset + (address - s.addr);
    }
    return std::nullopt;
  }

  void decode(Function& function) {
    const std::optional<uint64_t> offset = code_offset(function.start, function.end - function.start);
    if (!offset) return;  // not code kestrel-cc can read: no frame, no calls
    uint64_t counted_frame = 0;
    const auto inside = [&](uint64_t target) { return target >= function.start && target < function.end; };
    const auto add_call = [&](uint64_t target, uint32_t link) {
      if (!file_.is64()) target &= 0xffffffffu;
      if (link == kRegT0)
        function.prologues.push_back(target);
      else if (link == kRegRa || !inside(target))
        function.callees.push_back(target);
    };
    const uint64_t count = (function.end - function.start) / 4;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t pc = function.start + 4 * i;
      const uint32_t inst = static_cast<uint32_t>(file_.load(*offset + 4 * i, 4));
      const uint32_t opcode = inst & 0x7f, rd = (inst >> 7) & 31, funct3 = (inst >> 12) & 7;
      const uint32_t rs1 = (inst >> 15) & 31;
      const int64_t imm_i = sign_extend(inst >> 20, 12);
      if (opcode == 0x13 && funct3 == 0 && rd == kRegSp && rs1 == kRegSp && imm_i < 0) {
        counted_frame += static_cast<uint64_t>(-imm_i);  // addi sp, sp, -N
      } else if (opcode == 0x33 && funct3 == 0 && rd == kRegSp && rs1 == kRegSp) {
        function.own_flags |= KESTREL_STACK_DYNAMIC;  // add/sub sp, sp, reg: a size in a register
      } else if (opcode == 0x6f && (rd == kRegRa || rd == kRegZero || rd == kRegT0)) {  // jal
        const uint64_t imm = ((inst >> 31) & 1) << 20 | ((inst >> 21) & 0x3ff) << 1 |
                             ((inst >> 20) & 1) << 11 | ((inst >> 12) & 0xff) << 12;
        add_call(pc + static_cast<uint64_t>(sign_extend(imm, 21)), rd);
      } else if (opcode == 0x17 && rd != kRegZero && i + 1 < count) {  // auipc, then maybe jalr
        const uint32_t next = static_cast<uint32_t>(file_.load(*offset + 4 * (i + 1), 4));
        const uint32_t next_rd = (next >> 7) & 31;
        if ((next & 0x7f) == 0x67 && ((next >> 12) & 7) == 0 && ((next >> 15) & 31) == rd &&
            (next_rd == kRegRa || next_rd == kRegZero || next_rd == kRegT0)) {
          const uint64_t target = pc + static_cast<uint64_t>(sign_extend(inst & 0xfffff000u, 32)) +
                                  static_cast<uint64_t>(sign_extend(next >> 20, 12));
          add_call(target, next_rd);
          ++i;
        }
      } else if (opcode == 0x67 && funct3 == 0 && rd == kRegRa) {
        function.own_flags |= KESTREL_STACK_INDIRECT;  // jalr ra, rs: a call through a pointer
      }
    }
    if (function.recorded_frame) {
      function.frame = *function.recorded_frame;
      function.own_flags &= ~uint32_t{KESTREL_STACK_DYNAMIC};  // the compiler's figure covers it
    } else {
      function.frame = static_cast<uint32_t>(std::min<uint64_t>(counted_frame, UINT32_MAX));
    }
  }

  StackNeed walk(Function& function) {
    if (function.visit == Function::Visit::done) return function.need;
    function.visit = Function::Visit::on_path;
    uint64_t deepest = 0;
    uint32_t flags = function.own_flags;
    for (const uint64_t target : function.callees) {
      Function* callee = containing(target);
      if (callee == nullptr) continue;  // no function there (the crt's labels)
      if (callee->visit == Function::Visit::on_path) {
        flags |= KESTREL_STACK_RECURSION;
        continue;
      }
      const StackNeed need = walk(*callee);
      deepest = std::max<uint64_t>(deepest, need.bytes);
      flags |= need.flags;
    }
    function.need.bytes = static_cast<uint32_t>(std::min<uint64_t>(function.frame + deepest, UINT32_MAX));
    function.need.flags = flags;
    function.visit = Function::Visit::done;
    return function.need;
  }

  LinkedFile file_;
  std::map<uint64_t, Function> functions_;
};

}  // namespace

std::vector<StackNeed> kernel_stack_needs_image(const std::vector<uint8_t>& file,
                                                const std::vector<uint64_t>& entries) {
  CallGraph graph(file);
  std::vector<StackNeed> needs;
  for (const uint64_t entry : entries) {
    StackNeed need = graph.need_of(entry);
    // The ABI keeps sp 16-byte aligned, so frames are multiples of 16
    // already; the format promises it whatever a C library function does.
    need.bytes =
        static_cast<uint32_t>(std::min<uint64_t>((uint64_t{need.bytes} + 15) / 16 * 16, 0xfffffff0u));
    needs.push_back(need);
  }
  return needs;
}

std::vector<StackNeed> kernel_stack_needs(const std::string& path, const std::vector<uint64_t>& entries) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError("cannot read module " + path);
  const std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return kernel_stack_needs_image(file, entries);
}

}  // namespace kestrel::cc
