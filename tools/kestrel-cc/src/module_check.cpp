#include "module_check.hpp"

#include <elf.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include "compile_error.hpp"
#include "kestrel/abi.h"
#include "kestrel/module_format.h"

namespace kestrel::cc {
namespace {

// Field-by-field reads so one code path handles ELF32 and ELF64 (the device
// is little-endian, as is every host kestrel-cc runs on).
class ImageReader {
 public:
  explicit ImageReader(const std::vector<uint8_t>& image) : image_(image) {}
  uint64_t read(uint64_t offset, unsigned bytes) const {
    if (offset > image_.size() || bytes > image_.size() - offset)
      throw CompileError("module is truncated: read of " + std::to_string(bytes) + " bytes at offset " +
                         std::to_string(offset) + " past the end");
    uint64_t value = 0;
    for (unsigned i = 0; i < bytes; ++i) value |= uint64_t{image_[offset + i]} << (8 * i);
    return value;
  }
  std::string string(uint64_t offset) const {
    std::string out;
    while (offset < image_.size() && image_[offset] != 0) out += static_cast<char>(image_[offset++]);
    if (offset >= image_.size()) throw CompileError("module string table is not terminated");
    return out;
  }
  uint64_t size() const { return image_.size(); }

 private:
  const std::vector<uint8_t>& image_;
};

struct Section {
  std::string name;
  uint32_t name_offset = 0, type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
};
struct Segment {
  uint32_t type = 0, flags = 0;
  uint64_t offset = 0, vaddr = 0, filesz = 0, memsz = 0, align = 0;
};

std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// The relocations an RV32 static module keeps (--emit-relocs) for the
// loader: only kinds whose fix-up is none or "add the base", R_RISCV_HI20
// only on a lui, and nothing PC-relative to a fixed address (docs/isa.md
// section 8; runtime/module_image.cpp applies the same rules).  Adds the
// addresses the loader will patch to `relocated`.
void check_kept_relocations(const ImageReader& in, const std::vector<Section>& sections, const Section& rela,
                            std::set<uint64_t>& relocated) {
  if (rela.info == 0 || rela.info >= sections.size())
    throw CompileError("static RV32 module has relocation table " + rela.name + " that patches no section");
  const Section& target = sections[rela.info];
  if (!(target.flags & SHF_ALLOC)) return;  // debug information
  if (rela.link >= sections.size() || sections[rela.link].type != SHT_SYMTAB)
    throw CompileError(rela.name + " has no symbol table");
  const Section& symbols = sections[rela.link];
  for (uint64_t at = rela.offset; at + 12 <= rela.offset + rela.size; at += 12) {
    const uint64_t offset = in.read(at, 4);
    const uint64_t info = in.read(at + 4, 4);
    const uint64_t type = ELF32_R_TYPE(info), symbol = ELF32_R_SYM(info);
    const std::string where =
        "relocation type " + std::to_string(type) + " at " + hex(offset) + " in " + rela.name;
    if (offset < target.addr || offset >= target.addr + target.size)
      throw CompileError(where + " patches outside " + target.name);
    // A symbol moves with the module when it is defined in a section;
    // absolute and undefined weak symbols keep their value.
    bool moves = false;
    if (symbol != 0) {
      if (symbol * 16 >= symbols.size) throw CompileError(where + " refers to a symbol past the table");
      const uint64_t shndx = in.read(symbols.offset + symbol * 16 + 14, 2);
      moves = shndx != SHN_UNDEF && shndx < SHN_LORESERVE;
    }
    switch (type) {
      case R_RISCV_NONE:
      case R_RISCV_RELAX:
      case R_RISCV_ALIGN:
      case R_RISCV_LO12_I:
      case R_RISCV_LO12_S:
      case R_RISCV_PCREL_LO12_I:
      case R_RISCV_PCREL_LO12_S:
      case R_RISCV_ADD8:
      case R_RISCV_ADD16:
      case R_RISCV_ADD32:
      case R_RISCV_SUB8:
      case R_RISCV_SUB16:
      case R_RISCV_SUB32:
        break;
      case R_RISCV_BRANCH:
      case R_RISCV_JAL:
      case R_RISCV_CALL:
      case R_RISCV_CALL_PLT:
      case R_RISCV_PCREL_HI20:
      case R_RISCV_32_PCREL:
        if (!moves) throw CompileError(where + " is PC-relative to a fixed address");
        break;
      case R_RISCV_HI20:
        if ((in.read(target.offset + (offset - target.addr), 1) & 0x7F) != 0x37)
          throw CompileError(where + " does not patch a lui instruction");
        if (moves) relocated.insert(offset);
        break;
      case R_RISCV_32:
        if (moves) relocated.insert(offset);
        break;
      default:
        throw CompileError(where +
                           " cannot be applied by the loader (GOT, TLS or another kind a static "
                           "RV32 module must not hold)");
    }
  }
}

}  // namespace

ModuleSummary check_module_image(const std::vector<uint8_t>& image, unsigned xlen) {
  const ImageReader in(image);
  if (image.size() < EI_NIDENT || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0)
    throw CompileError("module is not an ELF file");
  const bool is64 = image[EI_CLASS] == ELFCLASS64;
  if (image[EI_CLASS] != (xlen == 64 ? ELFCLASS64 : ELFCLASS32))
    throw CompileError("module ELF class does not match xlen " + std::to_string(xlen));
  if (image[EI_DATA] != ELFDATA2LSB) throw CompileError("module is not little-endian");
  const unsigned word = is64 ? 8 : 4;
  // ELF header fields after e_ident: type(2) machine(2) version(4) entry phoff shoff (word each) flags(4)
  // ehsize(2) phentsize(2) phnum(2) shentsize(2) shnum(2) shstrndx(2).
  const uint64_t e_type = in.read(16, 2), e_machine = in.read(18, 2);
  const uint64_t e_phoff = in.read(24 + word, word), e_shoff = in.read(24 + 2 * word, word);
  const uint64_t e_flags = in.read(24 + 3 * word, 4);
  const uint64_t fields = 28 + 3 * word;
  const uint64_t e_phentsize = in.read(fields + 2, 2), e_phnum = in.read(fields + 4, 2);
  const uint64_t e_shentsize = in.read(fields + 6, 2), e_shnum = in.read(fields + 8, 2);
  const uint64_t e_shstrndx = in.read(fields + 10, 2);
  if (e_machine != EM_RISCV)
    throw CompileError("module is not a RISC-V ELF (e_machine " + hex(e_machine) + ")");
  // RV64: a PIE.  RV32: a static executable with its relocations kept
  // (Debian's RV32 C library is position-dependent code).
  const bool static_module = xlen == 32;
  if (e_type != (static_module ? ET_EXEC : ET_DYN))
    throw CompileError(static_module ? "RV32 module is not a static executable (ELF type is not ET_EXEC)"
                                     : "module is not position independent (ELF type is not ET_DYN)");
  if (e_flags & EF_RISCV_RVC) throw CompileError("module is marked as using compressed instructions");
  if ((e_flags & EF_RISCV_FLOAT_ABI) != EF_RISCV_FLOAT_ABI_SINGLE)
    throw CompileError("module float ABI is not single-float (lp64f/ilp32f)");

  std::vector<Segment> segments;
  for (uint64_t i = 0; i < e_phnum; ++i) {
    const uint64_t at = e_phoff + i * e_phentsize;
    Segment s;
    s.type = static_cast<uint32_t>(in.read(at, 4));
    if (is64) {
      s.flags = static_cast<uint32_t>(in.read(at + 4, 4));
      s.offset = in.read(at + 8, 8);
      s.vaddr = in.read(at + 16, 8);
      s.filesz = in.read(at + 32, 8);
      s.memsz = in.read(at + 40, 8);
      s.align = in.read(at + 48, 8);
    } else {
      s.offset = in.read(at + 4, 4);
      s.vaddr = in.read(at + 8, 4);
      s.filesz = in.read(at + 16, 4);
      s.memsz = in.read(at + 20, 4);
      s.flags = static_cast<uint32_t>(in.read(at + 24, 4));
      s.align = in.read(at + 28, 4);
    }
    segments.push_back(s);
  }
  ModuleSummary summary;
  summary.xlen = xlen;
  for (const Segment& s : segments) {
    if (s.type == PT_INTERP) throw CompileError("module asks for a dynamic loader (PT_INTERP)");
    if (s.type == PT_TLS)
      throw CompileError(
          "module uses thread-local storage (for example errno in a C library function), which "
          "Kestrel does not provide");
    if (s.type != PT_LOAD) continue;
    if (s.offset > in.size() || s.filesz > in.size() - s.offset)
      throw CompileError("module segment at " + hex(s.vaddr) + " lies outside the file");
    if (s.vaddr % KESTREL_PAGE_SIZE != 0)
      throw CompileError("module segment at " + hex(s.vaddr) + " is not page aligned");
    if ((s.flags & PF_W) && (s.flags & PF_X))
      throw CompileError("module has a writable and executable segment");
    summary.image_bytes = std::max(summary.image_bytes, s.vaddr + s.memsz);
  }

  std::vector<Section> sections;
  for (uint64_t i = 0; i < e_shnum; ++i) {
    const uint64_t at = e_shoff + i * e_shentsize;
    // Shdr: name(4) type(4) then flags, addr, offset, size, each XLEN wide.
    Section s;
    s.name_offset = static_cast<uint32_t>(in.read(at, 4));
    s.type = static_cast<uint32_t>(in.read(at + 4, 4));
    s.flags = in.read(at + 8, word);
    s.addr = in.read(at + 8 + word, word);
    s.offset = in.read(at + 8 + 2 * word, word);
    s.size = in.read(at + 8 + 3 * word, word);
    s.link = static_cast<uint32_t>(in.read(at + 8 + 4 * word, 4));
    s.info = static_cast<uint32_t>(in.read(at + 12 + 4 * word, 4));
    sections.push_back(s);
  }
  if (e_shstrndx >= sections.size()) throw CompileError("module has no section name table");
  for (uint64_t i = 0; i < sections.size(); ++i)
    sections[i].name = in.string(sections[e_shstrndx].offset + sections[i].name_offset);

  const Section* kernels = nullptr;
  std::set<uint64_t> relocated;  // link-time addresses the loader adds the base to
  for (const Section& s : sections) {
    if (s.type == SHT_REL) throw CompileError("module has REL relocations; only RELA is allowed");
    if (static_module && (s.flags & SHF_ALLOC) && s.size > 0 &&
        (s.type == SHT_DYNAMIC || s.name == ".got" || s.name == ".got.plt" || s.name == ".plt" ||
         s.name == ".iplt"))
      throw CompileError("static RV32 module has a " + s.name +
                         " section, whose addresses no kept relocation describes");
    if (s.type == SHT_RELA && !static_module) {
      const uint64_t entry = is64 ? 24 : 12;
      for (uint64_t at = s.offset; at + entry <= s.offset + s.size; at += entry) {
        const uint64_t info = in.read(at + word, word);
        const uint64_t type = is64 ? ELF64_R_TYPE(info) : ELF32_R_TYPE(info);
        if (type != R_RISCV_RELATIVE)
          throw CompileError("module has relocation type " + std::to_string(type) + " in " + s.name +
                             "; only R_RISCV_RELATIVE is allowed");
        relocated.insert(in.read(at, word));
      }
    }
    if (s.type == SHT_RELA && static_module) check_kept_relocations(in, sections, s, relocated);
    if ((s.flags & SHF_EXECINSTR) && s.type == SHT_PROGBITS) {
      if (s.addr % 4 != 0 || s.size % 4 != 0)
        throw CompileError("executable section " + s.name + " is not a whole number of 32-bit instructions");
      for (uint64_t at = 0; at < s.size; at += 4) {
        // A 32-bit RISC-V instruction has its two low bits set; anything else
        // starts a 16-bit (compressed) instruction.
        if ((in.read(s.offset + at, 1) & 3u) != 3u)
          throw CompileError("compressed instruction at " + hex(s.addr + at) + " in " + s.name);
      }
    }
    if (s.name == KESTREL_SHARED_SECTION) {
      summary.static_shared_bytes = s.size;
      for (const Segment& seg : segments)
        if (seg.type == PT_LOAD && s.size > 0 && s.addr < seg.vaddr + seg.memsz &&
            seg.vaddr < s.addr + s.size)
          throw CompileError("the shared window overlaps a loadable segment");
    }
    if (s.name == KESTREL_KERNELS_SECTION) kernels = &s;
  }
  if (!kernels) throw CompileError("module has no " KESTREL_KERNELS_SECTION " section");
  summary.relocations = relocated.size();

  // struct kestrel_kernel_desc: four uint32_t, then three XLEN-wide pointers.
  const uint64_t desc_bytes = 16 + 3 * word;
  if (kernels->size == 0 || kernels->size % desc_bytes != 0)
    throw CompileError(KESTREL_KERNELS_SECTION " size " + std::to_string(kernels->size) +
                       " is not a multiple of the descriptor size " + std::to_string(desc_bytes));
  // Descriptor pointers are link-time addresses (base 0); map them to file offsets.
  auto file_offset = [&](uint64_t address, uint64_t bytes, const char* what) {
    for (const Segment& seg : segments)
      if (seg.type == PT_LOAD && address >= seg.vaddr && address + bytes <= seg.vaddr + seg.filesz)
        return seg.offset + (address - seg.vaddr);
    throw CompileError(std::string("kernel descriptor ") + what + " " + hex(address) +
                       " is outside the image");
  };
  for (uint64_t at = kernels->offset; at < kernels->offset + kernels->size; at += desc_bytes) {
    if (in.read(at, 4) != KESTREL_KERNEL_DESC_MAGIC)
      throw CompileError("kernel descriptor with a bad magic number");
    ModuleKernel k;
    k.num_params = static_cast<uint32_t>(in.read(at + 4, 4));
    k.param_bytes = static_cast<uint32_t>(in.read(at + 8, 4));
    k.param_align = static_cast<uint32_t>(in.read(at + 12, 4));
    k.entry = in.read(at + 16, word);
    const uint64_t name = in.read(at + 16 + word, word);
    const uint64_t params = in.read(at + 16 + 2 * word, word);
    // The descriptors are loaded with the image, so their pointers move with it.
    const uint64_t pointers = kernels->addr + (at - kernels->offset) + 16;
    if (!relocated.count(pointers) || !relocated.count(pointers + word) ||
        (k.num_params > 0 && !relocated.count(pointers + 2 * word)))
      throw CompileError("a kernel descriptor pointer has no relocation");
    k.name = in.string(file_offset(name, 1, "name"));
    file_offset(k.entry, 4, "entry");
    if (k.num_params > 0) {
      const uint64_t table = file_offset(params, uint64_t{k.num_params} * 16, "parameter table");
      uint64_t end = 0;
      for (uint32_t i = 0; i < k.num_params; ++i) {
        ModuleParam p;
        p.offset = static_cast<uint32_t>(in.read(table + 16 * i, 4));
        p.size = static_cast<uint32_t>(in.read(table + 16 * i + 4, 4));
        p.align = static_cast<uint32_t>(in.read(table + 16 * i + 8, 4));
        p.kind = static_cast<uint32_t>(in.read(table + 16 * i + 12, 4));
        if (p.align == 0 || (p.align & (p.align - 1)) != 0 || p.offset % p.align != 0 || p.offset < end ||
            p.kind > KESTREL_PARAM_POINTER)
          throw CompileError("kernel " + k.name + " has a malformed parameter " + std::to_string(i));
        end = uint64_t{p.offset} + p.size;
        k.params.push_back(p);
      }
      if (end > k.param_bytes) throw CompileError("kernel " + k.name + " parameters exceed its buffer size");
    }
    summary.kernels.push_back(k);
  }
  return summary;
}

ModuleSummary check_module(const std::string& path, unsigned xlen) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw CompileError("cannot read module " + path);
  const std::vector<uint8_t> image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return check_module_image(image, xlen);
}

}  // namespace kestrel::cc
