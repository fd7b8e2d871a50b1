// The host end of the board link: docs/host-protocol.md.
#include "link_engine.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kestrel/error.hpp"

namespace kestrel::fpga {

uint16_t crc16(const uint8_t* data, size_t bytes, uint16_t crc) {
  for (size_t i = 0; i < bytes; ++i) {
    crc ^= static_cast<uint16_t>(data[i] << 8);
    for (int bit = 0; bit < 8; ++bit)
      crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
  }
  return crc;
}

std::vector<uint8_t> encode_frame(const std::vector<uint8_t>& body) {
  const uint16_t crc = crc16(body.data(), body.size());
  std::vector<uint8_t> frame;
  frame.reserve(body.size() + body.size() / 16 + 6);
  frame.push_back(kFlag);
  auto put = [&](uint8_t b) {
    if (b == kFlag || b == kEsc) {
      frame.push_back(kEsc);
      frame.push_back(static_cast<uint8_t>(b ^ kEscXor));
    } else {
      frame.push_back(b);
    }
  };
  for (uint8_t b : body) put(b);
  put(static_cast<uint8_t>(crc >> 8));
  put(static_cast<uint8_t>(crc & 0xFF));
  frame.push_back(kFlag);
  return frame;
}

std::vector<uint8_t> request_body(uint8_t seq, uint8_t op, uint32_t addr, uint16_t count,
                                  const uint8_t* payload, size_t payload_bytes) {
  std::vector<uint8_t> body(kHeaderBytes + payload_bytes);
  body[0] = seq;
  body[1] = op;
  for (int i = 0; i < 4; ++i) body[2 + i] = static_cast<uint8_t>(addr >> (8 * i));
  body[6] = static_cast<uint8_t>(count);
  body[7] = static_cast<uint8_t>(count >> 8);
  if (payload_bytes != 0) std::memcpy(body.data() + kHeaderBytes, payload, payload_bytes);
  return body;
}

bool FrameDecoder::push(uint8_t byte) {
  if (byte == kFlag) {
    const bool ended = synced_ && !raw_.empty();
    if (ended) {
      ok_ = !esc_ && raw_.size() >= 2 && crc16(raw_.data(), raw_.size()) == 0;
      body_.assign(raw_.begin(), raw_.end() - (raw_.size() >= 2 ? 2 : static_cast<long>(raw_.size())));
    }
    synced_ = true;
    esc_ = false;
    raw_.clear();
    return ended;
  }
  if (!synced_) return false;
  if (byte == kEsc) {
    esc_ = true;
    return false;
  }
  raw_.push_back(esc_ ? static_cast<uint8_t>(byte ^ kEscXor) : byte);
  esc_ = false;
  if (raw_.size() > 4096) {
    // No answer is this long: garbage; wait for the next flag.
    raw_.clear();
    synced_ = false;
  }
  return false;
}

// ---- fault injection ----------------------------------------------------------

void FaultyPipe::mangle(const uint8_t* data, size_t bytes, std::vector<uint8_t>& out) {
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  for (size_t i = 0; i < bytes; ++i) {
    if (rate_ <= 0 || coin(rng_) >= rate_) {
      out.push_back(data[i]);
      continue;
    }
    ++faults_;
    switch (rng_() % 3) {
      case 0:  // flip one bit
        out.push_back(static_cast<uint8_t>(data[i] ^ (1u << (rng_() % 8))));
        break;
      case 1:  // drop
        break;
      default:  // duplicate
        out.push_back(data[i]);
        out.push_back(data[i]);
        break;
    }
  }
}

void FaultyPipe::send(const uint8_t* data, size_t bytes) {
  std::vector<uint8_t> out;
  mangle(data, bytes, out);
  if (!out.empty()) inner_.send(out.data(), out.size());
}

uint64_t FaultyPipe::receive(std::vector<uint8_t>& out, uint64_t timeout) {
  std::vector<uint8_t> raw;
  const uint64_t waited = inner_.receive(raw, timeout);
  mangle(raw.data(), raw.size(), out);
  return waited;
}

FaultSpec parse_fault_spec(const std::string& text, const std::string& where) {
  FaultSpec spec;
  if (text.empty()) return spec;
  const size_t colon = text.find(':');
  const std::string rate = text.substr(0, colon);
  char* end = nullptr;
  spec.rate = std::strtod(rate.c_str(), &end);
  bool ok = !rate.empty() && *end == '\0' && spec.rate >= 0 && spec.rate <= 0.5;
  if (colon != std::string::npos) {
    const std::string seed = text.substr(colon + 1);
    spec.seed = std::strtoull(seed.c_str(), &end, 0);
    ok = ok && !seed.empty() && *end == '\0' && seed[0] != '-';
  }
  if (!ok) {
    throw Error(KESTREL_ERROR_INVALID_VALUE,
                where + "='" + text + "' is not <probability per byte, 0 to 0.5>[:<seed>], e.g. 0.001:7");
  }
  return spec;
}

// ---- the engine -----------------------------------------------------------------

std::string LinkStats::to_string() const {
  return "requests " + std::to_string(requests) + ", frames sent " + std::to_string(frames_sent) +
         ", resends " + std::to_string(resends) + " (timeouts " + std::to_string(timeouts) + ", CRC_ERROR " +
         std::to_string(crc_naks) + "), answers dropped " + std::to_string(bad_frames) + " damaged + " +
         std::to_string(stale_answers) + " stale, replayed " + std::to_string(replayed) + ", bytes " +
         std::to_string(bytes_sent) + " out / " + std::to_string(bytes_received) + " in";
}

LinkEngine::LinkEngine(BytePipe& pipe, LinkPolicy policy, std::string who)
    : pipe_(pipe), policy_(policy), who_(std::move(who)) {
  sync();
}

void LinkEngine::sync() {
  transact(kOpSync, 0, 0, nullptr, 0, 0);
  seq_ = 0;  // the next request is 1
}

std::vector<uint8_t> LinkEngine::transact(uint8_t op, uint32_t addr, uint16_t count, const uint8_t* payload,
                                          size_t payload_bytes, size_t answer_bytes) {
  ++stats_.requests;
  seq_ = static_cast<uint8_t>(seq_ + 1);
  const uint8_t seq = op == kOpSync ? 0 : seq_;
  const std::vector<uint8_t> frame = encode_frame(request_body(seq, op, addr, count, payload, payload_bytes));
  // Answer: FLAG, seq, op, status, payload, CRC, FLAG, escapes at worst doubling.
  const uint64_t timeout =
      policy_.timeout_base + policy_.timeout_per_byte * (frame.size() + 2 * (answer_bytes + 5) + 2);
  for (unsigned attempt = 0; attempt <= policy_.max_retries; ++attempt) {
    if (attempt != 0) ++stats_.resends;
    ++stats_.frames_sent;
    stats_.bytes_sent += frame.size();
    pipe_.send(frame.data(), frame.size());
    uint64_t waited = 0;
    bool resend = false;
    while (!resend) {
      if (waited >= timeout) {
        ++stats_.timeouts;
        break;
      }
      inbox_.clear();
      waited += pipe_.receive(inbox_, timeout - waited);
      stats_.bytes_received += inbox_.size();
      for (uint8_t byte : inbox_) {
        if (!decoder_.push(byte)) continue;
        const std::vector<uint8_t>& body = decoder_.body();
        if (!decoder_.ok() || body.size() < 3) {
          ++stats_.bad_frames;
          continue;
        }
        if (body[1] == kOpNak) {
          // The bridge saw a damaged frame: ours, or noise.  Resend now.
          ++stats_.crc_naks;
          resend = true;
          break;
        }
        if (body[0] != seq || body[1] != (op | kOpAnswer)) {
          ++stats_.stale_answers;
          continue;
        }
        const uint8_t status = body[2] & 0x7F;
        if (body[2] & kStatusReplayed) ++stats_.replayed;
        if (status == kStatusOk && body.size() != 3 + answer_bytes) {
          ++stats_.bad_frames;
          continue;
        }
        if (status == kStatusOk) return std::vector<uint8_t>(body.begin() + 3, body.end());
        char where[64];
        std::snprintf(where, sizeof where, "op %u at 0x%x (%u words)", op, addr, count);
        if (status == kStatusBadAddress)
          throw Error(KESTREL_ERROR_INVALID_VALUE, who_ + ": the board refused " + where + ": bad address");
        throw Error(KESTREL_ERROR_IO, who_ + ": the board refused " + where + " with status " +
                                          std::to_string(status) +
                                          (status == kStatusBadOp       ? " (BAD_OP)"
                                           : status == kStatusBadLength ? " (BAD_LENGTH)"
                                                                        : ""));
      }
    }
    // A flag ends whatever half frame the bridge holds before the resend.
  }
  throw Error(KESTREL_ERROR_IO, who_ + ": board not responding (no answer after " +
                                    std::to_string(policy_.max_retries + 1) +
                                    " tries; link: " + stats_.to_string() + ")");
}

uint32_t LinkEngine::read_reg(uint32_t offset) {
  const std::vector<uint8_t> v = transact(kOpReadReg, offset, 1, nullptr, 0, 4);
  return uint32_t{v[0]} | uint32_t{v[1]} << 8 | uint32_t{v[2]} << 16 | uint32_t{v[3]} << 24;
}

void LinkEngine::write_reg(uint32_t offset, uint32_t value) {
  const uint8_t bytes[4] = {static_cast<uint8_t>(value), static_cast<uint8_t>(value >> 8),
                            static_cast<uint8_t>(value >> 16), static_cast<uint8_t>(value >> 24)};
  transact(kOpWriteReg, offset, 1, bytes, 4, 0);
}

void LinkEngine::write_words(uint32_t addr, const uint8_t* src, size_t words) {
  while (words != 0) {
    const size_t n = words < policy_.max_words ? words : policy_.max_words;
    transact(kOpWriteMem, addr, static_cast<uint16_t>(n), src, 4 * n, 0);
    addr += static_cast<uint32_t>(4 * n);
    src += 4 * n;
    words -= n;
  }
}

void LinkEngine::read_words(uint32_t addr, uint8_t* dst, size_t words) {
  while (words != 0) {
    const size_t n = words < policy_.max_words ? words : policy_.max_words;
    const std::vector<uint8_t> data = transact(kOpReadMem, addr, static_cast<uint16_t>(n), nullptr, 0, 4 * n);
    std::memcpy(dst, data.data(), 4 * n);
    addr += static_cast<uint32_t>(4 * n);
    dst += 4 * n;
    words -= n;
  }
}

void LinkEngine::write_mem(uint32_t addr, const void* src, size_t bytes) {
  if (bytes == 0) return;
  const uint8_t* p = static_cast<const uint8_t*>(src);
  const uint32_t first = addr & ~3u;
  const uint64_t end = uint64_t{addr} + bytes;
  const uint64_t last = (end + 3) & ~uint64_t{3};
  if (first == addr && last == end) {
    write_words(addr, p, bytes / 4);
    return;
  }
  // Widen to whole words: read the partial words at the ends, merge, write.
  std::vector<uint8_t> buffer(static_cast<size_t>(last - first));
  read_words(first, buffer.data(), 1);
  if (buffer.size() > 4) read_words(static_cast<uint32_t>(last - 4), buffer.data() + buffer.size() - 4, 1);
  std::memcpy(buffer.data() + (addr - first), p, bytes);
  write_words(first, buffer.data(), buffer.size() / 4);
}

void LinkEngine::read_mem(uint32_t addr, void* dst, size_t bytes) {
  if (bytes == 0) return;
  const uint32_t first = addr & ~3u;
  const uint64_t last = (uint64_t{addr} + bytes + 3) & ~uint64_t{3};
  if (first == addr && last == addr + bytes) {
    read_words(addr, static_cast<uint8_t*>(dst), bytes / 4);
    return;
  }
  std::vector<uint8_t> buffer(static_cast<size_t>(last - first));
  read_words(first, buffer.data(), buffer.size() / 4);
  std::memcpy(dst, buffer.data() + (addr - first), bytes);
}

}  // namespace kestrel::fpga
