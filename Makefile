# Thin wrapper over CMake. `make demo` and `make test` work on a fresh Debian 12 machine.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local
# `make package` builds in its own tree for CPUs other than this one: x86-64-v3 (AVX2, BMI2) plus ADX,
# which the field arithmetic uses (prover/algebra/field_x86.hpp): Intel Broadwell, AMD Zen and newer.
PACKAGE_BUILD_DIR ?= build-package
PACKAGE_ARCH_FLAGS ?= -march=x86-64-v3 -madx

.PHONY: all deps configure build cuzk test sanitize demo cli-doc bench format clean install package

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

# The binary alone, without the test executables (`make test` builds those).
cuzk: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target cuzk

# All CPU tests (GPU tests carry the label `gpu` and run in scripts/gpu-check.sh).
test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -LE gpu

# ASan+UBSan unit tests, libFuzzer targets (FUZZ_SECONDS each) and TSan on the pipeline (CI runs it too).
sanitize: deps
	@./scripts/sanitize-and-fuzz.sh

# The binary, LICENSE and the man page (generated from --help) under $(PREFIX); builds those two first,
# not the tests (cmake --install would not build them: cmake/Packaging.cmake).
install: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target cuzk cuzk_man
	@cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# A .deb (CPack) in $(PACKAGE_BUILD_DIR); its dependencies are computed from the binary by dpkg-shlibdeps.
package: deps
	@cmake -S . -B $(PACKAGE_BUILD_DIR) -DCMAKE_BUILD_TYPE=Release -DCUZK_NATIVE=OFF -DCUZK_BUILD_BENCH=OFF \
	  "-DCMAKE_CXX_FLAGS=$(PACKAGE_ARCH_FLAGS)" $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(PACKAGE_BUILD_DIR) -j $(JOBS) --target cuzk cuzk_man
	@cd $(PACKAGE_BUILD_DIR) && cpack -G DEB
	@ls $(PACKAGE_BUILD_DIR)/cuzk_*.deb

# Needs only the binary: building every test as well took most of a fresh 2-core machine's time.
demo: cuzk
	@./scripts/demo.sh $(BUILD_DIR)

# docs/cli.md from the binary's --help texts (tests/scripts/cli_doc.sh fails when they differ).
cli-doc: cuzk
	@./scripts/make-cli-doc.sh $(BUILD_DIR)/cuzk

bench: build
	@./$(BUILD_DIR)/cuzk_bench --benchmark_out=$(BUILD_DIR)/bench.json --benchmark_out_format=json

format:
	@git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
