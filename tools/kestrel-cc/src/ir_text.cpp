#include "ir_text.hpp"

#include <cctype>

#include "compile_error.hpp"

namespace kestrel::cc {
namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '$' || c == '.' || c == '_' || c == '-';
}

bool starts_with(const std::string& s, std::size_t pos, const char* prefix) {
  return s.compare(pos, std::char_traits<char>::length(prefix), prefix) == 0;
}

std::size_t skip_spaces(const std::string& s, std::size_t pos) {
  while (pos < s.size() && s[pos] == ' ') ++pos;
  return pos;
}

// Past the closing quote of the string starting at s[pos] == '"'.  LLVM
// escapes '"' inside strings as \22, so the next quote closes it.
std::size_t skip_quoted(const std::string& s, std::size_t pos) {
  const std::size_t close = s.find('"', pos + 1);
  if (close == std::string::npos) throw CompileError("unterminated string in LLVM IR: " + s);
  return close + 1;
}

bool is_opener(char c) { return c == '(' || c == '[' || c == '{' || c == '<'; }
bool is_closer(char c) { return c == ')' || c == ']' || c == '}' || c == '>'; }

// Past the bracket group opening at s[pos], counting all bracket kinds.
std::size_t skip_balanced(const std::string& s, std::size_t pos) {
  int depth = 0;
  while (pos < s.size()) {
    const char c = s[pos];
    if (c == '"') {
      pos = skip_quoted(s, pos);
      continue;
    }
    if (is_opener(c)) ++depth;
    if (is_closer(c) && --depth == 0) return pos + 1;
    ++pos;
  }
  throw CompileError("unbalanced brackets in LLVM IR: " + s);
}

// End of the top-level item starting at pos: the next ',' outside brackets
// and strings, or the end of the text.
std::size_t item_end(const std::string& s, std::size_t pos) {
  int depth = 0;
  while (pos < s.size()) {
    const char c = s[pos];
    if (c == '"') {
      pos = skip_quoted(s, pos);
      continue;
    }
    if (is_opener(c)) ++depth;
    if (is_closer(c)) --depth;
    if (c == ',' && depth == 0) return pos;
    ++pos;
  }
  return pos;
}

std::string trim(const std::string& s) {
  std::size_t begin = 0, end = s.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
  return s.substr(begin, end - begin);
}

std::vector<std::string> split_items(const std::string& s) {
  std::vector<std::string> items;
  std::size_t pos = 0;
  while (pos < s.size()) {
    const std::size_t end = item_end(s, pos);
    items.push_back(trim(s.substr(pos, end - pos)));
    pos = end + 1;
  }
  return items;
}

// Reads the symbol name at s[pos] == '@'; returns the position after it.
std::size_t read_symbol(const std::string& s, std::size_t pos, std::string& name) {
  ++pos;
  if (pos < s.size() && s[pos] == '"') {
    const std::size_t end = skip_quoted(s, pos);
    name = decode_ir_string(s.substr(pos + 1, end - pos - 2));
    return end;
  }
  const std::size_t begin = pos;
  while (pos < s.size() && is_name_char(s[pos])) ++pos;
  name = s.substr(begin, pos - begin);
  return pos;
}

// The first @symbol mentioned in `text`, or "" if none.
std::string first_symbol(const std::string& text) {
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    if (text[pos] == '"') {
      pos = skip_quoted(text, pos) - 1;
      continue;
    }
    if (text[pos] == '@') {
      std::string name;
      read_symbol(text, pos, name);
      return name;
    }
  }
  return "";
}

// Past the type starting at s[pos]: a bracketed aggregate or vector, a named
// type (%name), or a keyword type, then any pointer stars, address spaces and
// function parameter lists ("void (i32)*").
std::size_t skip_type(const std::string& s, std::size_t pos) {
  if (pos >= s.size()) throw CompileError("missing type in LLVM IR: " + s);
  if (is_opener(s[pos])) {
    pos = skip_balanced(s, pos);
  } else {
    if (s[pos] == '%') ++pos;
    if (pos < s.size() && s[pos] == '"') {
      pos = skip_quoted(s, pos);
    } else {
      while (pos < s.size() && is_name_char(s[pos])) ++pos;
    }
  }
  for (;;) {
    const std::size_t next = skip_spaces(s, pos);
    if (next < s.size() && s[next] == '*') {
      pos = next + 1;
    } else if (starts_with(s, next, "addrspace(")) {
      pos = skip_balanced(s, next + std::char_traits<char>::length("addrspace"));
    } else if (next < s.size() && s[next] == '(') {
      pos = skip_balanced(s, next);
    } else {
      return pos;
    }
  }
}

IrGlobal parse_global_line(const std::string& line, std::size_t index) {
  IrGlobal global;
  global.line = index;
  std::size_t pos = read_symbol(line, 0, global.name);
  if (!starts_with(line, pos, " = ")) throw CompileError("unexpected global in LLVM IR: " + line);
  pos += 3;
  bool external_linkage = false;
  for (;;) {
    pos = skip_spaces(line, pos);
    std::size_t end = pos;
    while (end < line.size() && line[end] != ' ' && line[end] != '(') ++end;
    const std::string word = line.substr(pos, end - pos);
    if (end < line.size() && line[end] == '(')
      end = skip_balanced(line, end);  // addrspace(1), thread_local(..)
    pos = end;
    if (word == "global" || word == "constant") {
      global.is_constant = word == "constant";
      break;
    }
    if (word == "external" || word == "extern_weak") external_linkage = true;
    if (word == "externally_initialized") global.externally_initialized = true;
    if (word.empty() || word == "alias" || word == "ifunc") {
      global.name.clear();  // not a variable
      return global;
    }
  }
  pos = skip_spaces(line, pos);
  const std::size_t type_end = skip_type(line, pos);
  global.type = line.substr(pos, type_end - pos);
  pos = skip_spaces(line, type_end);
  std::size_t rest = pos;
  if (pos < line.size() && line[pos] != ',') {
    const std::size_t init_end = item_end(line, pos);
    global.initializer = trim(line.substr(pos, init_end - pos));
    global.initializer_end = pos + global.initializer.size();
    rest = init_end;
  }
  global.is_declaration = external_linkage && global.initializer.empty();
  for (const std::string& item : split_items(line.substr(rest))) {
    if (starts_with(item, 0, "section \"")) {
      const std::size_t close = skip_quoted(item, 8);
      global.section = decode_ir_string(item.substr(9, close - 10));
    }
  }
  return global;
}

// Entries of @llvm.global.annotations: `{ <symbol>, <annotation string>, <file>, <line>, <args> }`.
std::vector<std::pair<std::string, std::string>> parse_annotations(
    const IrGlobal& annotations, const std::map<std::string, std::string>& strings) {
  std::vector<std::pair<std::string, std::string>> result;
  const std::string& init = annotations.initializer;
  const std::size_t open = init.find('[');
  if (open == std::string::npos) return result;
  const std::size_t close = skip_balanced(init, open);
  for (const std::string& element : split_items(init.substr(open + 1, close - open - 2))) {
    // Each element is "<struct type> <struct value>": `{ i8*, ... } { i8* @f, ... }`.
    const std::string entry = element.empty() ? element : trim(element.substr(skip_type(element, 0)));
    if (entry.size() < 2 || entry.front() != '{' || entry.back() != '}')
      throw CompileError("malformed llvm.global.annotations entry: " + element);
    const std::vector<std::string> fields = split_items(entry.substr(1, entry.size() - 2));
    if (fields.size() < 2) throw CompileError("malformed llvm.global.annotations entry: " + entry);
    const std::string symbol = first_symbol(fields[0]);
    const auto text = strings.find(first_symbol(fields[1]));
    if (symbol.empty() || text == strings.end())
      throw CompileError("malformed llvm.global.annotations entry: " + entry);
    result.emplace_back(symbol, text->second);
  }
  return result;
}

std::string ir_function_name(const std::string& line) {
  const std::size_t at = line.find('@');
  if (at == std::string::npos) throw CompileError("function without a name in LLVM IR: " + line);
  std::string name;
  read_symbol(line, at, name);
  return name;
}

}  // namespace

std::string decode_ir_string(const std::string& body) {
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\' && i + 1 < body.size() && body[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (body[i] == '\\' && i + 2 < body.size() &&
               std::isxdigit(static_cast<unsigned char>(body[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(body[i + 2]))) {
      out += static_cast<char>(std::stoi(body.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += body[i];
    }
  }
  return out;
}

IrModule parse_ir(const std::string& text) {
  IrModule module;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    module.lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  std::map<std::string, std::string> strings;  // c"..." constants by name
  const IrGlobal* annotations = nullptr;
  for (std::size_t i = 0; i < module.lines.size(); ++i) {
    const std::string& line = module.lines[i];
    if (starts_with(line, 0, "define ")) {
      module.defined_functions.insert(ir_function_name(line));
    } else if (starts_with(line, 0, "declare ")) {
      module.declared_functions.insert(ir_function_name(line));
    } else if (starts_with(line, 0, "@")) {
      IrGlobal global = parse_global_line(line, i);
      if (global.name.empty()) continue;
      if (starts_with(global.initializer, 0, "c\"")) {
        std::string value = decode_ir_string(global.initializer.substr(2, global.initializer.size() - 3));
        if (!value.empty() && value.back() == '\0') value.pop_back();
        strings[global.name] = value;
      }
      module.globals.push_back(std::move(global));
    }
  }
  for (const IrGlobal& global : module.globals)
    if (global.name == "llvm.global.annotations") annotations = &global;
  if (annotations) module.annotations = parse_annotations(*annotations, strings);
  return module;
}

const IrGlobal* IrModule::find_global(const std::string& name) const {
  for (const IrGlobal& global : globals)
    if (global.name == name) return &global;
  return nullptr;
}

std::vector<std::string> IrModule::annotated(const std::string& annotation) const {
  std::vector<std::string> symbols;
  std::set<std::string> seen;
  for (const auto& [symbol, text] : annotations)
    if (text == annotation && seen.insert(symbol).second) symbols.push_back(symbol);
  return symbols;
}

std::set<std::string> IrModule::defined_symbols() const {
  std::set<std::string> symbols = defined_functions;
  for (const IrGlobal& global : globals)
    if (!global.is_declaration) symbols.insert(global.name);
  return symbols;
}

std::string IrModule::text() const {
  std::string out;
  for (const std::string& line : lines) {
    out += line;
    out += '\n';
  }
  return out;
}

std::vector<std::string> extern_shared_candidates(const IrModule& module) {
  std::vector<std::string> names;
  for (const IrGlobal& global : module.globals)
    if (global.is_declaration && starts_with(global.type, 0, "[0 x ")) names.push_back(global.name);
  return names;
}

SectionPlacement place_device_sections(IrModule& module) {
  SectionPlacement placement;
  const std::vector<std::string> constants = module.annotated("kestrel.const");
  const std::set<std::string> constant_set(constants.begin(), constants.end());
  const std::vector<std::string> managed = module.annotated("kestrel.managed");
  const std::set<std::string> managed_set(managed.begin(), managed.end());
  for (IrGlobal& global : module.globals) {
    if (global.is_declaration || global.initializer.empty()) continue;
    if (global.externally_initialized && global.initializer == "undef") {
      // A texture or surface reference's device copy (clang leaves it
      // undefined): it starts zero, which the device SDK reads as unbound
      // (cuda_texture_types.h, cuda_surface_types.h), not as shared memory.
      const std::size_t start = global.initializer_end - global.initializer.size();
      module.lines[global.line].replace(start, global.initializer.size(), "zeroinitializer");
      global.initializer = "zeroinitializer";
      global.initializer_end = start + global.initializer.size();
      ++placement.texture_references;
      continue;
    }
    const char* section = nullptr;
    if (constant_set.count(global.name)) {
      section = ".kestrel.const";
      ++placement.constant_variables;
    } else if (managed_set.count(global.name)) {
      section = ".kestrel.managed";
      ++placement.managed_variables;
    } else if (!global.is_constant && global.initializer == "undef") {
      section = ".kestrel.shared";
      ++placement.shared_variables;
    }
    if (!section) continue;
    if (!global.section.empty()) {
      if (global.section == section) continue;
      throw CompileError("device variable '" + global.name + "' has section \"" + global.section +
                         "\"; __shared__, __constant__ and __managed__ variables cannot be given a section");
    }
    module.lines[global.line].insert(global.initializer_end, std::string(", section \"") + section + "\"");
    global.section = section;
  }
  return placement;
}

}  // namespace kestrel::cc
