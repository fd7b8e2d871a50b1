# Kestrel top-level targets.  Each one installs what is missing first
# (tools/bootstrap.sh), then configures and builds with CMake.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: deps configure build demo test test-san lint synth format bench clean

deps:
	@bash tools/bootstrap.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The main demo: a CUDA kernel on the cycle-accurate model (the Verilated RTL,
# the default backend when it is built), with its result and the performance
# counters.  Its own build tree, so that only what the demo needs is built.
demo: deps
	@cmake -S . -B $(BUILD)-demo -G Ninja -DKESTREL_RTLSIM=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-demo -j $(JOBS) --target kestrel-demo
	@$(BUILD)-demo/runtime/demo/kestrel-demo

# Every test: unit, end-to-end on each backend, lock-step, lint and synthesis.
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Host code under ASan and UBSan (a separate build tree).
test-san:
	@$(MAKE) test BUILD=build-san CMAKE_FLAGS="-DKESTREL_SANITIZE=ON -DKESTREL_BUILD_RTL=OFF -DCMAKE_BUILD_TYPE=Debug"

bench: build
	@cmake --build $(BUILD) --target bench-all

format:
	@git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' | xargs clang-format -i

clean:
	@rm -rf $(BUILD) $(BUILD)-demo build-san
