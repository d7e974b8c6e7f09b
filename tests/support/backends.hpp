// Backends for tests. CPU tests run at 1 and 3 threads (3: uneven chunking); GPU tests live in
// the doctest suite "gpu" and fail, never skip, when no GPU is usable.
#pragma once

#include <doctest/doctest.h>

#include <vector>

#include "core/backend.hpp"

namespace partikel::test {

std::vector<Backend> cpu_backends();
// CUDA device 0; fails the test (REQUIRE) when unavailable.
Backend cuda_backend();

}  // namespace partikel::test

// PK_BACKEND_TEST("name", body_function): a CPU case (every CPU backend) and a "gpu" suite
// case running `body_function(const Backend&)` on the CUDA backend.
#define PK_BACKEND_TEST(name, body)                                               \
    TEST_CASE(name " [cpu]") {                                                    \
        for (const auto& backend : ::partikel::test::cpu_backends()) {            \
            CAPTURE(backend.describe());                                          \
            body(backend);                                                        \
        }                                                                         \
    }                                                                             \
    TEST_CASE(name " [cuda]" * doctest::test_suite("gpu")) { body(::partikel::test::cuda_backend()); }

// PK_PHYSICS_TEST("name", body_function): for the longer validation tests, a CPU case run once
// with every core, and a "gpu" suite case running the same body on CUDA.
// PK_SLOW_PHYSICS_TEST: the same with the CPU case in the "slow" suite.
#define PK_PHYSICS_TEST(name, body)                                                                        \
    TEST_CASE(name " [cpu]") { body(::partikel::Backend::cpu(0)); }                                        \
    TEST_CASE(name " [cuda]" * doctest::test_suite("gpu")) { body(::partikel::test::cuda_backend()); }
#define PK_SLOW_PHYSICS_TEST(name, body)                                                                   \
    TEST_CASE(name " [cpu]" * doctest::test_suite("slow")) { body(::partikel::Backend::cpu(0)); }          \
    TEST_CASE(name " [cuda]" * doctest::test_suite("gpu")) { body(::partikel::test::cuda_backend()); }
