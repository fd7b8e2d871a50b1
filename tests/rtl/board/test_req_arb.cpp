// kestrel_req_arb (2 requesters with 2 outstanding, 3 with 4) in front of a
// C++ single-port memory of eight 16-bit words that takes requests with
// random backpressure and answers them in order after 1 to 5 cycles.  Each
// requester offers random reads and writes (valid held until taken, as AXI
// asks) and takes responses with its own random backpressure, with long
// stretches of none.  Checked every cycle: a request reaches the memory
// exactly when one requester's handshake fires, with that requester's
// payload; an offered request stays offered and stable until taken; every
// response goes to the requester that asked, in its order, with the data the
// reference memory gives for the order the arbiter chose; no requester with
// a request waits while the others are served more than N - 1 times; no more
// than Outstanding requests are in flight; no requester's ready changes with
// the requests offered (so a requester may make its valid from its ready).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <type_traits>
#include <vector>

#include "Vreq_arb2.h"
#include "Vreq_arb3.h"
#include "rtl_test.hpp"

namespace {

using kestrel::rtlbench::Bench;

// Payloads: a request is {write, addr[2:0], data[11:0]} in 16 bits; the
// response to a read is the word, to a write 0x8000 | data.
constexpr unsigned kPayloadBits = 16;
uint16_t request(bool write, unsigned addr, unsigned data) {
  return static_cast<uint16_t>((write ? 0x8000u : 0u) | ((addr & 7u) << 12) | (data & 0xFFFu));
}

struct Requester {
  bool valid = false;
  uint16_t payload = 0;
  std::deque<uint16_t> expect;  // responses owed, oldest first
  unsigned waited = 0;          // requests of others served while this one waits
  unsigned done = 0;
  unsigned ready_pct = 75;  // chance of taking a response, changed in phases
};

struct InFlight {
  uint16_t response;
  uint64_t ready_at;
};

template <typename Model, unsigned N, unsigned Outstanding>
void run_against_reference(unsigned seed) {
  Bench<Model> b;
  b.reset();
  std::mt19937 rng(seed);
  std::array<Requester, N> req{};
  std::array<uint16_t, 8> mem{};
  std::deque<InFlight> in_flight;  // taken by the memory, not yet answered
  unsigned max_waited = 0, max_in_flight = 0, stalled_offers = 0;
  bool offered_last = false;
  uint16_t offered_payload = 0;
  for (uint64_t cycle = 0; cycle < 30000; ++cycle) {
    if (cycle % 500 == 0) {
      // A phase: each requester takes responses always, never or at random.
      for (auto& r : req) r.ready_pct = std::array<unsigned, 4>{100, 0, 50, 90}[rng() % 4];
    }
    uint64_t valids = 0, payloads = 0, readys = 0;
    for (unsigned p = 0; p < N; ++p) {
      Requester& r = req[p];
      if (!r.valid && rng() % 3 != 0) {
        r.valid = true;
        r.payload = request(rng() % 2, rng(), rng());
      }
      valids |= uint64_t{r.valid} << p;
      payloads |= uint64_t{r.payload} << (kPayloadBits * p);
      readys |= uint64_t{rng() % 100 < r.ready_pct} << p;
    }
    b->req_i = static_cast<std::remove_reference_t<decltype(b->req_i)>>(payloads);
    b->rsp_ready_i = static_cast<std::remove_reference_t<decltype(b->rsp_ready_i)>>(readys);
    const bool mem_ready = rng() % 10 < 7;
    b->mem_req_ready_i = mem_ready;
    const bool rsp_offered = !in_flight.empty() && in_flight.front().ready_at <= cycle;
    b->mem_rsp_valid_i = rsp_offered;
    b->mem_rsp_i = rsp_offered ? in_flight.front().response : 0;
    // No ready depends on a valid: the readys with no request offered are
    // the readys with this cycle's requests (the grant is a flop).
    b->req_valid_i = 0;
    b.eval();
    const uint64_t ready_without_requests = b->req_ready_o;
    b->req_valid_i = static_cast<std::remove_reference_t<decltype(b->req_valid_i)>>(valids);
    b.eval();

    ASSERT_EQ(b->req_ready_o, ready_without_requests) << "cycle " << cycle << ": a ready followed a valid";

    // The memory side: an offer is held and stable until taken.
    const bool offered = b->mem_req_valid_o;
    if (offered_last) {
      ASSERT_TRUE(offered) << "cycle " << cycle << ": an offered request was withdrawn";
      ASSERT_EQ(b->mem_req_o, offered_payload) << "cycle " << cycle << ": an offered request changed";
    }
    const bool taken = offered && mem_ready;
    offered_last = offered && !taken;
    offered_payload = static_cast<uint16_t>(b->mem_req_o);
    if (offered && !mem_ready) ++stalled_offers;

    // Requests: exactly one requester's handshake with the memory's.
    unsigned fired = 0, winner = 0;
    for (unsigned p = 0; p < N; ++p) {
      if (req[p].valid && ((b->req_ready_o >> p) & 1u)) {
        ++fired;
        winner = p;
      }
    }
    ASSERT_EQ(fired, taken ? 1u : 0u) << "cycle " << cycle;
    if (taken) {
      ASSERT_EQ(b->mem_req_o, req[winner].payload) << "cycle " << cycle;
      const uint16_t r = req[winner].payload;
      const unsigned addr = (r >> 12) & 7u;
      uint16_t response;
      if (r & 0x8000u) {
        mem[addr] = r & 0xFFFu;
        response = static_cast<uint16_t>(0x8000u | (r & 0xFFFu));
      } else {
        response = mem[addr];
      }
      req[winner].expect.push_back(response);
      in_flight.push_back({response, cycle + 1 + rng() % 5});
      req[winner].valid = false;
      req[winner].waited = 0;
      for (unsigned p = 0; p < N; ++p) {
        if (p != winner && req[p].valid) {
          ++req[p].waited;
          max_waited = std::max(max_waited, req[p].waited);
        }
      }
    }

    // Responses: to the requester that asked, in its order.
    unsigned routed = 0;
    for (unsigned p = 0; p < N; ++p) {
      if ((b->rsp_valid_o >> p) & 1u) {
        ++routed;
        ASSERT_TRUE(rsp_offered) << "cycle " << cycle;
        ASSERT_FALSE(req[p].expect.empty()) << "cycle " << cycle << ": requester " << p << " owed nothing";
        ASSERT_EQ(b->rsp_o, req[p].expect.front()) << "cycle " << cycle << ", requester " << p;
        ASSERT_EQ(b->mem_rsp_ready_o, (readys >> p) & 1u) << "cycle " << cycle;
        if ((readys >> p) & 1u) {
          req[p].expect.pop_front();
          ++req[p].done;
        }
      }
    }
    ASSERT_EQ(routed, rsp_offered ? 1u : 0u) << "cycle " << cycle;
    if (rsp_offered && b->mem_rsp_ready_o) in_flight.pop_front();
    ASSERT_LE(in_flight.size(), Outstanding) << "cycle " << cycle;
    max_in_flight = std::max<unsigned>(max_in_flight, static_cast<unsigned>(in_flight.size()));
    b.tick();
  }
  for (unsigned p = 0; p < N; ++p) EXPECT_GT(req[p].done, 2000u) << "requester " << p;
  EXPECT_LE(max_waited, N - 1) << "a requester waited longer than round robin allows";
  EXPECT_EQ(max_waited, N - 1) << "the others never overtook a waiting requester: arbitration not exercised";
  EXPECT_EQ(max_in_flight, Outstanding) << "the order FIFO never filled";
  EXPECT_GT(stalled_offers, 1000u);
}

TEST(ReqArb, TwoRequestersAgainstAReference) { run_against_reference<Vreq_arb2, 2, 2>(21); }

TEST(ReqArb, ThreeRequestersAgainstAReference) { run_against_reference<Vreq_arb3, 3, 4>(22); }

}  // namespace
