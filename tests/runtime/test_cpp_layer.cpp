// The C++ layer (kestrel/kestrel.hpp) over the fake transport.
#include <gtest/gtest.h>

#include "fake_transport.hpp"
#include "kestrel/kestrel.hpp"
#include "kestrel/runtime/open_device.hpp"
#include "test_support.hpp"

namespace {

using kestrel::testing::FakeDeviceState;
using kestrel::testing::FakeTransport;

class CppLayer : public ::testing::Test {
 protected:
  CppLayer() : device_(open()) {}
  kestrel::Device open() {
    auto transport = std::make_unique<FakeTransport>();
    state_ = transport->state();
    kestrel_device_t* handle = nullptr;
    EXPECT_EQ(kestrel::runtime::open_device(std::move(transport), &handle), KESTREL_SUCCESS);
    return kestrel::Device(handle);
  }
  std::shared_ptr<FakeDeviceState> state_;
  kestrel::Device device_;
};

TEST_F(CppLayer, BuffersUploadDownloadAndFree) {
  std::vector<int> host(300);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int>(i * i);
  kestrel_devptr_t address = 0;
  {
    kestrel::DeviceBuffer<int> buffer(device_, host.size());
    address = buffer.ptr();
    EXPECT_EQ(buffer.bytes(), 1200u);
    buffer.upload(host);
    EXPECT_EQ(buffer.download(), host);
    int tail[2] = {};
    buffer.download(tail, 2, 298);
    EXPECT_EQ(tail[1], 299 * 299);
    EXPECT_THROW(buffer.upload(host.data(), 2, 299), kestrel::Error);

    kestrel::DeviceBuffer<int> moved = std::move(buffer);
    EXPECT_EQ(moved.ptr(), address);
    EXPECT_EQ(buffer.ptr(), 0u);
    moved.fill_bytes(0);
    EXPECT_EQ(moved.download(), std::vector<int>(300, 0));
  }
  EXPECT_EQ(state_->perms_at(address), 0u);  // freed once, by the moved-to owner
}

TEST_F(CppLayer, ErrorsCarryStatusAndMessage) {
  try {
    kestrel::DeviceBuffer<char> huge(device_, size_t{1} << 40);
    FAIL() << "allocation succeeded";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_OUT_OF_MEMORY);
    EXPECT_NE(std::string(e.what()).find("exceeds"), std::string::npos);
  }
  const std::vector<uint8_t> junk(100, 0x7F);
  EXPECT_THROW(kestrel::Module::from_bytes(device_, junk), kestrel::Error);
}

TEST_F(CppLayer, KernelLaunchChecksArgumentsAndMarshals) {
  const kestrel::Module module = kestrel::Module::from_bytes(device_, kestrel::testing::fixture_module(64));
  const kestrel::Kernel fill = module.kernel("fill_index");
  EXPECT_EQ(fill.name(), "_Z10fill_indexPiii");
  EXPECT_EQ(fill.num_params(), 3u);
  kestrel::DeviceBuffer<int> out(device_, 64);

  fill.launch(kestrel::Dim3(2), kestrel::Dim3(32), 0, out, 5, 64);
  device_.synchronize();
  const uint64_t params = state_->launches.at(0).at(KESTREL_REG_PARAM_LO);
  EXPECT_EQ(state_->load<uint64_t>(params), out.ptr());
  EXPECT_EQ(state_->load<int32_t>(params + 8), 5);
  EXPECT_EQ(state_->load<int32_t>(params + 12), 64);
  EXPECT_EQ(state_->launches.at(0).at(KESTREL_REG_GRID_X), 2u);
  EXPECT_EQ(state_->launches.at(0).at(KESTREL_REG_BLOCK_Y), 1u);

  try {
    fill.launch(kestrel::Dim3(1), kestrel::Dim3(32), 0, out, 5);
    FAIL() << "launch with too few arguments";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_INVALID_VALUE);
    EXPECT_NE(std::string(e.what()).find("takes 3 parameters, the launch passes 2"), std::string::npos);
  }
  try {
    fill.launch(kestrel::Dim3(1), kestrel::Dim3(32), 0, out, 5, size_t{64});  // 8 bytes for an int
    FAIL() << "launch with a mis-sized argument";
  } catch (const kestrel::Error& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 2 takes 4 host bytes, the argument has 8"),
              std::string::npos);
  }
  EXPECT_THROW(fill.launch(kestrel::Dim3(1), kestrel::Dim3(2048), 0, out, 5, 64), kestrel::Error);
  EXPECT_EQ(state_->starts, 1);
}

TEST_F(CppLayer, GlobalsReadAndWriteAsSymbols) {
  const kestrel::Module module = kestrel::Module::from_bytes(device_, kestrel::testing::fixture_module(64));
  EXPECT_EQ(module.read_global<int>("counter"), 7);
  module.write_global<int>("counter", 42);
  EXPECT_EQ(module.read_global<int>("counter"), 42);
  EXPECT_EQ(module.global("test::table").bytes, 16u);
  EXPECT_THROW(module.read_global<double>("counter"), kestrel::Error);  // 8 bytes from a 4-byte variable
  EXPECT_THROW(module.global("missing"), kestrel::Error);
}

TEST_F(CppLayer, SynchronizeThrowsTheFault) {
  const kestrel::Module module = kestrel::Module::from_bytes(device_, kestrel::testing::fixture_module(64));
  kestrel::DeviceBuffer<int> out(device_, 1);
  state_->fail_with(KESTREL_FAULT_WRITE_PROTECT, 0x10001040, 0x10001000, 0, 3);
  module.kernel("_Z4pokePi").launch(kestrel::Dim3(1), kestrel::Dim3(32), 0, out);
  try {
    device_.synchronize();
    FAIL() << "fault not reported";
  } catch (const kestrel::Error& e) {
    EXPECT_EQ(e.status(), KESTREL_ERROR_LAUNCH_FAULT);
    EXPECT_NE(std::string(e.what()).find("write to read-only page 0x10001000"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(device_.fault().kind, KESTREL_FAULT_WRITE_PROTECT);
  EXPECT_EQ(device_.fault().thread.x, 3u);
}

}  // namespace
