// The host end of the board link (docs/host-protocol.md): framing, CRC,
// sequence numbers, timeouts and resends, over any byte pipe.  The fpga
// backend's pipe is the FT2232H's UART channel through libusb
// (fpga_usb_transport.cpp); the fpga-sim backend's is the Verilated board top
// (fpga_sim_transport.cpp); the tests' a C++ loopback.  FaultyPipe wraps a
// pipe and flips, drops and duplicates bytes at a seeded rate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace kestrel::fpga {

// Frame constants (kestrel_board_pkg.sv).
constexpr uint8_t kFlag = 0x7E;
constexpr uint8_t kEsc = 0x7D;
constexpr uint8_t kEscXor = 0x20;
enum Op : uint8_t { kOpSync = 0, kOpReadReg = 1, kOpWriteReg = 2, kOpWriteMem = 3, kOpReadMem = 4 };
constexpr uint8_t kOpAnswer = 0x80;
constexpr uint8_t kOpNak = 0xFF;
enum Status : uint8_t {
  kStatusOk = 0,
  kStatusCrcError = 1,
  kStatusBadOp = 2,
  kStatusBadLength = 3,
  kStatusBadAddress = 4
};
constexpr uint8_t kStatusReplayed = 0x80;
constexpr unsigned kMaxWords = 64;  // words per memory request (the bridge's buffer)
constexpr size_t kHeaderBytes = 8;

// CRC-16/CCITT-FALSE (0x1021, from 0xFFFF, MSB first).
uint16_t crc16(const uint8_t* data, size_t bytes, uint16_t crc = 0xFFFF);

// FLAG, the escaped body and CRC (MSB first), FLAG.
std::vector<uint8_t> encode_frame(const std::vector<uint8_t>& body);

// A request body (docs/host-protocol.md section 3).
std::vector<uint8_t> request_body(uint8_t seq, uint8_t op, uint32_t addr, uint16_t count,
                                  const uint8_t* payload, size_t payload_bytes);

// Collects frames from raw bytes: push() returns true when a non-empty frame
// has ended; body() is it without its CRC and ok() says whether it passed.
class FrameDecoder {
 public:
  bool push(uint8_t byte);
  const std::vector<uint8_t>& body() const { return body_; }
  bool ok() const { return ok_; }

 private:
  std::vector<uint8_t> raw_;  // unescaped bytes of the frame in progress
  std::vector<uint8_t> body_;
  bool synced_ = false;
  bool esc_ = false;
  bool ok_ = false;
};

// A byte pipe to the board.  Time is in the pipe's units: clock cycles of the
// simulated board, microseconds of the USB link.
class BytePipe {
 public:
  virtual ~BytePipe() = default;
  virtual void send(const uint8_t* data, size_t bytes) = 0;
  // Waits up to `timeout` for bytes; appends what arrived to `out` (at least
  // one byte unless the time ran out) and returns the time it waited.
  virtual uint64_t receive(std::vector<uint8_t>& out, uint64_t timeout) = 0;
  // Lets `time` pass (wait_idle's pause between two STATUS polls).
  virtual void idle(uint64_t time) = 0;
};

// Flips a bit of, drops or duplicates a byte in either direction, each byte
// with probability `rate` (one of the three, chosen at random), from a
// seeded generator: every run with the same seed sees the same faults.
class FaultyPipe final : public BytePipe {
 public:
  FaultyPipe(BytePipe& inner, double rate, uint64_t seed) : inner_(inner), rate_(rate), rng_(seed) {}
  void send(const uint8_t* data, size_t bytes) override;
  uint64_t receive(std::vector<uint8_t>& out, uint64_t timeout) override;
  void idle(uint64_t time) override { inner_.idle(time); }
  uint64_t faults() const { return faults_; }

 private:
  void mangle(const uint8_t* data, size_t bytes, std::vector<uint8_t>& out);
  BytePipe& inner_;
  double rate_;
  std::mt19937_64 rng_;
  uint64_t faults_ = 0;
};

// "<rate>[:<seed>]", e.g. "0.001:7" (seed 1 when left out; rate 0, or an
// empty text, is no faults).
struct FaultSpec {
  double rate = 0;
  uint64_t seed = 1;
};
// Throws kestrel::Error(KESTREL_ERROR_INVALID_VALUE) naming `where` for a
// malformed spec.
FaultSpec parse_fault_spec(const std::string& text, const std::string& where);

struct LinkPolicy {
  // The wait for an answer: base + per_byte x (request + answer bytes).
  uint64_t timeout_base = 5000;
  uint64_t timeout_per_byte = 200;
  unsigned max_retries = 8;        // resends of one request before giving up
  unsigned max_words = kMaxWords;  // words per memory request: the bridge's MaxWords
};

struct LinkStats {
  uint64_t requests = 0;       // operations asked for (each may take resends)
  uint64_t frames_sent = 0;    // request frames sent, resends included
  uint64_t resends = 0;        // frames sent again (timeouts + CRC_ERROR answers)
  uint64_t timeouts = 0;       // waits that ran out
  uint64_t crc_naks = 0;       // CRC_ERROR answers: the bridge saw a damaged frame
  uint64_t bad_frames = 0;     // answers dropped for their CRC or shape
  uint64_t stale_answers = 0;  // answers dropped for their seq or op
  uint64_t replayed = 0;       // answers marked REPLAYED: a duplicate the bridge did not apply twice
  uint64_t bytes_sent = 0;     // raw bytes, framing included
  uint64_t bytes_received = 0;
  std::string to_string() const;
};

// The protocol engine: the four operations of docs/host-interface.md, each
// a request that the engine resends until an answer comes, after a SYNC
// at construction.  Errors: kestrel::Error KESTREL_ERROR_IO ("board not
// responding", or a status that means a host bug), KESTREL_ERROR_INVALID_VALUE
// for BAD_ADDRESS.
class LinkEngine {
 public:
  LinkEngine(BytePipe& pipe, LinkPolicy policy, std::string who);

  uint32_t read_reg(uint32_t offset);
  void write_reg(uint32_t offset, uint32_t value);
  // Any address and size: split into requests of at most kMaxWords words,
  // unaligned ends widened (a write reads the enclosing words first).
  void write_mem(uint32_t addr, const void* src, size_t bytes);
  void read_mem(uint32_t addr, void* dst, size_t bytes);
  void sync();

  const LinkStats& stats() const { return stats_; }
  BytePipe& pipe() { return pipe_; }

 private:
  // One request until its answer: the answer's payload.
  std::vector<uint8_t> transact(uint8_t op, uint32_t addr, uint16_t count, const uint8_t* payload,
                                size_t payload_bytes, size_t answer_bytes);
  void write_words(uint32_t addr, const uint8_t* src, size_t words);
  void read_words(uint32_t addr, uint8_t* dst, size_t words);

  BytePipe& pipe_;
  LinkPolicy policy_;
  std::string who_;
  uint8_t seq_ = 0;
  LinkStats stats_;
  FrameDecoder decoder_;
  std::vector<uint8_t> inbox_;
};

}  // namespace kestrel::fpga
