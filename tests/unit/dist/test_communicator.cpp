// dist::Communicator on any number of ranks: run alone (one rank, the default suite) and under
// `mpirun -np 2` and `-np 4` (label mpi). Every case holds for any rank count.
#include <doctest/doctest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "base/error.hpp"
#include "core/buffer.hpp"
#include "dist/communicator.hpp"

using namespace partikel;
using dist::Communicator;
using dist::ReduceOp;

namespace {

Communicator world() { return Communicator::world(); }

struct Extremes {
    double sum;
    float low, high;
    static Extremes combine(const Extremes& a, const Extremes& b) {
        return {a.sum + b.sum, b.low < a.low ? b.low : a.low, a.high < b.high ? b.high : a.high};
    }
};

}  // namespace

TEST_CASE("world: rank, size, host and transport") {
    const Communicator c = world();
    REQUIRE(c.size() >= 1);
    CHECK(c.rank() >= 0);
    CHECK(c.rank() < c.size());
    CHECK(c.local_rank() >= 0);
    CHECK(c.local_rank() < c.local_size());
    CHECK(c.local_size() <= c.size());
    CHECK(c.root() == (c.rank() == 0));
    CHECK(c.transport() == (c.size() == 1 ? "single" : "mpi"));
    CHECK(c.describe() == (c.size() == 1 ? std::string("1 rank") : std::to_string(c.size()) + " ranks (mpi)"));
    CHECK(Communicator::world_started());
    // world() is one communicator: the same ranks on every call.
    CHECK(world().rank() == c.rank());
}

TEST_CASE("allreduce: sum, min and max of every type, arrays in place") {
    const Communicator c = world();
    const int r = c.rank(), n = c.size();
    CHECK(c.allreduce<std::int64_t>(r + 1, ReduceOp::sum) == std::int64_t(n) * (n + 1) / 2);
    CHECK(c.allreduce<std::uint64_t>(std::uint64_t{1} << 40, ReduceOp::sum) == std::uint64_t(n) << 40);
    CHECK(c.allreduce<std::int32_t>(-r, ReduceOp::min) == -(n - 1));
    CHECK(c.allreduce<std::uint32_t>(std::uint32_t(r), ReduceOp::max) == std::uint32_t(n - 1));
    CHECK(c.allreduce<float>(1.5f * float(r), ReduceOp::max) == doctest::Approx(1.5 * (n - 1)));
    CHECK(c.allreduce<double>(0.25 + r, ReduceOp::min) == 0.25);
    std::vector<double> v{double(r), 1.0, -double(r)};
    c.allreduce(std::span<double>(v), ReduceOp::sum);
    CHECK(v[0] == doctest::Approx(n * (n - 1) / 2.0));
    CHECK(v[1] == doctest::Approx(n));
    CHECK(v[2] == doctest::Approx(-n * (n - 1) / 2.0));
}

TEST_CASE("decisions: any and all agree everywhere") {
    const Communicator c = world();
    CHECK(c.any(c.rank() == c.size() - 1));
    CHECK_FALSE(c.any(false));
    CHECK(c.all(true));
    CHECK(c.all(c.rank() >= 0));
    CHECK(c.all(c.rank() != 0) == false);
}

TEST_CASE("allreduce_combine folds structs in rank order, the same bits everywhere") {
    const Communicator c = world();
    const Extremes mine{0.1 * (c.rank() + 1), float(c.rank()), float(-c.rank())};
    const Extremes all = c.allreduce_combine(mine);
    double sum = 0.0;
    for (int r = 0; r < c.size(); ++r) sum += 0.1 * (r + 1);  // the same order of sums
    CHECK(all.sum == sum);
    CHECK(all.low == 0.0f);
    CHECK(all.high == 0.0f);
    CHECK(c.all(c.allgather(all.sum) == std::vector<double>(std::size_t(c.size()), all.sum)));
}

TEST_CASE("allgather, allgatherv and gatherv keep rank order") {
    const Communicator c = world();
    const auto values = c.allgather(10 * c.rank() + 3);
    REQUIRE(values.size() == std::size_t(c.size()));
    for (int r = 0; r < c.size(); ++r) CHECK(values[std::size_t(r)] == 10 * r + 3);
    const std::int64_t pair[2] = {c.rank(), -c.rank()};
    const auto pairs = c.allgather(std::span<const std::int64_t>(pair));
    REQUIRE(pairs.size() == 2 * std::size_t(c.size()));
    for (int r = 0; r < c.size(); ++r) CHECK((pairs[2 * std::size_t(r)] == r && pairs[2 * std::size_t(r) + 1] == -r));

    // Rank r gives r + 1 bytes of value r (rank 0 once gives nothing: an empty part).
    for (bool empty_root : {false, true}) {
        const std::size_t mine_size = empty_root && c.rank() == 0 ? 0 : std::size_t(c.rank()) + 1;
        std::vector<std::byte> mine(mine_size, std::byte(c.rank()));
        const auto everyone = c.allgatherv(mine);
        const auto at_root = c.gatherv(mine, 0);
        REQUIRE(everyone.size() == std::size_t(c.size()));
        CHECK(at_root.size() == (c.root() ? std::size_t(c.size()) : 0));
        for (int r = 0; r < c.size(); ++r) {
            const std::size_t size = empty_root && r == 0 ? 0 : std::size_t(r) + 1;
            CHECK(everyone[std::size_t(r)] == dist::ReceivedBytes(size, std::byte(r)));
            if (c.root()) CHECK(at_root[std::size_t(r)] == everyone[std::size_t(r)]);
        }
    }
}

TEST_CASE("allgather_concat: every rank's values one after the other") {
    const Communicator c = world();
    // Rank r gives r values r * 100 + k (rank 0 none).
    std::vector<std::uint64_t> mine;
    for (int k = 0; k < c.rank(); ++k) mine.push_back(std::uint64_t(100 * c.rank() + k));
    std::vector<std::uint64_t> expected;
    for (int r = 0; r < c.size(); ++r)
        for (int k = 0; k < r; ++k) expected.push_back(std::uint64_t(100 * r + k));
    CHECK(c.allgather_concat(std::span<const std::uint64_t>(mine)) == expected);
}

TEST_CASE("bcast: fixed and variable sizes from any root") {
    const Communicator c = world();
    for (int root = 0; root < c.size(); ++root) {
        std::int64_t value = c.rank() == root ? 1000 + root : -1;
        c.bcast_value(value, root);
        CHECK(value == 1000 + root);
        std::vector<std::byte> text;
        if (c.rank() == root) text.assign(std::size_t(root) + 5, std::byte(7));
        text = c.bcast_bytes(text, root);
        CHECK(text == std::vector<std::byte>(std::size_t(root) + 5, std::byte(7)));
    }
    c.barrier();
}

TEST_CASE("exchange_host: a ring, and a rank with itself") {
    const Communicator c = world();
    const int next = (c.rank() + 1) % c.size(), previous = (c.rank() + c.size() - 1) % c.size();
    std::vector<std::int32_t> out(100 + std::size_t(c.rank()));
    std::iota(out.begin(), out.end(), 1000 * c.rank());
    std::vector<std::int32_t> in(100 + std::size_t(previous), -1);
    const dist::SendBytes sends[] = {{next, out.data(), out.size() * 4}};
    const dist::ReceiveBytes receives[] = {{previous, in.data(), in.size() * 4}};
    c.exchange_host(sends, receives);
    for (std::size_t i = 0; i < in.size(); ++i) CHECK(in[i] == 1000 * previous + std::int32_t(i));
}

TEST_CASE("exchange on the CPU backend: neighbours both ways, zero-byte entries skipped, split in two halves") {
    Communicator c = world();
    const Backend cpu = Backend::cpu(2);
    c.bind_device(cpu);
    CHECK(c.transport() == (c.size() == 1 ? "single" : "mpi"));
    const int n = c.size(), r = c.rank();
    const int left = (r + n - 1) % n, right = (r + 1) % n;
    DeviceBuffer<float> to_left(cpu, 64), to_right(cpu, 64), from_left(cpu, 64), from_right(cpu, 64);
    std::vector<float> values(64);
    for (int i = 0; i < 64; ++i) values[std::size_t(i)] = float(r) + 0.01f * float(i);
    to_left.copy_from_host(values);
    for (auto& x : values) x += 100.0f;
    to_right.copy_from_host(values);
    // With two ranks left == right: two messages between the same pair, matched in order.
    const dist::SendBytes sends[] = {{left, to_left.data(), 64 * 4}, {right, to_right.data(), 64 * 4}, {right, nullptr, 0}};
    const dist::ReceiveBytes receives[] = {{right, from_right.data(), 64 * 4}, {left, from_left.data(), 64 * 4}};
    if (n == 2) {
        // The pair's two messages meet in order: the left send is the right peer's first receive.
        c.exchange(sends, receives);
    } else {
        c.start_exchange(sends, receives);
        c.finish_exchange();
    }
    const auto got_right = from_right.to_vector(), got_left = from_left.to_vector();
    for (int i = 0; i < 64; ++i) {
        CHECK(got_right[std::size_t(i)] == doctest::Approx(float(right) + 0.01f * float(i)));
        CHECK(got_left[std::size_t(i)] == doctest::Approx(float(left) + 0.01f * float(i) + 100.0f));
    }
    DeviceBuffer<double> sums(cpu, 3);
    const std::vector<double> mine{double(r), 1.0, double(-r)};
    sums.copy_from_host(mine);
    c.allreduce_device(sums.data(), 3, ReduceOp::max);
    CHECK(sums.to_vector() == std::vector<double>{double(n - 1), 1.0, 0.0});
    CHECK(c.wait_seconds() >= 0.0);
}

TEST_CASE("agree: everyone gets the lowest failing rank's failure, typed") {
    const Communicator c = world();
    CHECK_FALSE(c.agree(std::nullopt).has_value());
    const int last = c.size() - 1;
    std::optional<dist::Failure> mine;
    if (c.rank() == last) mine = dist::Failure{last, dist::FailureKind::format, "frame 3: checksum mismatch"};
    if (c.rank() == 0 && c.size() > 2) mine = dist::Failure{0, dist::FailureKind::io, "disk full"};
    const auto agreed = c.agree(mine);
    REQUIRE(agreed.has_value());
    if (c.size() > 2) {
        CHECK(agreed->rank == 0);
        CHECK(agreed->kind == dist::FailureKind::io);
        CHECK(agreed->describe(c.size()) == "rank 0: disk full");
    } else {
        CHECK(agreed->rank == last);
        CHECK(agreed->kind == dist::FailureKind::format);
        CHECK(agreed->describe(c.size()) == (c.size() == 1 ? "frame 3: checksum mismatch"
                                                           : "rank 1: frame 3: checksum mismatch"));
    }
}

TEST_CASE("collectively: an error on one rank is thrown on every rank with its type") {
    const Communicator c = world();
    CHECK(c.collectively([&] { return c.rank() * 2; }) == c.rank() * 2);
    const int last = c.size() - 1;
    std::string what;
    CHECK_THROWS_AS(c.collectively([&] {
        if (c.rank() == last) throw UsageError("--dx must be > 0 (got -1)");
    }),
                    UsageError);
    try {
        c.collectively([&] {
            if (c.rank() == last) throw NumericalError("speed runs away");
        });
    } catch (const NumericalError& e) {
        what = e.what();
    }
    CHECK(what == (c.size() == 1 ? std::string("speed runs away") : "rank " + std::to_string(last) + ": speed runs away"));
}

TEST_CASE("failure_of and raise keep the error's type") {
    using dist::FailureKind;
    auto kind_of = [](auto error) { return dist::failure_of(std::make_exception_ptr(error), 2).kind; };
    CHECK(kind_of(UsageError("u")) == FailureKind::usage);
    CHECK(kind_of(FormatError("f")) == FailureKind::format);
    CHECK(kind_of(IoError("i")) == FailureKind::io);
    CHECK(kind_of(DeviceError("d")) == FailureKind::device);
    CHECK(kind_of(OutOfMemoryError("m", 1, 0)) == FailureKind::out_of_memory);
    CHECK(kind_of(NumericalError("n")) == FailureKind::numerical);
    CHECK(kind_of(std::runtime_error("x")) == FailureKind::other);
    const auto f = dist::failure_of(std::make_exception_ptr(IoError("a\nb")), 2);
    CHECK(f.message == "a b");
    CHECK(f.rank == 2);
    CHECK_THROWS_WITH_AS(dist::raise(f, 4), "rank 2: a b", IoError);
    CHECK_THROWS_AS(dist::raise({1, FailureKind::out_of_memory, "m"}, 4), OutOfMemoryError);
}

TEST_CASE("duplicate: a communicator of its own over the same ranks") {
    const Communicator c = world();
    const Communicator d = c.duplicate();
    CHECK(d.rank() == c.rank());
    CHECK(d.size() == c.size());
    CHECK(d.allreduce<std::int32_t>(1, ReduceOp::sum) == c.size());
}

TEST_CASE("throw_if_failed: nothing to throw while every rank is well, and it never waits") {
    const Communicator c = world();
    CHECK_NOTHROW(c.throw_if_failed());
    c.barrier();
    CHECK_NOTHROW(c.throw_if_failed());
}

TEST_CASE("single: one rank, whatever started the process") {
    Communicator s = Communicator::single();
    CHECK(s.size() == 1);
    CHECK(s.rank() == 0);
    CHECK(s.allreduce(7.0, ReduceOp::sum) == 7.0);
    CHECK(s.any(true));
    std::int32_t a = 5, b = 0;
    const dist::SendBytes sends[] = {{0, &a, 4}};
    const dist::ReceiveBytes receives[] = {{0, &b, 4}};
    s.exchange_host(sends, receives);
    CHECK(b == 5);
    const dist::SendBytes elsewhere[] = {{1, &a, 4}};
    CHECK_THROWS_AS(s.exchange_host(elsewhere, {}), UsageError);
}
