# The two commands (README.md):
#   make test   install what is missing, configure, build, run the default test suite
#   make run    the main job: the dam-break pipeline against experiment (scripts/main-job.sh)
# Everything else is CMake in build/.

BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
CTEST_EXCLUDE ?= gpu|slow

.PHONY: deps configure build run test test-gpu sanitize install clean

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# Frames, diagnostics, front vs Martin & Moyce (table + PNG) under out/; GPU if present.
run: build
	@BUILD=$(abspath $(BUILD)) scripts/main-job.sh

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE '$(CTEST_EXCLUDE)'

# CUDA against CPU (needs a GPU; see scripts/gpu-check.sh for the device machine). The gpu+mpi
# tests need several GPUs: scripts/multi-gpu-check.sh.
test-gpu: build
	@cd $(BUILD) && ctest --output-on-failure -L gpu -LE mpi

# ASan + UBSan build of the CPU code, in its own build folder. Huge allocations (the
# out-of-memory tests) must fail cleanly instead of aborting the sanitizer. Without the mpi
# tests: OpenMPI's own allocations, kept until exit, read as leaks.
sanitize: export ASAN_OPTIONS = allocator_may_return_null=1
sanitize: export UBSAN_OPTIONS = print_stacktrace=1:halt_on_error=1
sanitize: export LSAN_OPTIONS = suppressions=$(CURDIR)/tests/sanitize/lsan.supp
sanitize:
	@$(MAKE) test BUILD=build-sanitize CTEST_EXCLUDE='gpu|mpi|slow' CMAKE_FLAGS="-DPARTIKEL_CUDA=OFF -DPARTIKEL_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo"

install: build
	@cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX),)

clean:
	@rm -rf $(BUILD)
