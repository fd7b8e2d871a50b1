#include "kestrel/model/gpu.hpp"

#include "engine.hpp"

namespace kestrel::model {

Gpu::Gpu(const Config& config) : engine_(make_engine(config)) {}
Gpu::~Gpu() = default;

const Config& Gpu::config() const { return engine_->config(); }
void Gpu::write_mem(uint64_t addr, const void* src, size_t bytes) { engine_->write_mem(addr, src, bytes); }
void Gpu::read_mem(uint64_t addr, void* dst, size_t bytes) const { engine_->read_mem(addr, dst, bytes); }
void Gpu::map_pages(uint64_t addr, uint64_t pages, uint32_t perms) { engine_->map_pages(addr, pages, perms); }
uint32_t Gpu::page_perms(uint64_t addr) const { return engine_->page_perms(addr); }
void Gpu::start(const LaunchDesc& desc, Dispatch dispatch) { engine_->start(desc, dispatch); }
void Gpu::run() { engine_->run(); }
bool Gpu::run_for(uint64_t rounds) { return engine_->run_for(rounds); }
void Gpu::set_retire_observer(RetireObserver observer) { engine_->set_retire_observer(std::move(observer)); }
void Gpu::abort() { engine_->abort(); }
LaunchState Gpu::state() const { return engine_->state(); }
const Fault& Gpu::fault() const { return engine_->fault(); }
const Counters& Gpu::counters() const { return engine_->counters(); }
SmCounters Gpu::sm_counters(uint32_t sm) const { return engine_->sm_counters(sm); }
void Gpu::place_block(uint32_t block_index, uint32_t sm, const std::vector<uint32_t>& warp_slots) {
  engine_->place_block(block_index, sm, warp_slots);
}
Retire Gpu::step(uint32_t sm, uint32_t warp_slot) { return engine_->step(sm, warp_slot, nullptr); }
Retire Gpu::step(uint32_t sm, uint32_t warp_slot, const AtomicOracle& oracle) {
  return engine_->step(sm, warp_slot, &oracle);
}
bool Gpu::warp_resident(uint32_t sm, uint32_t warp_slot) const {
  return engine_->warp_resident(sm, warp_slot);
}
uint64_t Gpu::xreg(uint32_t sm, uint32_t warp_slot, uint32_t lane, unsigned reg) const {
  return engine_->xreg(sm, warp_slot, lane, reg);
}
void Gpu::set_xreg(uint32_t sm, uint32_t warp_slot, uint32_t lane, unsigned reg, uint64_t value) {
  engine_->set_xreg(sm, warp_slot, lane, reg, value);
}
uint32_t Gpu::freg(uint32_t sm, uint32_t warp_slot, uint32_t lane, unsigned reg) const {
  return engine_->freg(sm, warp_slot, lane, reg);
}
uint32_t Gpu::fcsr(uint32_t sm, uint32_t warp_slot, uint32_t lane) const {
  return engine_->fcsr(sm, warp_slot, lane);
}
uint64_t Gpu::thread_pc(uint32_t sm, uint32_t warp_slot, uint32_t lane, bool* exited) const {
  return engine_->thread_pc(sm, warp_slot, lane, exited);
}

}  // namespace kestrel::model
