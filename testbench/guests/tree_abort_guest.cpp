// A guest program for `isvp run` with switch-resident engines
// (collective.placement=switch or collective.mode=sharp on a fat tree): one
// member's communicator-table row is RELEASEd under a running Allreduce of
// the switches' tree, and the abort must reach every member through the
// tree (docs/COLLECTIVES.md, "Aborts through the tree").
//
//   1. a dup of the world runs an Allreduce (its tree forms): exact;
//   2. every rank but the last posts the next Allreduce on it; rank 0 then
//      RELEASEs its row; the last rank posts it afterwards (after a
//      software barrier on the world): every rank's call ends with error 5
//      (rank 0's own, the others' from the notice that went round the tree);
//   3. the dup is freed and a new dup of the world runs an Allreduce: exact.
// Prints "tree_abort rank R: ..." lines and "tree_abort ok" or "tree_abort
// FAILED"; exit status 0 when every check passed.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "isvp/collectives.h"
#include "isvp/driver.h"
#include "isvp/remote_transport.h"

using isvp::Datatype;
using isvp::Opcode;
using isvp::Operation;
using isvp::guest::Collectives;
using isvp::guest::Communicator;
using isvp::guest::Driver;
using isvp::guest::DriverError;

namespace {

constexpr std::size_t kCount = 16;

/// An exact Allreduce (int32 SUM of rank * 100 + i + round) on `comm`.
bool exact_allreduce(Collectives& collectives, Communicator& comm, int round, int me) {
    std::vector<std::int32_t> in(kCount), out(kCount);
    for (std::size_t i = 0; i < kCount; ++i) in[i] = comm.global_rank(comm.rank) * 100 + static_cast<int>(i) + round;
    collectives.allreduce(comm, in.data(), out.data(), kCount, Datatype::Int32, Operation::Sum);
    for (std::size_t i = 0; i < kCount; ++i) {
        std::int64_t expected = 0;
        for (int m = 0; m < comm.size(); ++m) expected += comm.global_rank(m) * 100 + static_cast<int>(i) + round;
        if (out[i] != expected) {
            std::cout << "tree_abort rank " << me << ": allreduce round " << round << " element " << i << ": " << out[i]
                      << ", expected " << expected << "\n";
            return false;
        }
    }
    return true;
}

bool run(isvp::guest::DeviceTransport& transport) {
    isvp::guest::DriverConfig config;
    Driver driver(transport, config);
    Collectives collectives(driver, true);
    Communicator& world = collectives.world();
    const int me = world.rank, last = world.size() - 1;
    bool ok = true;
    Communicator dup = collectives.dup(world);
    if (!dup.offloadable) {
        std::cout << "tree_abort rank " << me << ": the dup is not offloaded\n";
        return false;
    }
    ok &= exact_allreduce(collectives, dup, 0, me);

    std::vector<std::int32_t> in(kCount, me), out(kCount);
    std::string error;
    const auto post_and_collect = [&] {
        try {
            const Collectives::Posted posted = collectives.post(dup, Opcode::Allreduce, Datatype::Int32, Operation::Sum,
                                                                kCount, 0, in.data(), out.data());
            if (me == 0) driver.release_ct_row(dup.id);  // under the running collective
            collectives.collect(posted, true);
        } catch (const DriverError& e) {
            error = e.what();
        }
    };
    if (me != last) post_and_collect();
    collectives.software_barrier(world);
    if (me == last) post_and_collect();
    std::cout << "tree_abort rank " << me << ": error: " << (error.empty() ? "(none)" : error) << "\n";
    if (error.find("error code 5") == std::string::npos) {
        std::cout << "tree_abort rank " << me << ": expected error code 5 (aborted)\n";
        ok = false;
    }

    collectives.free(dup);
    Communicator again = collectives.dup(world);
    ok &= exact_allreduce(collectives, again, 1, me);
    collectives.free(again);
    return ok;
}

}  // namespace

int main() {
    try {
        auto transport = isvp::guest::RemoteTransport::from_environment();
        const bool ok = run(*transport);
        std::cout << "tree_abort " << (ok ? "ok" : "FAILED") << "\n";
        transport->finish(ok ? 0 : 1);
        return ok ? 0 : 1;
    } catch (const std::exception& error) {
        std::cout << "tree_abort error: " << error.what() << "\n";
        return 2;
    }
}
