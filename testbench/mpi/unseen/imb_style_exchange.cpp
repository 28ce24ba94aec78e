// Written in the style of the Intel MPI Benchmarks' "Exchange" and
// "Sendrecv" kernels (not a copy), as C++: a periodic chain where every
// process exchanges messages with both neighbours through MPI_Isend /
// MPI_Irecv / MPI_Waitall and MPI_Sendrecv, over a sub-communicator from
// MPI_Comm_split; times reduced with MPI_Allreduce(MAX) and gathered with
// MPI_Gather; payloads checked. Part of the "unseen program" check.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct Result {
    int bytes;
    double t_max_us;
};

double exchange(MPI_Comm comm, int bytes, int repetitions, int& errors) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    std::vector<char> send(static_cast<std::size_t>(bytes) * 2 + 1, static_cast<char>('A' + rank % 26));
    std::vector<char> receive(static_cast<std::size_t>(bytes) * 2 + 1, 0);
    MPI_Request requests[4];
    MPI_Barrier(comm);
    const double start = MPI_Wtime();
    for (int i = 0; i < repetitions; ++i) {
        MPI_Isend(send.data(), bytes, MPI_BYTE, left, 1, comm, &requests[0]);
        MPI_Isend(send.data() + bytes, bytes, MPI_BYTE, right, 1, comm, &requests[1]);
        MPI_Irecv(receive.data(), bytes, MPI_BYTE, left, MPI_ANY_TAG, comm, &requests[2]);
        MPI_Irecv(receive.data() + bytes, bytes, MPI_BYTE, right, MPI_ANY_TAG, comm, &requests[3]);
        MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    }
    const double elapsed = (MPI_Wtime() - start) / repetitions;
    if (bytes > 0 && (receive[0] != 'A' + left % 26 || receive[static_cast<std::size_t>(bytes)] != 'A' + right % 26))
        ++errors;
    // And the Sendrecv kernel: a shift to the right.
    MPI_Status status;
    MPI_Sendrecv(send.data(), bytes, MPI_BYTE, right, 2, receive.data(), bytes, MPI_BYTE, left, 2, comm, &status);
    int count = -1;
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (count != bytes || status.MPI_SOURCE != left) ++errors;
    return elapsed;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int world_rank, world_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    // Like IMB's "-multi": the benchmark runs on the first half and the whole.
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < (world_size + 1) / 2 ? 0 : MPI_UNDEFINED, world_rank, &half);

    int errors = 0;
    std::vector<Result> results;
    for (MPI_Comm comm : {half, MPI_COMM_WORLD}) {
        if (comm == MPI_COMM_NULL) continue;
        for (int bytes = 0; bytes <= 4096; bytes = bytes ? bytes * 4 : 1) {
            const double t = exchange(comm, bytes, 10, errors);
            double t_max = 0;
            MPI_Allreduce(&t, &t_max, 1, MPI_DOUBLE, MPI_MAX, comm);
            results.push_back({bytes, t_max * 1e6});
        }
    }
    if (half != MPI_COMM_NULL) MPI_Comm_free(&half);

    std::vector<int> all_errors(static_cast<std::size_t>(world_size));
    MPI_Gather(&errors, 1, MPI_INT, all_errors.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        std::printf("#bytes  t_max[usec]\n");
        for (const Result& r : results) std::printf("%6d  %10.2f\n", r.bytes, r.t_max_us);
        const int total = std::count_if(all_errors.begin(), all_errors.end(), [](int e) { return e != 0; });
        std::printf(total == 0 ? "exchange ok\n" : "exchange FAILED on %d ranks\n", total);
        if (total != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return EXIT_SUCCESS;
}
