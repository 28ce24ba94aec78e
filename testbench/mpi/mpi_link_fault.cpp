// Link faults under MPI (docs/MPI.md "Link faults", models/reliable/README.md):
// run under Aurora bit errors with the reliable-delivery layer giving up
// quickly, so that packets are lost for good. Each iteration runs an
// MPI_Allreduce (in the switch when offloaded) and a ring exchange
// (MPI_Sendrecv: to the right neighbour, from the left one).
//
//   mpi_link_fault return [ITERATIONS]
//       MPI_ERRORS_RETURN: a failed call must return MPI_ERR_OTHER and its
//       error string must name the link fault; a call that succeeds must
//       give the right result. The program goes on after each failure and
//       ends normally; each rank prints what failed and a summary line
//       "mpi_link_fault: rank R: N iterations, F failed".
//   mpi_link_fault fatal [ITERATIONS]
//       MPI_ERRORS_ARE_FATAL (the default): the first failed call ends the
//       job with its link-fault message.
//   mpi_link_fault return|fatal ITERATIONS collectives|nonblocking|persistent
//       the same with the MPI_Allreduce calls only (no ring exchange); with
//       `nonblocking` each is an MPI_Iallreduce and MPI_Wait; with
//       `persistent` each is an MPI_Start and MPI_Wait of one
//       MPI_Allreduce_init request, and once a start has failed on a rank
//       every later start there must fail too (the request is broken:
//       docs/MPI.md, Link faults); `offloaded-persistent` the same request
//       in the switch (--offload on), where each start is a fresh switch
//       run: a failed start does not break the request, later starts must
//       give the right result.
//   mpi_link_fault return ITERATIONS persistent-mixed
//       the same rule for three other persistent requests started in turn
//       each iteration: MPI_Bcast_init (root 0), MPI_Alltoall_init and
//       MPI_Reduce_scatter_block_init; each breaks on its own (an iteration
//       with any failed start counts as one failed call).
//   mpi_link_fault return ITERATIONS communicators
//       the MPI_Allreduce calls only, each on a fresh MPI_Comm_dup of the
//       world freed after it (with collective.placement=switch every
//       iteration joins, configures and leaves a tree: setup packets are
//       lost too); a failed dup or free counts as a failed MPI_Allreduce.
//       A dup that fails on one member but succeeded on others must not
//       leave those waiting for ever in their MPI_Allreduce on it: they
//       find it revoked (docs/MPI.md, Link faults).
//   mpi_link_fault return ITERATIONS nonblocking-communicators
//       the same with MPI_Iallreduce and MPI_Wait on the new communicator.
//   mpi_link_fault return ITERATIONS split-communicators
//       the same with MPI_Comm_split of the world by rank parity (two
//       exchanges create it: the colours' allgather and the ID agreement).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kElements = 4096;  // 16 KiB per call: several packets each

int rank = 0;
int size = 0;

/// A failed call: its class must be MPI_ERR_OTHER and its string name the link fault.
/// `also`: not the iteration's first failure (printed so that the checks
/// do not count it as another failed call).
bool failure_ok(const char* call, int iteration, int rc, bool also = false) {
    int error_class = -1;
    MPI_Error_class(rc, &error_class);
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    std::printf("mpi_link_fault: rank %d: iteration %d: %s%s failed: %s\n", rank, iteration, also ? "also " : "",
                call, text);
    if (error_class != MPI_ERR_OTHER) {
        std::printf("FAIL: rank %d: %s returned error class %d, expected MPI_ERR_OTHER (%d)\n", rank, call, error_class,
                    MPI_ERR_OTHER);
        return false;
    }
    if (std::strstr(text, "link fault") == nullptr) {
        std::printf("FAIL: rank %d: %s's error string does not name the link fault\n", rank, call);
        return false;
    }
    return true;
}

/// persistent-mixed: MPI_Bcast_init (root 0), MPI_Alltoall_init and
/// MPI_Reduce_scatter_block_init over the world, each started and waited
/// for in turn every iteration and checked; once a start of one has failed,
/// every later start of that one must fail too (its request is broken).
struct MixedRequests {
    static constexpr int kCount = 3;
    const char* names[kCount] = {"MPI_Bcast_init", "MPI_Alltoall_init", "MPI_Reduce_scatter_block_init"};
    MPI_Request requests[kCount] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    bool broken[kCount] = {false, false, false};
    std::vector<int> bcast, to_all, from_all, contribution, block;
    int chunk = 0;

    void init() {
        chunk = kElements / size;
        bcast.resize(kElements);
        to_all.resize(static_cast<std::size_t>(chunk) * size);
        from_all.resize(to_all.size());
        contribution.resize(to_all.size());
        block.resize(static_cast<std::size_t>(chunk));
        MPI_Bcast_init(bcast.data(), kElements, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &requests[0]);
        MPI_Alltoall_init(to_all.data(), chunk, MPI_INT, from_all.data(), chunk, MPI_INT, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &requests[1]);
        MPI_Reduce_scatter_block_init(contribution.data(), block.data(), chunk, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                      MPI_INFO_NULL, &requests[2]);
    }

    /// Element k of what `request` must give rank `rank` in iteration `i`.
    int expected(int request, int i, int k) const {
        if (request == 0) return i * 7 + k;
        if (request == 1) return (k / chunk) * 100000 + rank * 1000 + i * 7 + k % chunk;
        return 1000 * size * (size - 1) / 2 + size * (i * 7 + rank * chunk + k);
    }

    /// Runs the three, printing and checking each failure; the first failure's code, or MPI_SUCCESS.
    int run(int i, bool& ok) {
        for (int k = 0; k < kElements; ++k) bcast[k] = rank == 0 ? i * 7 + k : -1;
        for (int j = 0; j < size; ++j)
            for (int k = 0; k < chunk; ++k) to_all[j * chunk + k] = rank * 100000 + j * 1000 + i * 7 + k;
        for (std::size_t k = 0; k < contribution.size(); ++k) contribution[k] = rank * 1000 + i * 7 + int(k);
        int first = MPI_SUCCESS;
        for (int r = 0; r < kCount; ++r) {
            int rc = MPI_Start(&requests[r]);
            if (rc == MPI_SUCCESS) rc = MPI_Wait(&requests[r], MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS) {  // the iteration's later failures count with its first
                broken[r] = true;
                ok = failure_ok(names[r], i, rc, first != MPI_SUCCESS) && ok;
                if (first == MPI_SUCCESS) first = rc;
                continue;
            }
            if (broken[r]) {
                std::printf("FAIL: rank %d: iteration %d: a start of %s succeeded after a failed one\n", rank, i,
                            names[r]);
                ok = false;
            }
            const std::vector<int>& got = r == 0 ? bcast : r == 1 ? from_all : block;
            for (std::size_t k = 0; k < got.size(); ++k)
                if (got[k] != expected(r, i, int(k))) {
                    std::printf("FAIL: rank %d: iteration %d: %s element %zu is %d, expected %d\n", rank, i,
                                names[r], k, got[k], expected(r, i, int(k)));
                    ok = false;
                    break;
                }
        }
        return first;
    }

    void free() {
        for (MPI_Request& r : requests) MPI_Request_free(&r);
    }
};

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const bool fatal = argc > 1 && std::strcmp(argv[1], "fatal") == 0;
    if (argc < 2 || (!fatal && std::strcmp(argv[1], "return") != 0)) {
        if (rank == 0) std::fprintf(stderr, "usage: mpi_link_fault return|fatal [ITERATIONS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int iterations = argc > 2 ? std::atoi(argv[2]) : 20;
    const bool nonblocking = argc > 3 && std::strcmp(argv[3], "nonblocking") == 0;
    const bool offloaded_persistent = argc > 3 && std::strcmp(argv[3], "offloaded-persistent") == 0;
    const bool persistent_mixed = argc > 3 && std::strcmp(argv[3], "persistent-mixed") == 0;
    const bool persistent = offloaded_persistent || (argc > 3 && std::strcmp(argv[3], "persistent") == 0);
    const bool split_communicators = argc > 3 && std::strcmp(argv[3], "split-communicators") == 0;
    const bool nonblocking_communicators = argc > 3 && std::strcmp(argv[3], "nonblocking-communicators") == 0;
    const bool fresh_communicators = split_communicators || nonblocking_communicators ||
                                     (argc > 3 && std::strcmp(argv[3], "communicators") == 0);
    const bool ring = !(argc > 3 && (std::strcmp(argv[3], "collectives") == 0 || nonblocking || persistent ||
                                     persistent_mixed || fresh_communicators));
    if (!fatal) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    std::vector<int> mine(kElements), sum(kElements), from_left(kElements), to_right(kElements);
    int failed = 0, collective_failures = 0, p2p_failures = 0;
    bool ok = true;
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request started = MPI_REQUEST_NULL;
    if (persistent)
        MPI_Allreduce_init(mine.data(), sum.data(), kElements, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &started);
    MixedRequests mixed;
    if (persistent_mixed) mixed.init();
    for (int i = 0; i < iterations; ++i) {
        for (int k = 0; k < kElements; ++k) mine[k] = rank * 1000 + i * 7 + k;
        int rc = MPI_SUCCESS;
        if (persistent_mixed) {
            rc = mixed.run(i, ok);
        } else if (persistent) {
            rc = MPI_Start(&started);
            if (rc == MPI_SUCCESS) rc = MPI_Wait(&started, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS && collective_failures > 0 && !offloaded_persistent) {
                std::printf("FAIL: rank %d: iteration %d: a start succeeded after a failed one\n", rank, i);
                ok = false;
            }
        } else if (nonblocking) {
            MPI_Request request = MPI_REQUEST_NULL;
            rc = MPI_Iallreduce(mine.data(), sum.data(), kElements, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
            if (rc == MPI_SUCCESS) rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
        } else if (fresh_communicators) {
            MPI_Comm comm = MPI_COMM_NULL;
            rc = split_communicators ? MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comm)
                                     : MPI_Comm_dup(MPI_COMM_WORLD, &comm);
            if (rc == MPI_SUCCESS) {
                MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
                if (nonblocking_communicators) {
                    MPI_Request request = MPI_REQUEST_NULL;
                    rc = MPI_Iallreduce(mine.data(), sum.data(), kElements, MPI_INT, MPI_SUM, comm, &request);
                    if (rc == MPI_SUCCESS) rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
                } else {
                    rc = MPI_Allreduce(mine.data(), sum.data(), kElements, MPI_INT, MPI_SUM, comm);
                }
            }
            if (comm != MPI_COMM_NULL) {
                const int freed = MPI_Comm_free(&comm);
                if (rc == MPI_SUCCESS) rc = freed;
            }
        } else {
            rc = MPI_Allreduce(mine.data(), sum.data(), kElements, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
        if (rc != MPI_SUCCESS) {
            ++failed;
            ++collective_failures;
            if (!persistent_mixed)  // (printed as they failed)
                ok = failure_ok(persistent    ? "MPI_Allreduce_init"
                                : nonblocking ? "MPI_Iallreduce"
                                              : "MPI_Allreduce",
                                i, rc) &&
                     ok;
        } else if (!persistent_mixed) {
            // Every rank's contribution, or (split) those of its parity.
            int rank_sum = 0, members = 0;
            for (int r = 0; r < size; ++r)
                if (!split_communicators || r % 2 == rank % 2) {
                    rank_sum += r;
                    ++members;
                }
            for (int k = 0; k < kElements; ++k) {
                const int expected = 1000 * rank_sum + members * (i * 7 + k);
                if (sum[k] != expected) {
                    std::printf("FAIL: rank %d: iteration %d: MPI_Allreduce element %d is %d, expected %d\n", rank, i,
                                k, sum[k], expected);
                    ok = false;
                    break;
                }
            }
        }
        if (!ring) continue;
        for (int k = 0; k < kElements; ++k) to_right[k] = rank * 100000 + i * 10 + k;
        // The tag is the iteration: a message of an iteration whose receive
        // failed never matches a later one.
        rc = MPI_Sendrecv(to_right.data(), kElements, MPI_INT, right, i, from_left.data(), kElements, MPI_INT, left, i,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            ++failed;
            ++p2p_failures;
            ok = failure_ok("MPI_Sendrecv", i, rc) && ok;
        } else {
            for (int k = 0; k < kElements; ++k)
                if (from_left[k] != left * 100000 + i * 10 + k) {
                    std::printf("FAIL: rank %d: iteration %d: MPI_Sendrecv element %d is %d, expected %d\n", rank, i, k,
                                from_left[k], left * 100000 + i * 10 + k);
                    ok = false;
                    break;
                }
        }
    }
    if (persistent) MPI_Request_free(&started);
    if (persistent_mixed) mixed.free();
    std::printf("mpi_link_fault: rank %d: %d iterations, %d failed (%d MPI_Allreduce, %d MPI_Sendrecv)%s\n", rank,
                iterations, failed, collective_failures, p2p_failures, ok ? "" : " with FAIL");
    std::fflush(stdout);
    MPI_Finalize();
    return ok ? 0 : 1;
}
