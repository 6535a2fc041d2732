# Thin wrapper over CMake. `make demo` and `make test` work on a fresh Debian 12 machine.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build test sanitize demo bench format clean

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# All CPU tests (GPU tests carry the label `gpu` and run in scripts/gpu-check.sh).
test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -LE gpu

# ASan+UBSan unit tests, libFuzzer targets (FUZZ_SECONDS each) and TSan on the pipeline (CI runs it too).
sanitize: deps
	@./scripts/sanitize-and-fuzz.sh

demo: build
	@./scripts/demo.sh $(BUILD_DIR)

bench: build
	@./$(BUILD_DIR)/cuzk_bench --benchmark_out=$(BUILD_DIR)/bench.json --benchmark_out_format=json

format:
	@git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
