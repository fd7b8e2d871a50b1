// ELF parsing for device modules.  Reads ELF32 and ELF64 little-endian files
// with elfutils' libelf (elf_memory, gelf_*) and checks every header, range,
// index and string before use, so a corrupt or hostile file can only ever
// produce an INVALID_MODULE error.
#include "kestrel/runtime/module_image.hpp"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include "kestrel/abi.h"
#include "kestrel/error.hpp"
#include "module_elf.hpp"

namespace kestrel::runtime {
namespace {

using namespace elf;

// A program header as libelf gives it, for either class.
using Segment = GElf_Phdr;

// A section header as libelf gives it, with its name and libelf's handle.
struct Section : GElf_Shdr {
  std::string name;
  Elf_Scn* scn = nullptr;
};

struct ElfEnd {
  void operator()(Elf* elf) const { elf_end(elf); }
};

// libelf's reason for the last failure, for messages.
std::string libelf_error() {
  const char* text = elf_errmsg(-1);
  return text != nullptr ? text : "unknown libelf error";
}

class Parser {
 public:
  // libelf works on a private copy of the file: elf_memory takes writable
  // memory and callers may hand read-only bytes.
  Parser(const uint8_t* data, size_t size, unsigned device_xlen)
      : copy_(data, data + size), file_(copy_.data(), copy_.size()), device_xlen_(device_xlen) {}

  ModuleImage run() {
    read_header();
    read_segments();
    read_sections();
    check_code();
    read_symbols();
    place_shared_window();
    build_image();
    apply_relocations();
    check_symbols();
    read_kernels();
    read_stack_needs();
    keep_debug_info();
    return std::move(out_);
  }

 private:
  // The identification bytes decide whether libelf may read the file at all
  // (it would take a wrong class or data encoding for "not ELF"), so they
  // are checked first with the messages a user needs.
  void read_header() {
    if (file_.size() < EI_NIDENT || std::memcmp(file_.data(), ELFMAG, SELFMAG) != 0)
      invalid("not an ELF file (bad magic)");
    const uint8_t elf_class = file_.u8(EI_CLASS, "ELF class");
    if (elf_class != ELFCLASS32 && elf_class != ELFCLASS64)
      invalid("unknown ELF class " + std::to_string(elf_class));
    is64_ = elf_class == ELFCLASS64;
    word_ = is64_ ? 8 : 4;
    const unsigned module_xlen = is64_ ? 64 : 32;
    if (module_xlen != device_xlen_) {
      invalid("ELF class is " + std::string(is64_ ? "ELF64 (RV64)" : "ELF32 (RV32)") +
              " but the device is RV" + std::to_string(device_xlen_));
    }
    out_.xlen = module_xlen;
    if (file_.u8(EI_DATA, "ELF data encoding") != ELFDATA2LSB) invalid("not little-endian");
    if (file_.u8(EI_VERSION, "ELF version") != EV_CURRENT) invalid("unknown ELF version");
    if (file_.size() < (is64_ ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
      invalid("truncated ELF header (" + std::to_string(file_.size()) + " bytes)");

    if (!libelf_ready()) invalid("libelf does not support ELF version " + std::to_string(EV_CURRENT));
    elf_.reset(elf_memory(reinterpret_cast<char*>(copy_.data()), copy_.size()));
    // libelf refuses a file whose section header table does not fit in it.
    if (!elf_ || elf_kind(elf_.get()) != ELF_K_ELF)
      invalid("section headers lie outside the file (libelf: " + libelf_error() + ")");
    GElf_Ehdr header;
    if (gelf_getehdr(elf_.get(), &header) == nullptr)
      invalid("unreadable ELF header (libelf: " + libelf_error() + ")");
    sym_size_ = gelf_fsize(elf_.get(), ELF_T_SYM, 1, EV_CURRENT);
    rela_size_ = gelf_fsize(elf_.get(), ELF_T_RELA, 1, EV_CURRENT);
    rel_size_ = gelf_fsize(elf_.get(), ELF_T_REL, 1, EV_CURRENT);

    const uint16_t type = header.e_type;
    const uint16_t machine = header.e_machine;
    if (machine != EM_RISCV) invalid("e_machine is " + std::to_string(machine) + ", not EM_RISCV (243)");
    // RV64 modules are position independent (ET_DYN).  RV32 modules may
    // also be static executables at base 0 with their link-time relocations
    // kept, because Debian's RV32 C library is position-dependent code.
    if (type == ET_EXEC) {
      if (is64_)
        invalid(
            "e_type is ET_EXEC in an RV64 module; RV64 modules must be position independent "
            "(ET_DYN, linked with -pie at base 0)");
      static_executable_ = true;
    } else if (type != ET_DYN) {
      invalid("e_type is " + std::to_string(type) +
              ", neither ET_DYN (linked with -pie at base 0) nor, on RV32, ET_EXEC (linked at base 0 "
              "with --emit-relocs)");
    }
    const uint32_t flags = header.e_flags;
    if (flags & EF_RISCV_RVC)
      invalid("compiled with compressed instructions (EF_RISCV_RVC); Kestrel has no C extension");
    if (flags & EF_RISCV_RVE) invalid("RV32E/RV64E module (EF_RISCV_RVE)");
    if ((flags & EF_RISCV_FLOAT_ABI) != EF_RISCV_FLOAT_ABI_SINGLE) {
      invalid("float ABI flags " + hex(flags & EF_RISCV_FLOAT_ABI) + " are not single (ilp32f/lp64f)");
    }
    // Extended numbering (PN_XNUM, SHN_XINDEX) is libelf's to resolve.
    size_t phnum = 0, shnum = 0, shstrndx = 0;
    if (elf_getphdrnum(elf_.get(), &phnum) != 0)
      invalid("program headers lie outside the file (libelf: " + libelf_error() + ")");
    if (phnum == 0) invalid("no program headers");
    const size_t phdr_size = gelf_fsize(elf_.get(), ELF_T_PHDR, 1, EV_CURRENT);
    if (header.e_phentsize != phdr_size)
      invalid("e_phentsize " + std::to_string(header.e_phentsize) + " is wrong");
    if (!range_within(header.e_phoff, uint64_t{phnum} * phdr_size, file_.size()))
      invalid("program headers lie outside the file");
    if (elf_getshdrnum(elf_.get(), &shnum) != 0)
      invalid("unreadable section header count (libelf: " + libelf_error() + ")");
    if (shnum == 0) invalid("no section headers (stripped of sections?)");
    const size_t shdr_size = gelf_fsize(elf_.get(), ELF_T_SHDR, 1, EV_CURRENT);
    if (header.e_shentsize != shdr_size)
      invalid("e_shentsize " + std::to_string(header.e_shentsize) + " is wrong");
    if (!range_within(header.e_shoff, uint64_t{shnum} * shdr_size, file_.size()))
      invalid("section headers lie outside the file");
    if (elf_getshdrstrndx(elf_.get(), &shstrndx) != 0 || shstrndx >= shnum)
      invalid("e_shstrndx " + std::to_string(header.e_shstrndx) + " is out of range");
    phnum_ = phnum;
    shnum_ = shnum;
    shstrndx_ = shstrndx;
  }

  void read_segments() {
    for (size_t i = 0; i < phnum_; ++i) {
      Segment s;
      if (gelf_getphdr(elf_.get(), static_cast<int>(i), &s) == nullptr)
        invalid("unreadable program header " + std::to_string(i) + " (libelf: " + libelf_error() + ")");
      if (s.p_type == PT_INTERP) invalid("module asks for a dynamic loader (PT_INTERP)");
      if (s.p_type == PT_TLS)
        invalid(
            "module uses thread-local storage (for example errno in a C library function), which "
            "Kestrel does not provide");
      if (s.p_type != PT_LOAD) continue;
      const std::string which = "segment " + std::to_string(i);
      if (s.p_memsz == 0) continue;
      if (s.p_filesz > s.p_memsz) invalid(which + " has p_filesz > p_memsz");
      if (!range_within(s.p_offset, s.p_filesz, file_.size())) invalid(which + " lies outside the file");
      if (!range_within(s.p_vaddr, s.p_memsz, kMaxImageBytes))
        invalid(which + " at " + hex(s.p_vaddr) + " + " + hex(s.p_memsz) + " exceeds the " +
                hex(kMaxImageBytes) + "-byte image limit");
      for (const Segment& other : segments_) {
        if (s.p_vaddr < other.p_vaddr + other.p_memsz && other.p_vaddr < s.p_vaddr + s.p_memsz)
          invalid(which + " overlaps another loadable segment");
      }
      segments_.push_back(s);
    }
    if (segments_.empty()) invalid("no loadable segments");
  }

  void read_sections() {
    sections_.resize(shnum_);
    for (size_t i = 0; i < shnum_; ++i) {
      Section& s = sections_[i];
      s.scn = elf_getscn(elf_.get(), i);
      if (s.scn == nullptr || gelf_getshdr(s.scn, &s) == nullptr)
        invalid("unreadable section header " + std::to_string(i) + " (libelf: " + libelf_error() + ")");
      if (s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL &&
          !range_within(s.sh_offset, s.sh_size, file_.size()))
        invalid("section " + std::to_string(i) + " lies outside the file");
    }
    if (sections_[shstrndx_].sh_type != SHT_STRTAB) invalid("e_shstrndx does not name a string table");
    for (Section& s : sections_) s.name = string_at(shstrndx_, s.sh_name, "section name");
  }

  // The NUL-terminated string at `offset` of string table `table` (a section
  // index); libelf checks that it lies inside the table and ends there.
  std::string string_at(size_t table, uint64_t offset, const char* what) const {
    refuse_compressed(sections_[table], "string table " + sections_[table].name);
    const char* text = elf_strptr(elf_.get(), table, offset);
    if (text == nullptr)
      invalid(std::string(what) + " at " + hex(offset) +
              " is outside its string table or not NUL-terminated");
    const size_t length = strnlen(text, kMaxNameBytes + 1);
    if (length > kMaxNameBytes) invalid(std::string(what) + " at " + hex(offset) + " is too long");
    return std::string(text, length);
  }

  // libelf would hand over a compressed section's header and packed bytes;
  // only debug information (which the loader does not read) may be packed.
  static void refuse_compressed(const Section& section, const std::string& what) {
    if (section.sh_flags & SHF_COMPRESSED)
      invalid(what + " is compressed (SHF_COMPRESSED); only debug sections may be");
  }

  // The bytes a section holds in the file, through libelf.  read_sections
  // checked the range of every section with contents; SHT_NULL and
  // SHT_NOBITS have none (their sh_offset and sh_size say nothing about the
  // file).
  Bytes contents(const Section& section, const std::string& what) const {
    if (section.sh_type == SHT_NULL || section.sh_type == SHT_NOBITS) invalid(what + " has no contents");
    refuse_compressed(section, what);
    const Elf_Data* data = elf_rawdata(section.scn, nullptr);
    if (data == nullptr && section.sh_size != 0)
      invalid(what + " is unreadable (libelf: " + libelf_error() + ")");
    if (data == nullptr) return Bytes(file_.data(), 0);
    return Bytes(static_cast<const uint8_t*>(data->d_buf), data->d_size);
  }

  // The entries of a symbol or relocation table in libelf's memory form
  // (elf_getdata translates ELF32 and ELF64 alike).
  Elf_Data* table_data(const Section& table) const {
    refuse_compressed(table, table.name);
    Elf_Data* data = elf_getdata(table.scn, nullptr);
    if (data == nullptr) invalid(table.name + " is unreadable (libelf: " + libelf_error() + ")");
    return data;
  }

  // Number of `entry`-byte entries of `table`, which must hold whole ones.
  uint64_t entries(const Section& table, size_t entry, const std::string& what) const {
    if (entry == 0 || table.sh_size % entry != 0) invalid(what + " " + table.name + " has a partial entry");
    if (table.sh_size / entry > INT_MAX) invalid(what + " " + table.name + " has too many entries");
    return table.sh_size / entry;
  }

  // Kestrel has no C extension: every executable section holds whole 32-bit
  // instructions (EF_RISCV_RVC is refused in read_header; this catches
  // compressed code from an object that did not set it).
  void check_code() const {
    for (const Section& s : sections_) {
      if (!(s.sh_flags & SHF_EXECINSTR) || !(s.sh_flags & SHF_ALLOC) || s.sh_type != SHT_PROGBITS) continue;
      if (s.sh_addr % 4 != 0 || s.sh_size % 4 != 0)
        invalid("executable section " + s.name + " is not a whole number of 32-bit instructions");
      const Bytes code = contents(s, "executable section " + s.name);
      for (uint64_t at = 0; at < code.size(); at += 4) {
        // A 32-bit RISC-V instruction has its two low bits set; anything else
        // starts a 16-bit (compressed) one.
        if ((code.u8(at, "instruction") & 3u) != 3u)
          invalid("compressed instruction at " + hex(s.sh_addr + at) + " in " + s.name);
      }
    }
  }

  const Segment* segment_holding(uint64_t addr, uint64_t bytes) const {
    for (const Segment& s : segments_) {
      if (addr >= s.p_vaddr && range_within(addr - s.p_vaddr, bytes, s.p_memsz)) return &s;
    }
    return nullptr;
  }

  void build_image() {
    uint64_t end = 0;
    for (const Segment& s : segments_) end = std::max(end, s.p_vaddr + s.p_memsz);
    out_.bytes.assign(end, 0);
    std::map<uint64_t, uint32_t> page_perms;
    for (const Segment& s : segments_) {
      std::memcpy(out_.bytes.data() + s.p_vaddr, file_.data() + s.p_offset, s.p_filesz);
      uint32_t perms = KESTREL_PAGE_READ;
      if (s.p_flags & PF_W) perms |= KESTREL_PAGE_WRITE;
      if (s.p_flags & PF_X) perms |= KESTREL_PAGE_EXEC;
      // Segments that share a page (a linker script without page alignment)
      // give that page the union of their permissions.
      for (uint64_t page = s.p_vaddr / KESTREL_PAGE_SIZE;
           page <= (s.p_vaddr + s.p_memsz - 1) / KESTREL_PAGE_SIZE; ++page)
        page_perms[page] |= perms;
    }
    for (const auto& [page, perms] : page_perms) {
      if (!out_.page_runs.empty()) {
        PageRun& last = out_.page_runs.back();
        if (last.first_page + last.pages == page && last.perms == perms) {
          ++last.pages;
          continue;
        }
      }
      out_.page_runs.push_back(PageRun{page, 1, perms});
    }
  }

  void add_relocation(uint64_t offset, std::optional<int64_t> addend, const std::string& where) {
    const unsigned w = word_;
    if (segment_holding(offset, w) == nullptr)
      invalid(where + " patches " + hex(offset) + ", outside every segment");
    if (offset % w != 0) invalid(where + " patches misaligned address " + hex(offset));
    uint64_t value = 0;
    if (addend) {
      value = static_cast<uint64_t>(*addend);
    } else {
      std::memcpy(&value, out_.bytes.data() + offset, w);  // REL: the addend is in place
    }
    if (!is64_) value &= 0xFFFFFFFFu;
    if (value >= out_.bytes.size() + kMaxImageBytes)
      invalid(where + " has addend " + hex(value) + " far outside the image");
    std::memcpy(out_.bytes.data() + offset, &value, w);
    out_.relocations.push_back(offset);
  }

  // ET_DYN (every RV64 module, older RV32 ones): the dynamic relocations,
  // which may only be R_RISCV_RELATIVE.
  void apply_dynamic_relocations() {
    for (const Section& s : sections_) {
      if (s.sh_type != SHT_RELA && s.sh_type != SHT_REL) continue;
      const bool with_addend = s.sh_type == SHT_RELA;
      const uint64_t count = entries(s, with_addend ? rela_size_ : rel_size_, "relocation section");
      Elf_Data* data = table_data(s);
      for (uint64_t i = 0; i < count; ++i) {
        GElf_Rela rela{};
        GElf_Rel rel{};
        const bool read = with_addend ? gelf_getrela(data, static_cast<int>(i), &rela) != nullptr
                                      : gelf_getrel(data, static_cast<int>(i), &rel) != nullptr;
        if (!read) invalid("unreadable relocation in " + s.name + " (libelf: " + libelf_error() + ")");
        const GElf_Addr offset = with_addend ? rela.r_offset : rel.r_offset;
        const uint32_t type = static_cast<uint32_t>(GELF_R_TYPE(with_addend ? rela.r_info : rel.r_info));
        if (type != R_RISCV_RELATIVE) {
          invalid(
              relocation_name(type) + " in " + s.name +
              " (a position-independent module may only hold R_RISCV_RELATIVE; was it linked with -pie?)");
        }
        // libelf sign-extends an ELF32 addend.
        std::optional<int64_t> addend;
        if (with_addend) addend = rela.r_addend;
        add_relocation(offset, addend, "a relocation in " + s.name);
      }
    }
  }

  // Symbol `index` of `table`, which entries() has sized.
  GElf_Sym symbol(const Section& table, uint64_t index) const {
    GElf_Sym sym;
    if (gelf_getsym(table_data(table), static_cast<int>(index), &sym) == nullptr)
      invalid("unreadable symbol " + std::to_string(index) + " of " + table.name +
              " (libelf: " + libelf_error() + ")");
    return sym;
  }

  // Name of symbol `index` of `table`, for messages.
  std::string symbol_name(const Section& table, uint64_t index) const {
    if (index == 0) return "(no symbol)";
    const uint32_t name_offset = symbol(table, index).st_name;
    if (name_offset == 0 || table.sh_link >= sections_.size()) return "symbol " + std::to_string(index);
    return "'" + string_at(table.sh_link, name_offset, "symbol name") + "'";
  }

  // Whether symbol `index` of `table`, which a kept relocation described by
  // `where()` refers to, moves with the module: defined in the image or its
  // shared window.  Absolute symbols and undefined weak ones (address 0)
  // keep their value.  Messages are only built for a bad module.
  template <typename Where>
  bool symbol_moves(const Section& table, uint64_t index, const Where& where) const {
    if (index == 0) return false;
    if (index >= table.sh_size / sym_size_)
      invalid(where() + " refers to symbol " + std::to_string(index) + ", past the end of " + table.name);
    const GElf_Sym sym = symbol(table, index);
    const uint64_t value = sym.st_value;
    const uint16_t shndx = sym.st_shndx;
    if (shndx == SHN_UNDEF) {
      if (GELF_ST_BIND(sym.st_info) != STB_WEAK)
        invalid(where() + " refers to undefined symbol " + symbol_name(table, index));
      return false;
    }
    if (shndx == SHN_ABS) return false;
    if (shndx >= SHN_LORESERVE || shndx >= sections_.size())
      invalid(where() + " refers to symbol " + symbol_name(table, index) + " in special section index " +
              std::to_string(shndx));
    if (!(sections_[shndx].sh_flags & SHF_ALLOC))
      invalid(where() + " refers to symbol " + symbol_name(table, index) + " in " + sections_[shndx].name +
              ", which is not loaded");
    if (value > module_end())
      invalid(where() + " refers to symbol " + symbol_name(table, index) + " at " + hex(value) +
              ", outside the module");
    return true;
  }

  // End of the module's address range: the image, then its shared window.
  uint64_t module_end() const { return std::max<uint64_t>(out_.bytes.size(), shared_end_.value_or(0)); }

  // The net effect of moving the image on one patched field.
  struct FieldMove {
    bool instruction = false;  // a lui patched by R_RISCV_HI20
    unsigned width = 0;
    int bases = 0;            // how many times the field gains the base
    uint32_t first_type = 0;  // the first relocation of the field, for messages
    const Section* first_section = nullptr;
  };
  static std::string describe(const FieldMove& field) {
    return relocation_name(field.first_type) + " in " + field.first_section->name;
  }

  // ET_EXEC (RV32): the relocations the linker kept (--emit-relocs) describe
  // every link-time address in the image.  Only the kinds whose fix-up is
  // "add the base" are allowed, and only when every address the image holds
  // is described by one, so nothing absolute escapes relocation: GOT, PLT and
  // dynamic relocation tables (whose contents no kept relocation covers)
  // are refused, as is a PC-relative reference to a fixed address.
  void apply_kept_relocations() {
    uint64_t lowest = UINT64_MAX;
    for (const Segment& s : segments_) lowest = std::min(lowest, s.p_vaddr);
    if (lowest != 0)
      invalid("static (ET_EXEC) module starts at " + hex(lowest) + "; it must be linked at base 0");
    for (const Section& s : sections_) {
      const bool forbidden = s.sh_type == SHT_DYNAMIC || s.name == ".dynamic" || s.name == ".got" ||
                             s.name == ".got.plt" || s.name == ".plt" || s.name == ".iplt" ||
                             s.name == ".interp";
      if (forbidden && (s.sh_flags & SHF_ALLOC) && s.sh_size > 0)
        invalid("static (ET_EXEC) module has a " + s.name +
                " section, whose link-time addresses no kept relocation describes");
    }

    std::map<uint64_t, FieldMove> fields;
    bool kept_any = false;
    for (const Section& s : sections_) {
      if (s.sh_type == SHT_REL)
        invalid("static (ET_EXEC) module has REL section " + s.name + "; only RELA is kept");
      if (s.sh_type != SHT_RELA) continue;
      if (!(s.sh_flags & SHF_INFO_LINK) || s.sh_info == 0 || s.sh_info >= sections_.size())
        invalid("static (ET_EXEC) module has relocation table " + s.name +
                " that patches no section (dynamic relocations need -pie)");
      const Section& target = sections_[s.sh_info];
      if (!(target.sh_flags & SHF_ALLOC)) continue;  // debug information: never loaded
      if (target.sh_type == SHT_NOBITS)
        invalid(s.name + " patches " + target.name + ", which has no contents");
      const uint64_t count = entries(s, rela_size_, "relocation section");
      if (s.sh_link >= sections_.size() || sections_[s.sh_link].sh_type != SHT_SYMTAB)
        invalid("relocation section " + s.name + " links to no symbol table");
      const Section& symbols = sections_[s.sh_link];
      entries(symbols, sym_size_, "symbol table");
      if (symbols.sh_link >= sections_.size() || sections_[symbols.sh_link].sh_type != SHT_STRTAB)
        invalid("symbol table " + symbols.name + " links to no string table");
      kept_any = true;

      Elf_Data* data = table_data(s);
      for (uint64_t i = 0; i < count; ++i) {
        GElf_Rela rela;
        if (gelf_getrela(data, static_cast<int>(i), &rela) == nullptr)
          invalid("unreadable relocation in " + s.name + " (libelf: " + libelf_error() + ")");
        const uint64_t offset = rela.r_offset;
        const uint32_t type = static_cast<uint32_t>(GELF_R_TYPE(rela.r_info));
        const uint64_t symbol_index = GELF_R_SYM(rela.r_info);
        auto where = [&] { return relocation_name(type) + " in " + s.name + " at " + hex(offset); };
        const std::optional<KeptType> kind = kept_type(type);
        if (!kind)
          invalid(where() +
                  ": a static RV32 module may only keep R_RISCV_32, HI20, LO12, PC-relative, "
                  "ADD/SUB, RELAX and ALIGN relocations");
        if (offset < target.sh_addr || !range_within(offset - target.sh_addr, kind->width, target.sh_size) ||
            (kind->width > 0 && segment_holding(offset, kind->width) == nullptr))
          invalid(where() + " patches outside " + target.name + " or outside every segment");
        if (kind->effect == KeptEffect::none) continue;
        const bool moves = symbol_moves(symbols, symbol_index, where);
        if (kind->effect == KeptEffect::pc_relative) {
          if (!moves)
            invalid(where() + " is PC-relative to the fixed address of " +
                    symbol_name(symbols, symbol_index) + ", which would change when the module moves");
          continue;
        }
        FieldMove move;
        move.instruction = kind->effect == KeptEffect::upper20;
        move.width = kind->width;
        if (move.instruction) {
          const Segment* code = segment_holding(offset, 4);
          if (!(code->p_flags & PF_X) || offset % 4 != 0 || (out_.bytes[offset] & 0x7F) != 0x37)
            invalid(where() + " does not patch an aligned lui instruction in executable code");
        }
        auto [field, inserted] = fields.try_emplace(offset, move);
        if (inserted) {
          field->second.first_type = type;
          field->second.first_section = &s;
        }
        if (field->second.instruction != move.instruction || field->second.width != move.width)
          invalid(where() + " patches a field that " + describe(field->second) + " patches differently");
        if (moves) field->second.bases += kind->effect == KeptEffect::subtract ? -1 : 1;
      }
    }
    if (!kept_any)
      invalid(
          "static (ET_EXEC) module has no kept relocations; link it with --emit-relocs so the loader "
          "can move it");

    for (const auto& [offset, field] : fields) {
      if (field.bases == 0) continue;  // a label difference inside the module, or a fixed address
      if (field.bases != 1 || field.width != 4)
        invalid("the relocations at " + hex(offset) + " (" + describe(field) + ") would move a " +
                std::to_string(field.width) + "-byte field by " + std::to_string(field.bases) +
                " times the load address");
      if (!field.instruction) {
        uint32_t value = 0;
        std::memcpy(&value, out_.bytes.data() + offset, 4);
        if (value >= module_end() + kMaxImageBytes)
          invalid(describe(field) + " holds " + hex(value) + ", far outside the module");
      }
      // Adding the base to the little-endian word is the whole fix-up: for a
      // data word it is the address; for a lui, whose U-immediate is bits
      // 31..12, it adds base >> 12 (the base is page aligned, so rd, the
      // opcode and the paired LO12 immediate stay as they are).
      out_.relocations.push_back(offset);
    }
  }

  void apply_relocations() {
    if (static_executable_) {
      apply_kept_relocations();
    } else {
      apply_dynamic_relocations();
    }
    // Each relocated word gains the base once, so no two may share a byte.
    std::sort(out_.relocations.begin(), out_.relocations.end());
    const auto overlap = std::adjacent_find(out_.relocations.begin(), out_.relocations.end(),
                                            [&](uint64_t a, uint64_t b) { return b - a < word_; });
    if (overlap != out_.relocations.end())
      invalid("two relocations patch overlapping words at " + hex(*overlap) + " and " + hex(*(overlap + 1)));
  }

  bool is_relocated(uint64_t offset) const {
    return std::binary_search(out_.relocations.begin(), out_.relocations.end(), offset);
  }

  void read_symbols() {
    const Section* table = nullptr;
    for (const Section& s : sections_)
      if (s.sh_type == SHT_SYMTAB) table = &s;
    if (table == nullptr)
      for (const Section& s : sections_)
        if (s.sh_type == SHT_DYNSYM) table = &s;
    if (table == nullptr) invalid("no symbol table");
    if (table->sh_link >= sections_.size() || sections_[table->sh_link].sh_type != SHT_STRTAB)
      invalid("symbol table " + table->name + " links to no string table");
    const uint64_t count = entries(*table, sym_size_, "symbol table");

    for (uint64_t i = 0; i < count; ++i) {
      const GElf_Sym sym = symbol(*table, i);
      if (sym.st_shndx == SHN_UNDEF || sym.st_name == 0) continue;
      const std::string name = string_at(table->sh_link, sym.st_name, "symbol name");
      const uint64_t value = sym.st_value;
      if (name == "__kestrel_exit") exit_pc_ = value;
      if (name == "__global_pointer$") gp_ = value;
      if (name == "__kestrel_shared_start") shared_start_ = value;
      if (name == "__kestrel_shared_end") shared_end_ = value;
      if (GELF_ST_TYPE(sym.st_info) == STT_OBJECT && sym.st_size > 0) {
        const bool managed =
            sym.st_shndx < sections_.size() && sections_[sym.st_shndx].name == ".kestrel.managed";
        out_.globals.push_back(GlobalSymbol{name, value, sym.st_size, managed});
      }
    }
  }

  // Static shared memory is linked after the image and its guard; a linker
  // that appends the NOBITS section to the bss segment makes the segment
  // reach over the guard into the window.  Neither is global memory, so the
  // segment is cut where the last allocated section below the window ends.
  void place_shared_window() {
    if (shared_start_.has_value() != shared_end_.has_value())
      invalid("only one of __kestrel_shared_start and __kestrel_shared_end is defined");
    if (!shared_start_) return;
    if (*shared_end_ < *shared_start_) invalid("__kestrel_shared_end lies before __kestrel_shared_start");
    if (!range_within(*shared_start_, *shared_end_ - *shared_start_, kMaxImageBytes))
      invalid("static shared memory window " + hex(*shared_start_) + " is out of range");
    const uint64_t start = *shared_start_, end = *shared_end_;
    uint64_t cut = 0;
    bool any_section = false;
    for (const Section& c : sections_) {
      if (!(c.sh_flags & SHF_ALLOC) || c.sh_size == 0 || c.sh_addr >= start) continue;
      any_section = true;
      cut = std::max(cut, std::min(start, c.sh_addr + c.sh_size));
    }
    if (!any_section) cut = start;
    for (Segment& s : segments_) {
      if (s.p_vaddr + s.p_memsz <= start || s.p_vaddr >= end) continue;
      const bool zero_fill_only = s.p_vaddr + s.p_filesz <= start || s.p_filesz == 0;
      if (!zero_fill_only || s.p_vaddr + s.p_memsz > end)
        invalid("a loadable segment overlaps the static shared window at " + hex(start));
      // File bytes are kept wherever they lie (bytes in the guard are refused
      // later); only the zero fill past the last section goes.
      const uint64_t keep = std::max(cut, s.p_filesz != 0 ? s.p_vaddr + s.p_filesz : 0);
      s.p_memsz = s.p_vaddr < keep ? keep - s.p_vaddr : 0;
    }
    segments_.erase(
        std::remove_if(segments_.begin(), segments_.end(), [](const Segment& s) { return s.p_memsz == 0; }),
        segments_.end());
    if (segments_.empty()) invalid("no loadable segments outside the static shared window");
  }

  void check_symbols() {
    if (!exit_pc_) invalid("symbol __kestrel_exit is missing (not linked with the Kestrel crt?)");
    const Segment* exit_segment = segment_holding(*exit_pc_, 4);
    if (exit_segment == nullptr || !(exit_segment->p_flags & PF_X) || *exit_pc_ % 4 != 0)
      invalid("__kestrel_exit at " + hex(*exit_pc_) + " is not an aligned address in an executable segment");
    out_.exit_pc = *exit_pc_;
    out_.gp = gp_.value_or(0);
    const uint64_t image_end =
        (out_.bytes.size() + KESTREL_PAGE_SIZE - 1) / KESTREL_PAGE_SIZE * KESTREL_PAGE_SIZE;
    // The hardware faults every access in the guard below the window, so no
    // byte of the image may lie there (docs/isa.md section 4).
    out_.shared_start = shared_start_.value_or(image_end + KESTREL_SHARED_GUARD);
    out_.shared_end = shared_end_.value_or(out_.shared_start);
    if (out_.shared_start < out_.bytes.size()) invalid("the static shared window lies inside the image");
    if (out_.shared_start - out_.bytes.size() < KESTREL_SHARED_GUARD)
      invalid("the static shared window at " + hex(out_.shared_start) + " is less than " +
              std::to_string(KESTREL_SHARED_GUARD) +
              " bytes past the image (its guard); link with Kestrel's kestrel.ld");
    // Shared variables are not global memory (cudaMemcpyToSymbol cannot reach
    // them), and neither is anything a clipped segment no longer holds.
    out_.globals.erase(
        std::remove_if(out_.globals.begin(), out_.globals.end(),
                       [&](const GlobalSymbol& g) { return segment_holding(g.address, g.bytes) == nullptr; }),
        out_.globals.end());
  }

  // Reads an XLEN-wide word of the base-0 image at a link-time address.
  uint64_t image_word(uint64_t addr, const std::string& what) const {
    if (segment_holding(addr, word_) == nullptr) invalid(what + " at " + hex(addr) + " is outside the image");
    uint64_t value = 0;
    std::memcpy(&value, out_.bytes.data() + addr, word_);
    return value;
  }

  void read_kernels() {
    const Section* section = nullptr;
    for (const Section& s : sections_)
      if (s.name == KESTREL_KERNELS_SECTION) section = &s;
    if (section == nullptr) invalid("no " KESTREL_KERNELS_SECTION " section (not built by kestrel-cc?)");

    // The descriptors are read as loaded when the section is part of the image,
    // so relocated pointer fields hold their link-time values.
    Bytes table(nullptr, 0);
    if (section->sh_flags & SHF_ALLOC) {
      if (section->sh_type == SHT_NOBITS || segment_holding(section->sh_addr, section->sh_size) == nullptr)
        invalid(KESTREL_KERNELS_SECTION " is not inside a loadable segment");
      table = Bytes(out_.bytes.data() + section->sh_addr, section->sh_size);
    } else {
      table = contents(*section, KESTREL_KERNELS_SECTION);
    }
    const unsigned w = word_;
    const uint64_t record = 16 + 3 * w;
    if (table.size() % record != 0) {
      invalid(KESTREL_KERNELS_SECTION " is " + std::to_string(table.size()) +
              " bytes, not a multiple of the " + std::to_string(record) + "-byte descriptor");
    }
    const Bytes image(out_.bytes.data(), out_.bytes.size());
    for (uint64_t at = 0; at < table.size(); at += record) {
      const std::string which = "kernel descriptor " + std::to_string(at / record);
      if (table.u32(at, "magic") != KESTREL_KERNEL_DESC_MAGIC) invalid(which + " has a bad magic number");
      KernelInfo k;
      const uint32_t num_params = table.u32(at + 4, "num_params");
      k.param_bytes = table.u32(at + 8, "param_bytes");
      k.param_align = table.u32(at + 12, "param_align");
      k.entry = table.load(at + 16, w, "entry");
      const uint64_t name_addr = table.load(at + 16 + w, w, "name");
      const uint64_t params_addr = table.load(at + 16 + 2 * w, w, "params");

      // The descriptors are loaded with the image; their pointers must move
      // with it like every other address the module holds.
      if (section->sh_flags & SHF_ALLOC) {
        const uint64_t fields = section->sh_addr + at + 16;
        const bool params_moved = num_params == 0 || is_relocated(fields + 2 * w);
        if (!is_relocated(fields) || !is_relocated(fields + w) || !params_moved)
          invalid(which + " has a pointer no relocation covers, which would keep its link-time value");
      }
      if (segment_holding(name_addr, 1) == nullptr) invalid(which + " has its name outside the image");
      k.name = image.string(name_addr, "kernel name");
      if (k.name.empty()) invalid(which + " has an empty name");
      const std::string kernel = which + " ('" + k.name + "')";
      const Segment* entry_segment = segment_holding(k.entry, 4);
      if (entry_segment == nullptr || !(entry_segment->p_flags & PF_X) || k.entry % 4 != 0)
        invalid(kernel + " has entry " + hex(k.entry) + " outside executable code");
      if (k.param_bytes > kMaxParamBytes)
        invalid(kernel + " needs " + std::to_string(k.param_bytes) + " parameter bytes, more than 4096");
      if (num_params > k.param_bytes) invalid(kernel + " has more parameters than parameter bytes");
      if (num_params == 0 && k.param_align == 0) k.param_align = 1;
      if (!is_power_of_two(k.param_align) || k.param_align > kMaxParamBytes)
        invalid(kernel + " has parameter buffer alignment " + std::to_string(k.param_align));
      if (num_params > 0 &&
          segment_holding(params_addr, uint64_t{num_params} * sizeof(kestrel_param_desc)) == nullptr)
        invalid(kernel + " has its parameter descriptors outside the image");

      uint64_t previous_end = 0;
      for (uint32_t i = 0; i < num_params; ++i) {
        const uint64_t p = params_addr + uint64_t{i} * sizeof(kestrel_param_desc);
        kestrel_param_desc d{image.u32(p, "param offset"), image.u32(p + 4, "param size"),
                             image.u32(p + 8, "param align"), image.u32(p + 12, "param kind")};
        const std::string param = kernel + " parameter " + std::to_string(i);
        if (d.kind != KESTREL_PARAM_VALUE && d.kind != KESTREL_PARAM_POINTER)
          invalid(param + " has unknown kind " + std::to_string(d.kind));
        if (d.size == 0) invalid(param + " has size 0");
        if (!is_power_of_two(d.align) || d.align > kMaxParamBytes)
          invalid(param + " has alignment " + std::to_string(d.align));
        if (d.offset % d.align != 0)
          invalid(param + " offset " + std::to_string(d.offset) + " is not aligned");
        if (d.offset < previous_end) invalid(param + " overlaps the previous parameter");
        if (!range_within(d.offset, d.size, k.param_bytes)) invalid(param + " runs past param_bytes");
        if (d.kind == KESTREL_PARAM_POINTER && (d.size != w || d.align != w))
          invalid(param + " is a pointer of " + std::to_string(d.size) + " bytes on an RV" +
                  std::to_string(out_.xlen) + " device");
        previous_end = uint64_t{d.offset} + d.size;
        k.params.push_back(d);
      }
      for (const KernelInfo& other : out_.kernels)
        if (other.name == k.name) invalid("kernel '" + k.name + "' is described twice");
      out_.kernels.push_back(std::move(k));
    }
  }

  // Section .kestrel.stack, optional: one kestrel_kernel_stack per descriptor.
  void read_stack_needs() {
    const Section* section = nullptr;
    for (const Section& s : sections_)
      if (s.name == KESTREL_STACK_SECTION) section = &s;
    if (section == nullptr) return;
    const Bytes table = contents(*section, KESTREL_STACK_SECTION);
    const uint64_t record = sizeof(kestrel_kernel_stack);
    if (table.size() != out_.kernels.size() * record)
      invalid(KESTREL_STACK_SECTION " is " + std::to_string(table.size()) + " bytes; the module's " +
              std::to_string(out_.kernels.size()) + " kernels take " +
              std::to_string(out_.kernels.size() * record));
    const uint32_t known_flags = KESTREL_STACK_RECURSION | KESTREL_STACK_INDIRECT | KESTREL_STACK_DYNAMIC;
    for (size_t i = 0; i < out_.kernels.size(); ++i) {
      KernelInfo& k = out_.kernels[i];
      k.stack_bytes = table.u32(i * record, "stack_bytes");
      k.stack_flags = table.u32(i * record + 4, "stack flags");
      if (k.stack_bytes % 16 != 0)
        invalid("kernel '" + k.name + "' declares a stack need of " + std::to_string(k.stack_bytes) +
                " bytes, not a multiple of 16");
      if (k.stack_flags & ~known_flags)
        invalid("kernel '" + k.name + "' has unknown stack flags " + hex(k.stack_flags));
    }
  }

  // A module built with -g keeps its file, whose DWARF names the source line
  // of a faulting PC; the loader itself never reads it.
  void keep_debug_info() {
    bool info = false, lines = false;
    for (const Section& s : sections_) {
      if (s.sh_type != SHT_PROGBITS || s.sh_size == 0) continue;
      info |= s.name == ".debug_info";
      lines |= s.name == ".debug_line";
    }
    if (info && lines) out_.debug_elf = std::make_shared<const std::vector<uint8_t>>(copy_);
  }

  std::vector<uint8_t> copy_;  // the file, which libelf reads in place
  Bytes file_;                 // copy_, for the identification bytes and segment contents
  unsigned device_xlen_;
  std::unique_ptr<Elf, ElfEnd> elf_;
  bool is64_ = true;
  unsigned word_ = 8;  // XLEN / 8
  size_t sym_size_ = 0, rela_size_ = 0, rel_size_ = 0;
  size_t phnum_ = 0, shnum_ = 0, shstrndx_ = 0;
  std::vector<Segment> segments_;
  std::vector<Section> sections_;
  std::optional<uint64_t> exit_pc_, gp_, shared_start_, shared_end_;
  bool static_executable_ = false;  // ET_EXEC with kept relocations (RV32 only)
  ModuleImage out_;
};

}  // namespace

ModuleImage parse_module(const uint8_t* data, size_t size, unsigned device_xlen) {
  if (data == nullptr || size == 0) invalid("empty image");
  return Parser(data, size, device_xlen).run();
}

}  // namespace kestrel::runtime
