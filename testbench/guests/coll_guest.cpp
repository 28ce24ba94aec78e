// A guest program for `isvp run`: every collective of the guest driver
// checked against a plain C++ reference, on several communicators. One
// scenario per run:
//
//   coll_guest world        every collective on MPI_COMM_WORLD: 0, 1, odd and
//                           4 KiB counts; int32 SUM/MAX/BXOR, float64 SUM,
//                           float32_int32 MINLOC; roots first, last, middle
//   coll_guest split        the same on split communicators: halves,
//                           non-contiguous odd-sized (rank mod 3), reversed
//                           keys, one rank left out (MPI_UNDEFINED), singletons
//   coll_guest large        1 MiB bcast, allreduce, allgather, reduce_scatter_block
//   coll_guest determinism  float64 SUM of non-exact values: bit-identical on
//                           every rank; prints a digest (same every run)
//   coll_guest contexts     dup until the 32 context IDs are used up (the rest
//                           are software-only but work), free, reuse
//   coll_guest errors       argument checks name the argument
//   coll_guest ops          every (operation, datatype) pair the AgLU supports
//                           through allreduce, reduce, reduce_scatter_block
//                           and reduce_scatter (odd counts), on world and an
//                           odd-sized split
//   coll_guest mismatch     one rank passes a different count, root,
//                           operation or datatype: every rank gets an error
//                           naming it within 1 ms of simulated time, and the
//                           next collective on the communicator works (needs
//                           the collective engine; software mode: skipped)
//
// A second argument picks the mode: "software" (offload off: the baseline,
// nothing may be offloaded) or "auto" (the default: offload wherever the
// platform's collective engine can run it; with an engine present the world
// communicator must be offloadable and some collectives offloaded).
// Prints "coll <scenario> ok <simulated ps>" per rank and exits 0, or names
// the first mismatch and exits 1.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "isvp/aglu_core.h"
#include "isvp/collectives.h"
#include "isvp/driver.h"
#include "isvp/remote_transport.h"

using isvp::Datatype;
using isvp::Operation;
using isvp::guest::Collectives;
using isvp::guest::Communicator;
using isvp::guest::Driver;
using isvp::guest::DriverError;

namespace {

struct FloatInt {
    float value;
    std::int32_t index;
};
static_assert(sizeof(FloatInt) == 8);

/// A reduction case: what the data is and how the reference combines it.
struct Case {
    const char* name;
    Datatype type;
    Operation op;
};
const Case kCases[] = {
    {"int32 SUM", Datatype::Int32, Operation::Sum},
    {"int32 MAX", Datatype::Int32, Operation::Max},
    {"int32 BXOR", Datatype::Int32, Operation::Bxor},
    {"float64 SUM", Datatype::Float64, Operation::Sum},
    {"float32_int32 MINLOC", Datatype::Float32Int32, Operation::Minloc},
};

std::uint32_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return static_cast<std::uint32_t>(x);
}

/// Element i of the contribution of global rank `rank` in test `salt`, as
/// 8 bytes (the first element_size(type) used). Float64 values are small
/// integers so every association order sums exactly; MINLOC values repeat so
/// ties are decided by index.
std::uint64_t element(Datatype type, int rank, std::size_t i, std::uint32_t salt) {
    const std::uint32_t h =
        mix((static_cast<std::uint64_t>(salt) << 40) ^ (static_cast<std::uint64_t>(rank) << 28) ^ i);
    std::uint64_t bits = 0;
    if (type == Datatype::Float64) {
        const double value = static_cast<double>(static_cast<int>(h % 2001) - 1000);
        std::memcpy(&bits, &value, 8);
    } else if (type == Datatype::Float32Int32) {
        const FloatInt pair{static_cast<float>(h % 4) - 1.5f, static_cast<std::int32_t>((h >> 8) % 7)};
        std::memcpy(&bits, &pair, 8);
    } else {
        bits = h;
    }
    return bits;
}

std::vector<std::uint8_t> contribution(Datatype type, int rank, std::size_t count, std::uint32_t salt) {
    const std::size_t size = isvp::element_size(type);
    std::vector<std::uint8_t> data(count * size);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t bits = element(type, rank, i, salt);
        std::memcpy(data.data() + i * size, &bits, size);
    }
    return data;
}

/// The reference: one element, left op right.
void reference_combine(const Case& c, std::uint8_t* left, const std::uint8_t* right) {
    if (c.type == Datatype::Int32) {
        std::int32_t a, b;
        std::memcpy(&a, left, 4);
        std::memcpy(&b, right, 4);
        std::int32_t r = 0;
        if (c.op == Operation::Sum)
            r = static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
        if (c.op == Operation::Max) r = a > b ? a : b;
        if (c.op == Operation::Bxor) r = a ^ b;
        std::memcpy(left, &r, 4);
    } else if (c.type == Datatype::Float64) {
        double a, b;
        std::memcpy(&a, left, 8);
        std::memcpy(&b, right, 8);
        const double r = a + b;
        std::memcpy(left, &r, 8);
    } else {
        FloatInt a, b;
        std::memcpy(&a, left, 8);
        std::memcpy(&b, right, 8);
        if (b.value < a.value || (b.value == a.value && b.index < a.index)) a = b;
        std::memcpy(left, &a, 8);
    }
}

/// Reference reduction of the members' contributions, in comm-rank order.
std::vector<std::uint8_t> reference_reduce(const Case& c, const Communicator& comm, std::size_t count,
                                           std::uint32_t salt) {
    std::vector<std::uint8_t> result = contribution(c.type, comm.members[0], count, salt);
    const std::size_t size = isvp::element_size(c.type);
    for (int r = 1; r < comm.size(); ++r) {
        const auto other = contribution(c.type, comm.members[static_cast<std::size_t>(r)], count, salt);
        for (std::size_t i = 0; i < count; ++i) reference_combine(c, result.data() + i * size, other.data() + i * size);
    }
    return result;
}

class Checker {
  public:
    Checker(Collectives& collectives, int global_rank) : collectives_(collectives), me_(global_rank) {}

    bool ok() const { return failures_ == 0; }
    std::uint64_t checks() const { return checks_; }

    void expect(bool condition, const std::string& what) {
        ++checks_;
        if (condition) return;
        if (failures_++ < 5) std::cout << "coll MISMATCH rank " << me_ << ": " << what << "\n";
    }
    void expect_equal(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want,
                      const std::string& what) {
        if (got == want) return expect(true, what);
        std::size_t at = 0;
        while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
        expect(false, what + ": first differing byte " + std::to_string(at) + " of " + std::to_string(want.size()));
    }

    /// Every collective on `comm` with `count` elements (per block).
    void all_collectives(Communicator& comm, std::size_t count, const std::string& label) {
        const int p = comm.size(), m = comm.rank;
        const std::string where = label + " (size " + std::to_string(p) + ", count " + std::to_string(count) + ")";
        std::uint32_t salt = static_cast<std::uint32_t>(count * 131 + static_cast<std::size_t>(p) * 7 + comm.id);
        for (const int root : {0, p - 1, p / 2}) {
            ++salt;
            const std::string at_root = where + " root " + std::to_string(root);
            const int root_global = comm.members[static_cast<std::size_t>(root)];
            // Bcast: non-roots start from garbage.
            auto buffer = m == root ? contribution(Datatype::Int32, root_global, count, salt)
                                    : std::vector<std::uint8_t>(count * 4, 0xAB);
            collectives_.bcast(comm, buffer.data(), count, Datatype::Int32, root);
            expect_equal(buffer, contribution(Datatype::Int32, root_global, count, salt), "bcast " + at_root);

            // Scatter: block i of the root's buffer goes to comm rank i.
            std::vector<std::uint8_t> all;
            for (int r = 0; r < p; ++r) {
                const auto block = contribution(Datatype::Int32, 1000 + r, count, salt);
                all.insert(all.end(), block.begin(), block.end());
            }
            std::vector<std::uint8_t> mine(count * 4, 0xCD);
            collectives_.scatter(comm, m == root ? all.data() : nullptr, mine.data(), count, Datatype::Int32, root);
            expect_equal(mine, contribution(Datatype::Int32, 1000 + m, count, salt), "scatter " + at_root);

            // Gather: the root gets every member's block in comm-rank order.
            std::vector<std::uint8_t> expected_all;
            for (int r = 0; r < p; ++r) {
                const auto block =
                    contribution(Datatype::Int32, comm.members[static_cast<std::size_t>(r)], count, salt);
                expected_all.insert(expected_all.end(), block.begin(), block.end());
            }
            const auto own = contribution(Datatype::Int32, me_, count, salt);
            std::vector<std::uint8_t> gathered(m == root ? count * 4 * static_cast<std::size_t>(p) : 0, 0xEF);
            collectives_.gather(comm, own.data(), m == root ? gathered.data() : nullptr, count, Datatype::Int32, root);
            if (m == root) expect_equal(gathered, expected_all, "gather " + at_root);

            // Reduce, one case per root (all cases are covered by allreduce).
            const Case& c = kCases[static_cast<std::size_t>(root + count) % std::size(kCases)];
            const auto send = contribution(c.type, me_, count, salt);
            std::vector<std::uint8_t> reduced(m == root ? send.size() : 0, 0x5A);
            collectives_.reduce(comm, send.data(), m == root ? reduced.data() : nullptr, count, c.type, c.op, root);
            if (m == root)
                expect_equal(reduced, reference_reduce(c, comm, count, salt),
                             "reduce " + std::string(c.name) + " " + at_root);
        }

        // Allgather.
        ++salt;
        {
            std::vector<std::uint8_t> expected_all;
            for (int r = 0; r < p; ++r) {
                const auto block =
                    contribution(Datatype::Int32, comm.members[static_cast<std::size_t>(r)], count, salt);
                expected_all.insert(expected_all.end(), block.begin(), block.end());
            }
            const auto own = contribution(Datatype::Int32, me_, count, salt);
            std::vector<std::uint8_t> gathered(expected_all.size(), 0x11);
            collectives_.allgather(comm, own.data(), gathered.data(), count, Datatype::Int32);
            expect_equal(gathered, expected_all, "allgather " + where);
        }

        for (const Case& c : kCases) {
            ++salt;
            const std::string name = std::string(c.name) + " " + where;
            // Allreduce.
            const auto send = contribution(c.type, me_, count, salt);
            std::vector<std::uint8_t> result(send.size(), 0x77);
            collectives_.allreduce(comm, send.data(), result.data(), count, c.type, c.op);
            expect_equal(result, reference_reduce(c, comm, count, salt), "allreduce " + name);

            // Reduce_scatter_block: p blocks of count; rank m gets block m reduced.
            const std::size_t element = isvp::element_size(c.type);
            const auto whole = contribution(c.type, me_, count * static_cast<std::size_t>(p), salt + 1);
            std::vector<std::uint8_t> block(count * element, 0x33);
            collectives_.reduce_scatter_block(comm, whole.data(), block.data(), count, c.type, c.op);
            const auto reference = reference_reduce(c, comm, count * static_cast<std::size_t>(p), salt + 1);
            const std::vector<std::uint8_t> expected(
                reference.begin() + static_cast<std::ptrdiff_t>(m * count * element),
                reference.begin() + static_cast<std::ptrdiff_t>((m + 1) * count * element));
            expect_equal(block, expected, "reduce_scatter_block " + name);

            // Reduce_scatter with unequal counts (some zero): rank m gets
            // block m of the concatenation, reduced.
            std::vector<std::size_t> counts;
            std::size_t before = 0, total = 0;
            for (int r = 0; r < p; ++r) {
                counts.push_back((static_cast<std::size_t>(r) * 7 + count) % (count + 3));
                if (r < m) before += counts.back();
                total += counts.back();
            }
            const auto uneven = contribution(c.type, me_, total, salt + 2);
            std::vector<std::uint8_t> part(counts[static_cast<std::size_t>(m)] * element, 0x44);
            collectives_.reduce_scatter(comm, uneven.data(), part.data(), counts, c.type, c.op);
            const auto uneven_reference = reference_reduce(c, comm, total, salt + 2);
            expect_equal(part,
                         std::vector<std::uint8_t>(
                             uneven_reference.begin() + static_cast<std::ptrdiff_t>(before * element),
                             uneven_reference.begin() + static_cast<std::ptrdiff_t>((before + part.size() / element) * element)),
                         "reduce_scatter (unequal counts) " + name);
        }
        collectives_.barrier(comm);
        expect(true, "barrier " + where);
    }

  private:
    Collectives& collectives_;
    int me_;
    std::uint64_t failures_ = 0;
    std::uint64_t checks_ = 0;
};

/// Element i of rank `rank`'s contribution for (op, type): values whose
/// reduction is exact in any order (small integers; +-1, 2, 0.5 for a float
/// product; ties for MINLOC/MAXLOC), so a rank-order reference is exact.
std::vector<std::uint8_t> op_contribution(Operation op, Datatype type, int rank, std::size_t count,
                                          std::uint32_t salt) {
    const std::size_t size = isvp::element_size(type);
    std::vector<std::uint8_t> data(count * size);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t h = mix((static_cast<std::uint64_t>(salt) << 40) ^ (static_cast<std::uint64_t>(rank) << 28) ^ i);
        static const double kFactors[] = {1.0, -1.0, 2.0, 0.5};
        const double real = op == Operation::Prod ? kFactors[h % 4] : static_cast<double>(static_cast<int>(h % 201) - 100);
        std::uint8_t* at = data.data() + i * size;
        if (type == Datatype::Float64) {
            std::memcpy(at, &real, 8);
        } else if (type == Datatype::Float32) {
            const auto f = static_cast<float>(real);
            std::memcpy(at, &f, 4);
        } else if (type == Datatype::Float32Int32) {
            const FloatInt pair{static_cast<float>(h % 3), static_cast<std::int32_t>((h >> 8) % 5)};
            std::memcpy(at, &pair, 8);
        } else if (type == Datatype::Int32Int32) {
            const std::int32_t pair[2] = {static_cast<std::int32_t>(h % 3) - 1, static_cast<std::int32_t>((h >> 8) % 5)};
            std::memcpy(at, pair, 8);
        } else {
            const std::uint64_t bits = (op == Operation::Land || op == Operation::Lor || op == Operation::Lxor)
                                           ? (h % 3 == 0 ? 0 : h)  // logical: zero and non-zero
                                           : static_cast<std::uint64_t>(h) * 0x9E3779B97F4A7C15ull;
            std::memcpy(at, &bits, size);
        }
    }
    return data;
}

/// Every supported (op, datatype) pair through the reductions on `comm`.
void all_operations(Checker& check, Collectives& collectives, Communicator& comm, int me_global,
                    const std::string& label) {
    const int p = comm.size(), m = comm.rank;
    std::uint32_t salt = 77 + comm.id;
    for (int t = 0; t < isvp::kDatatypeCount; ++t)
        for (int o = 0; o < isvp::kOperationCount; ++o) {
            const auto type = static_cast<Datatype>(t);
            const auto op = static_cast<Operation>(o);
            if (!isvp::aglu_supports(op, type)) continue;
            ++salt;
            const std::string name = label + " " + std::string(isvp::to_string(op)) + " " +
                                     std::string(isvp::to_string(type)) + " (size " + std::to_string(p) + ")";
            const std::size_t element = isvp::element_size(type);
            // Reference: the members' contributions combined in comm-rank order.
            const auto reference = [&](std::size_t count, std::uint32_t s) {
                auto result = op_contribution(op, type, comm.members[0], count, s);
                for (int r = 1; r < p; ++r) {
                    const auto other = op_contribution(op, type, comm.members[static_cast<std::size_t>(r)], count, s);
                    isvp::guest::combine_elements(op, type, result.data(), other.data(), result.data(), result.size());
                }
                return result;
            };
            const std::size_t count = 13;
            const auto send = op_contribution(op, type, me_global, count, salt);
            std::vector<std::uint8_t> result(send.size(), 0x5C);
            collectives.allreduce(comm, send.data(), result.data(), count, type, op);
            check.expect_equal(result, reference(count, salt), "allreduce " + name);

            std::vector<std::uint8_t> reduced(m == p - 1 ? send.size() : 0, 0x5D);
            collectives.reduce(comm, send.data(), m == p - 1 ? reduced.data() : nullptr, count, type, op, p - 1);
            if (m == p - 1) check.expect_equal(reduced, reference(count, salt), "reduce " + name);

            const std::size_t block = 3;
            const auto whole = op_contribution(op, type, me_global, block * static_cast<std::size_t>(p), salt + 1);
            const auto all = reference(block * static_cast<std::size_t>(p), salt + 1);
            std::vector<std::uint8_t> mine(block * element, 0x5E);
            collectives.reduce_scatter_block(comm, whole.data(), mine.data(), block, type, op);
            check.expect_equal(mine,
                               std::vector<std::uint8_t>(all.begin() + static_cast<std::ptrdiff_t>(m * block * element),
                                                         all.begin() + static_cast<std::ptrdiff_t>((m + 1) * block * element)),
                               "reduce_scatter_block " + name);

            std::vector<std::size_t> counts;
            std::size_t before = 0, total = 0;
            for (int r = 0; r < p; ++r) {
                counts.push_back(static_cast<std::size_t>((r * 5 + t) % 4));
                if (r < m) before += counts.back();
                total += counts.back();
            }
            const auto uneven = op_contribution(op, type, me_global, total, salt + 2);
            const auto uneven_all = reference(total, salt + 2);
            std::vector<std::uint8_t> part(counts[static_cast<std::size_t>(m)] * element, 0x5F);
            collectives.reduce_scatter(comm, uneven.data(), part.data(), counts, type, op);
            check.expect_equal(part,
                               std::vector<std::uint8_t>(
                                   uneven_all.begin() + static_cast<std::ptrdiff_t>(before * element),
                                   uneven_all.begin() + static_cast<std::ptrdiff_t>(before * element + part.size())),
                               "reduce_scatter " + name);
        }
}

template <typename Body>
void expect_error(Checker& check, const std::string& expected_text, Body body) {
    try {
        body();
        check.expect(false, "no error, expected one naming '" + expected_text + "'");
    } catch (const DriverError& error) {
        check.expect(std::string(error.what()).find(expected_text) != std::string::npos,
                     "error '" + std::string(error.what()) + "' does not name '" + expected_text + "'");
    }
}

std::uint64_t digest(const std::vector<std::uint8_t>& bytes) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const std::uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
    return h;
}

bool run(const std::string& scenario, bool offload, isvp::guest::DeviceTransport& transport) {
    isvp::guest::DriverConfig config;
    config.offload = offload;
    Driver driver(transport, config);
    Collectives collectives(driver, offload);
    Checker check(collectives, driver.rank());
    Communicator& world = collectives.world();
    const int me = world.rank, size = world.size();
    const bool engine = driver.accelerator().present;
    check.expect(world.offloadable == (offload && engine),
                 "world is offloadable exactly when offload is on and the "
                 "platform has a collective engine");

    if (scenario == "world") {
        for (const std::size_t count : {0u, 1u, 7u, 1023u, 1024u}) check.all_collectives(world, count, "world");
    } else if (scenario == "split") {
        struct Split {
            const char* label;
            int colour;
            int key;
        };
        const Split splits[] = {
            {"halves", me < size / 2 ? 0 : 1, me},    {"rank mod 3", me % 3, me}, {"reversed keys", 0, -me},
            {"all but rank 0", me == 0 ? -1 : 7, me}, {"singletons", me, 0},
        };
        for (const Split& s : splits) {
            auto comm = collectives.split(world, s.colour, s.key);
            if (!comm) {
                check.expect(s.colour < 0, std::string(s.label) + ": no communicator for a non-negative colour");
                continue;
            }
            if (std::string(s.label) == "reversed keys")
                check.expect(comm->rank == size - 1 - me && comm->members.front() == size - 1,
                             "reversed keys: comm rank " + std::to_string(comm->rank));
            for (const std::size_t count : {0u, 1u, 7u, 1024u}) check.all_collectives(*comm, count, s.label);
            collectives.free(*comm);
        }
    } else if (scenario == "large") {
        const std::size_t count = (1u << 20) / 4;  // 1 MiB of int32
        const Case& sum = kCases[0];
        const auto send = contribution(Datatype::Int32, me, count, 9);
        std::vector<std::uint8_t> result(send.size());
        collectives.allreduce(world, send.data(), result.data(), count, Datatype::Int32, Operation::Sum);
        check.expect_equal(result, reference_reduce(sum, world, count, 9), "allreduce 1 MiB");
        auto buffer =
            me == size - 1 ? contribution(Datatype::Int32, me, count, 10) : std::vector<std::uint8_t>(count * 4);
        collectives.bcast(world, buffer.data(), count, Datatype::Int32, size - 1);
        check.expect_equal(buffer, contribution(Datatype::Int32, size - 1, count, 10), "bcast 1 MiB");
        const std::size_t block = count / static_cast<std::size_t>(size);
        const auto whole = contribution(Datatype::Int32, me, block * static_cast<std::size_t>(size), 11);
        std::vector<std::uint8_t> mine(block * 4);
        collectives.reduce_scatter_block(world, whole.data(), mine.data(), block, Datatype::Int32, Operation::Sum);
        const auto reference = reference_reduce(sum, world, block * static_cast<std::size_t>(size), 11);
        check.expect_equal(
            mine,
            std::vector<std::uint8_t>(reference.begin() + static_cast<std::ptrdiff_t>(me * block * 4),
                                      reference.begin() + static_cast<std::ptrdiff_t>((me + 1) * block * 4)),
            "reduce_scatter_block 1 MiB");
        std::vector<std::uint8_t> gathered(block * 4 * static_cast<std::size_t>(size));
        const auto own = contribution(Datatype::Int32, me, block, 12);
        collectives.allgather(world, own.data(), gathered.data(), block, Datatype::Int32);
        for (int r = 0; r < size; ++r) {
            const auto expected = contribution(Datatype::Int32, r, block, 12);
            check.expect(std::memcmp(gathered.data() + static_cast<std::size_t>(r) * block * 4, expected.data(),
                                     expected.size()) == 0,
                         "allgather 1 MiB block " + std::to_string(r));
        }
    } else if (scenario == "determinism") {
        // Non-exact float64 values: the result depends on the association,
        // which the schedule fixes, so every rank gets the same bits.
        const std::size_t count = 4099;
        std::vector<double> values(count);
        for (std::size_t i = 0; i < count; ++i)
            values[i] = std::ldexp(static_cast<double>(mix(me * 7919u + i)), -static_cast<int>(i % 60)) / 3.0;
        std::vector<double> sum(count);
        collectives.allreduce(world, values.data(), sum.data(), count, Datatype::Float64, Operation::Sum);
        std::vector<std::uint8_t> bytes(count * 8);
        std::memcpy(bytes.data(), sum.data(), bytes.size());
        const std::uint64_t mine = digest(bytes);
        std::vector<std::uint64_t> all(static_cast<std::size_t>(size));
        collectives.allgather(world, &mine, all.data(), 1, Datatype::UInt64);
        for (int r = 0; r < size; ++r)
            check.expect(all[static_cast<std::size_t>(r)] == mine,
                         "float64 SUM differs between rank " + std::to_string(me) + " and rank " + std::to_string(r));
        // The same on a communicator in reversed comm-rank order (every rank
        // agrees; for a power-of-two size the mirrored tree gives the same bits).
        auto reversed = collectives.split(world, 0, -me);
        collectives.allreduce(*reversed, values.data(), sum.data(), count, Datatype::Float64, Operation::Sum);
        std::memcpy(bytes.data(), sum.data(), bytes.size());
        const std::uint64_t reversed_digest = digest(bytes);
        collectives.allgather(*reversed, &reversed_digest, all.data(), 1, Datatype::UInt64);
        for (int r = 0; r < size; ++r)
            check.expect(all[static_cast<std::size_t>(r)] == reversed_digest, "reversed float64 SUM differs");
        std::ostringstream line;
        line << "coll determinism rank " << me << " digest " << std::hex << mine << " reversed " << reversed_digest;
        std::cout << line.str() << "\n";
    } else if (scenario == "contexts") {
        // World holds context 0; dups take 1..31, then software-only IDs.
        std::vector<Communicator> dups;
        for (int i = 0; i < 40; ++i) {
            dups.push_back(collectives.dup(world));
            const Communicator& comm = dups.back();
            check.expect(comm.id == static_cast<unsigned>(i + 1),
                         "dup " + std::to_string(i) + " got ID " + std::to_string(comm.id));
            check.expect(comm.context_id() == (i + 1 < 32 ? i + 1 : -1), "dup " + std::to_string(i) + " context ID");
            check.expect(comm.offloadable == (world.offloadable && comm.id < driver.accelerator().ct_rows) &&
                             comm.size() == size && comm.rank == me,
                         "dup " + std::to_string(i) + " shape");
        }
        for (auto* comm : {&dups[0], &dups[30], &dups[31], &dups[39]}) {
            std::int32_t value = me + 1, total = 0;
            collectives.allreduce(*comm, &value, &total, 1, Datatype::Int32, Operation::Sum);
            check.expect(total == size * (size + 1) / 2, "allreduce on ID " + std::to_string(comm->id));
        }
        collectives.free(dups[4]);  // ID 5 free again on every rank
        auto again = collectives.dup(world);
        check.expect(again.id == 5, "freed ID 5 is reused, got " + std::to_string(again.id));
        // A split after a free: ranks agree on the lowest ID free on all of them.
        auto half = collectives.split(dups[1], me % 2, me);
        check.expect(half && half->id == 41, "split after 41 IDs takes 41, got " + std::to_string(half ? half->id : 0));
        collectives.free(*half);
        collectives.free(again);
        for (auto& comm : dups)
            if (!comm.members.empty()) collectives.free(comm);
        auto fresh = collectives.dup(world);
        check.expect(fresh.id == 1 && fresh.context_id() == 1, "after freeing all, dup gets context 1");
        check.all_collectives(fresh, 3, "dup");
        expect_error(check, "freed", [&] { collectives.free(dups[0]); });
        expect_error(check, "world", [&] { collectives.free(world); });
    } else if (scenario == "errors") {
        std::int32_t x[4] = {};
        expect_error(check, "root 4 outside the communicator",
                     [&] { collectives.bcast(world, x, 1, Datatype::Int32, size); });
        expect_error(check, "root -1",
                     [&] { collectives.reduce(world, x, x, 1, Datatype::Int32, Operation::Sum, -1); });
        expect_error(check, "send buffer is null with count 3",
                     [&] { collectives.allreduce(world, nullptr, x, 3, Datatype::Int32, Operation::Sum); });
        expect_error(check, "receive buffer is null with count 1",
                     [&] { collectives.allgather(world, x, nullptr, 1, Datatype::Int32); });
        expect_error(check, "BXOR is not defined on datatype float64",
                     [&] { collectives.allreduce(world, x, x, 1, Datatype::Float64, Operation::Bxor); });
        expect_error(check, "MINLOC is not defined on datatype int32",
                     [&] { collectives.reduce_scatter_block(world, x, x, 1, Datatype::Int32, Operation::Minloc); });
        expect_error(check, "count 4294967296 exceeds",
                     [&] { collectives.allreduce(world, x, x, std::size_t{1} << 32, Datatype::Int8, Operation::Sum); });
        expect_error(check, "count 100000000 exceeds",
                     [&] { collectives.allgather(world, x, x, 100000000, Datatype::Int32); });
        expect_error(check, "tags >= 0x80000000 are reserved", [&] { driver.send(0, 0x80000001u, x, 4); });
        // Nothing above reached the network: collectives still line up.
        std::int32_t total = 0, one = 1;
        collectives.allreduce(world, &one, &total, 1, Datatype::Int32, Operation::Sum);
        check.expect(total == size, "allreduce after rejected calls");
    } else if (scenario == "ops") {
        all_operations(check, collectives, world, me, "world");
        auto odd = collectives.split(world, me == 0 ? -1 : 0, me);  // everyone but rank 0
        if (odd) {
            all_operations(check, collectives, *odd, me, "all but rank 0");
            collectives.free(*odd);
        }
    } else if (scenario == "mismatch") {
        if (!world.offloadable) {
            if (me == 0) std::cout << "coll mismatch: skipped (needs the collective engine)\n";
            return true;
        }
        // One rank's argument differs; the switch's argument agreement reports
        // it to every member (DriverError, error code 3 naming the argument).
        const auto timed_error = [&](const std::string& what, const std::string& named, auto body) {
            const std::uint64_t before = transport.now_ps();
            try {
                body();
                check.expect(false, what + ": no error");
            } catch (const DriverError& error) {
                const std::string text = error.what();
                check.expect(text.find("error code 3 (arguments disagree across ranks: ") != std::string::npos &&
                                 text.find(named) != std::string::npos,
                             what + ": error '" + text + "' does not say the arguments disagree in " + named);
            }
            const std::uint64_t elapsed = transport.now_ps() - before;
            check.expect(elapsed < 1000000000ull, what + ": error after " + std::to_string(elapsed) + " ps (> 1 ms)");
            if (me == 0) std::cout << "coll mismatch " << what << ": error after " << elapsed / 1e6 << " us\n";
        };
        const auto works = [&](Communicator& comm, std::size_t count, const std::string& what) {
            const auto send = contribution(Datatype::Int32, me, count, 21);
            std::vector<std::uint8_t> result(send.size());
            collectives.allreduce(comm, send.data(), result.data(), count, Datatype::Int32, Operation::Sum);
            check.expect_equal(result, reference_reduce(kCases[0], comm, count, 21), what);
        };
        std::vector<std::int64_t> x(1 << 18, 1), y(1 << 18);
        const int odd = size - 1;
        timed_error("count", "count", [&] {
            collectives.allreduce(world, x.data(), y.data(), me == 1 % size ? 5 : 4, Datatype::Int32, Operation::Sum);
        });
        works(world, 100, "allreduce after a count mismatch");
        timed_error("root", "root", [&] {
            collectives.bcast(world, x.data(), 16, Datatype::Int32, me == odd ? size / 2 : 0);
        });
        timed_error("operation", "operation", [&] {
            collectives.allreduce(world, x.data(), y.data(), 8, Datatype::Int32, me == 0 ? Operation::Max : Operation::Sum);
        });
        timed_error("datatype", "datatype", [&] {
            collectives.reduce(world, x.data(), y.data(), 8, me == odd ? Datatype::Int64 : Datatype::Int32,
                               Operation::Sum, 0);
        });
        timed_error("collective", "collective", [&] {
            if (me == 0)
                collectives.barrier(world);
            else
                collectives.allreduce(world, x.data(), y.data(), 2, Datatype::Int32, Operation::Sum);
        });
        works(world, 1, "allreduce after four mismatches");
        // A long (streamed) gather whose count differs at one rank: packets in
        // flight when the members learn it are discarded; then 1 MiB works.
        timed_error("1 MiB gather count", "count", [&] {
            collectives.gather(world, x.data(), y.data(), me == odd ? 1000 : 1001, Datatype::Int64, 0);
        });
        timed_error("2 MiB allreduce count", "count", [&] {
            collectives.allreduce(world, x.data(), y.data(), me == 0 ? (1 << 18) - 1 : 1 << 18, Datatype::Int64,
                                  Operation::Sum);
        });
        works(world, 1 << 18, "1 MiB allreduce after a streamed mismatch");
        // The same on a split communicator (odd size when the world is even).
        auto part = collectives.split(world, me == 0 ? -1 : 1, -me);
        if (part) {
            timed_error("split count", "count", [&] {
                collectives.allreduce(*part, x.data(), y.data(), part->rank == 0 ? 3 : 2, Datatype::Int32,
                                      Operation::Sum);
            });
            works(*part, 77, "allreduce on the split after a mismatch");
            collectives.free(*part);
        }
    } else {
        std::cout << "coll: unknown scenario '" << scenario << "'\n";
        return false;
    }
    if (!world.offloadable)
        check.expect(collectives.offloaded_calls() == 0, "nothing offloaded without offload or engine");
    else if (scenario != "errors")
        check.expect(collectives.offloaded_calls() > 0, "collectives offloaded to the engine");
    if (!check.ok()) return false;
    if (me == 0)
        std::cout << "coll " << scenario << " rank 0: " << check.checks() << " checks, " << collectives.software_calls()
                  << " software and " << collectives.offloaded_calls() << " offloaded collectives\n";
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string scenario = argc > 1 ? argv[1] : "world";
    const std::string mode = argc > 2 ? argv[2] : "auto";
    if (mode != "auto" && mode != "software") {
        std::cout << "coll: unknown mode '" << mode << "' (auto or software)\n";
        return 2;
    }
    const bool offload = mode == "auto";
    try {
        auto transport = isvp::guest::RemoteTransport::from_environment();
        const bool ok = run(scenario, offload, *transport);
        std::cout << "coll " << scenario << (ok ? " ok " : " FAILED ") << transport->now_ps() << "\n";
        transport->finish(ok ? 0 : 1);
        return ok ? 0 : 1;
    } catch (const std::exception& error) {
        std::cout << "coll " << scenario << " error: " << error.what() << "\n";
        return 2;
    }
}
