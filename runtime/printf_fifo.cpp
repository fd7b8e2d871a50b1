#include "printf_fifo.hpp"

#include <algorithm>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "kestrel/abi.h"

namespace kestrel::runtime {
namespace {

uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint64_t read_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The NUL-terminated text at [at, end); false when it runs past the end.
bool read_text(const uint8_t* at, const uint8_t* end, std::string& text, const uint8_t*& next) {
  const void* nul = std::memchr(at, '\0', static_cast<size_t>(end - at));
  if (nul == nullptr) return false;
  text.assign(reinterpret_cast<const char*>(at), static_cast<const uint8_t*>(nul) - at);
  next = static_cast<const uint8_t*>(nul) + 1;
  return true;
}

// Parses one committed record of `size` bytes; false if it is malformed.
bool parse_record(const uint8_t* record, uint32_t size, PrintfRecord& out) {
  const uint8_t* const end = record + size;
  const uint32_t counts = read_u32(record + 8);
  const uint32_t stored = counts & 0xFFFF;
  const uint32_t format_bytes = read_u32(record + 12);
  if (stored > KESTREL_PRINTF_MAX_ARGS) return false;
  const uint32_t kinds_bytes = (stored + 7) & ~7u;
  const uint64_t fixed = uint64_t{KESTREL_PRINTF_RECORD_HEADER_BYTES} + kinds_bytes + 8ull * stored;
  if (fixed + format_bytes > size || format_bytes == 0) return false;
  out.flags = counts >> 16;
  const uint8_t* kinds = record + KESTREL_PRINTF_RECORD_HEADER_BYTES;
  const uint8_t* values = kinds + kinds_bytes;
  const uint8_t* text = values + 8ull * stored;
  if (text[format_bytes - 1] != '\0') return false;
  out.format.assign(reinterpret_cast<const char*>(text), format_bytes - 1);
  out.format.resize(std::strlen(out.format.c_str()));
  text += format_bytes;
  out.args.resize(stored);
  for (uint32_t i = 0; i < stored; ++i) {
    PrintfArg& arg = out.args[i];
    arg.kind = kinds[i];
    if (arg.kind > KESTREL_PRINTF_ARG_POINTER) return false;
    arg.value = read_u64(values + 8ull * i);
    if (arg.kind == KESTREL_PRINTF_ARG_STRING && arg.value != 0) {
      if (!read_text(text, end, arg.text, text)) return false;
      arg.has_text = true;
    }
  }
  return true;
}

struct Spec {
  std::string flags;
  int width = -1;      // -1: none
  int precision = -1;  // -1: none
  std::string length;  // hh, h, l, ll, j, z, t, L
  char conversion = 0;
};

// Widths and precisions come from the device; larger ones are cut so that a
// bad value cannot make the host format gigabytes.
constexpr int kMaxField = 4096;

bool is_flag(char c) { return c == '-' || c == '+' || c == ' ' || c == '#' || c == '0'; }

std::string render(const char* host_format, ...) __attribute__((format(printf, 1, 2)));
std::string render(const char* host_format, ...) {
  va_list args;
  va_start(args, host_format);
  va_list again;
  va_copy(again, args);
  const int length = std::vsnprintf(nullptr, 0, host_format, args);
  va_end(args);
  std::string text;
  if (length > 0) {
    text.resize(static_cast<size_t>(length) + 1);
    std::vsnprintf(text.data(), text.size(), host_format, again);
    text.resize(static_cast<size_t>(length));
  }
  va_end(again);
  return text;
}

// "%<flags><width>.<precision>" for the host's printf; the caller appends
// the length modifier and conversion it chose.
std::string host_prefix(const Spec& spec) {
  std::string prefix = "%" + spec.flags;
  if (spec.width >= 0) prefix += std::to_string(spec.width);
  if (spec.precision >= 0) prefix += "." + std::to_string(spec.precision);
  return prefix;
}

// The size of an integer conversion's argument on the device: long, size_t
// and ptrdiff_t are XLEN wide (ILP32 or LP64), long long and intmax_t 64.
unsigned integer_bits(const std::string& length, unsigned xlen) {
  if (length == "ll" || length == "j" || length == "q") return 64;
  if (length == "l" || length == "z" || length == "t") return xlen;
  if (length == "h") return 16;
  if (length == "hh") return 8;
  return 32;
}

std::string convert(const Spec& spec, const PrintfArg& arg, unsigned xlen) {
  const std::string prefix = host_prefix(spec);
  const char conversion[2] = {spec.conversion, '\0'};
  switch (spec.conversion) {
    case 'd':
    case 'i': {
      const int64_t v = static_cast<int64_t>(arg.value);
      switch (integer_bits(spec.length, xlen)) {
        case 8:
          return render((prefix + "hh" + conversion).c_str(), static_cast<signed char>(v));
        case 16:
          return render((prefix + "h" + conversion).c_str(), static_cast<short>(v));
        case 32:
          return render((prefix + conversion).c_str(), static_cast<int>(v));
        default:
          return render((prefix + "ll" + conversion).c_str(), static_cast<long long>(v));
      }
    }
    case 'o':
    case 'u':
    case 'x':
    case 'X': {
      const uint64_t v = arg.value;
      switch (integer_bits(spec.length, xlen)) {
        case 8:
          return render((prefix + "hh" + conversion).c_str(), static_cast<unsigned char>(v));
        case 16:
          return render((prefix + "h" + conversion).c_str(), static_cast<unsigned short>(v));
        case 32:
          return render((prefix + conversion).c_str(), static_cast<unsigned int>(v));
        default:
          return render((prefix + "ll" + conversion).c_str(), static_cast<unsigned long long>(v));
      }
    }
    case 'c':
      return render((prefix + "c").c_str(), static_cast<int>(static_cast<unsigned char>(arg.value)));
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
    case 'a':
    case 'A': {
      double v;
      std::memcpy(&v, &arg.value, sizeof v);  // CUDA reads a double from the slot, whatever was passed
      return render((prefix + conversion).c_str(), v);
    }
    case 'p':
      if (arg.value == 0) return render((prefix + "s").c_str(), "(nil)");
      return render((prefix + "#llx").c_str(), static_cast<unsigned long long>(arg.value));
    default: {  // 's'
      std::string text;
      if (arg.kind == KESTREL_PRINTF_ARG_STRING && arg.has_text) {
        text = arg.text;
      } else if (arg.value == 0) {
        text = spec.precision >= 0 && spec.precision < 6 ? "" : "(null)";  // as glibc prints a null %s
      } else {
        text = "(not a string)";
      }
      return render((prefix + "s").c_str(), text.c_str());
    }
  }
}

}  // namespace

PrintfParse parse_printf_records(const uint8_t* data, size_t used) {
  PrintfParse parse;
  size_t at = 0;
  while (at + KESTREL_PRINTF_RECORD_HEADER_BYTES <= used) {
    const uint32_t size = read_u32(data + at);
    // A zero size is a writer that reserved space and stopped before its
    // first store: nothing after it can be located.
    if (size < KESTREL_PRINTF_RECORD_HEADER_BYTES || size % 8 != 0 || size > used - at) {
      parse.truncated = true;
      break;
    }
    if (read_u32(data + at + 4) != KESTREL_PRINTF_COMMIT) {
      ++parse.incomplete;
    } else {
      PrintfRecord record;
      if (!parse_record(data + at, size, record)) {
        parse.truncated = true;
        break;
      }
      parse.records.push_back(std::move(record));
    }
    at += size;
  }
  parse.parsed_bytes = at;
  return parse;
}

std::string format_printf(const std::string& format, const std::vector<PrintfArg>& args, unsigned xlen) {
  std::string out;
  size_t next_arg = 0;
  size_t i = 0;
  while (i < format.size()) {
    const char c = format[i];
    if (c != '%') {
      out += c;
      ++i;
      continue;
    }
    const size_t start = i++;
    if (i < format.size() && format[i] == '%') {
      out += '%';
      ++i;
      continue;
    }
    Spec spec;
    bool missing = false;
    auto take_int = [&](int& into) {
      if (next_arg >= args.size()) {
        missing = true;
        return;
      }
      into = static_cast<int>(static_cast<int64_t>(args[next_arg++].value));
    };
    while (i < format.size() && is_flag(format[i])) spec.flags += format[i++];
    if (i < format.size() && format[i] == '*') {
      ++i;
      take_int(spec.width);
      if (!missing && spec.width < 0) {  // C: a negative width is the '-' flag
        spec.flags += '-';
        spec.width = spec.width == INT_MIN ? kMaxField : -spec.width;
      }
      spec.width = std::min(spec.width, kMaxField);
    } else {
      while (i < format.size() && format[i] >= '0' && format[i] <= '9')
        spec.width = std::min((spec.width < 0 ? 0 : spec.width) * 10 + (format[i++] - '0'), kMaxField);
    }
    if (i < format.size() && format[i] == '.') {
      ++i;
      spec.precision = 0;
      if (i < format.size() && format[i] == '*') {
        // CUDA takes precision digits only (B.17.1) and prints "%.*f" as
        // written, taking no argument for it (seen on an H100).
        ++i;
        while (i < format.size() && std::strchr("hlLjztq", format[i]) != nullptr) ++i;
        if (i < format.size()) ++i;
        out.append(format, start, i - start);
        continue;
      } else {
        while (i < format.size() && format[i] >= '0' && format[i] <= '9')
          spec.precision = std::min(spec.precision * 10 + (format[i++] - '0'), kMaxField);
      }
    }
    while (i < format.size() && std::strchr("hlLjztq", format[i]) != nullptr) spec.length += format[i++];
    if (i >= format.size()) {  // the format ends inside a specifier: print it as written
      out.append(format, start, std::string::npos);
      break;
    }
    spec.conversion = format[i++];
    if (spec.conversion == 'n') continue;  // writes to device memory are not supported: prints nothing
    if (std::strchr("cdiouxXpeEfFgGaAs", spec.conversion) == nullptr || missing || next_arg >= args.size()) {
      out.append(format, start, i - start);
      continue;
    }
    out += convert(spec, args[next_arg++], xlen);
  }
  return out;
}

}  // namespace kestrel::runtime
