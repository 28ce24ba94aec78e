/* Written in the style of the OSU micro-benchmarks' osu_iallreduce.c (not a
 * copy): nonblocking allreduce latency and communication/computation
 * overlap. For each message size: the pure time of MPI_Iallreduce +
 * MPI_Wait, then the same with dummy computation between the call and the
 * wait, polled with MPI_Test as OSU does; results validated against the
 * expected sums (OSU's -c). Output in the OSU format. Part of the "unseen
 * program" check: it must compile unchanged with isvp-mpicc and run under
 * `isvp run`. */
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_MESSAGE_SIZE 4
#define MAX_MESSAGE_SIZE (1 << 14)
#define FIELD_WIDTH 18
#define FLOAT_PRECISION 2
#define ITERATIONS 10
#define SKIP 2

static double dummy_compute(double target_seconds, MPI_Request* request) {
    /* OSU spins for the pure communication time, testing the request now
     * and then so that the library can progress. */
    double t0 = MPI_Wtime(), acc = 0.0;
    int flag = 0, i = 0;
    while (MPI_Wtime() - t0 < target_seconds) {
        acc += 1.0 / (double)(++i);
        if (i % 64 == 0) MPI_Test(request, &flag, MPI_STATUS_IGNORE);
        if (i > 200000) break; /* simulated time may stand still while computing */
    }
    return acc;
}

int main(int argc, char* argv[]) {
    int rank, numprocs, size, i, errors = 0;
    float *sendbuf, *recvbuf;
    double latency, overall, compute, sink = 0.0;
    MPI_Request request;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &numprocs);
    if (numprocs < 2) {
        if (rank == 0) fprintf(stderr, "This test requires at least two processes\n");
        MPI_Finalize();
        return EXIT_FAILURE;
    }
    if (posix_memalign((void**)&sendbuf, 64, MAX_MESSAGE_SIZE) != 0 ||
        posix_memalign((void**)&recvbuf, 64, MAX_MESSAGE_SIZE) != 0) {
        fprintf(stderr, "Error allocating host memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        fprintf(stdout, "# OSU-style MPI Non-blocking Allreduce Latency Test\n");
        fprintf(stdout, "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait\n\n");
        fprintf(stdout, "%-*s%*s%*s%*s%*s\n", 10, "# Size", FIELD_WIDTH, "Overall(us)", FIELD_WIDTH, "Compute(us)",
                FIELD_WIDTH, "Pure Comm.(us)", FIELD_WIDTH, "Overlap(%)");
        fflush(stdout);
    }

    for (size = MIN_MESSAGE_SIZE; size <= MAX_MESSAGE_SIZE; size *= 4) {
        const int count = size / (int)sizeof(float);
        double t_start, t_total = 0.0, t_compute = 0.0, t_overall = 0.0;

        /* Pure communication time. */
        MPI_Barrier(MPI_COMM_WORLD);
        for (i = 0; i < ITERATIONS + SKIP; i++) {
            int j;
            for (j = 0; j < count; j++) sendbuf[j] = (float)(rank + j % 7);
            t_start = MPI_Wtime();
            MPI_Iallreduce(sendbuf, recvbuf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            if (i >= SKIP) t_total += MPI_Wtime() - t_start;
            for (j = 0; j < count; j++) {
                const float expected = (float)(numprocs * (numprocs - 1) / 2 + numprocs * (j % 7));
                if (recvbuf[j] != expected) errors++;
            }
        }
        latency = t_total / ITERATIONS;

        /* With computation overlapped. */
        MPI_Barrier(MPI_COMM_WORLD);
        for (i = 0; i < ITERATIONS + SKIP; i++) {
            double t_compute_start;
            t_start = MPI_Wtime();
            MPI_Iallreduce(sendbuf, recvbuf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request);
            t_compute_start = MPI_Wtime();
            sink += dummy_compute(latency, &request);
            if (i >= SKIP) t_compute += MPI_Wtime() - t_compute_start;
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            if (i >= SKIP) t_overall += MPI_Wtime() - t_start;
        }
        overall = t_overall / ITERATIONS;
        compute = t_compute / ITERATIONS;

        {
            double values[3] = {overall, compute, latency}, maxima[3];
            MPI_Reduce(values, maxima, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                double overlap = 0.0;
                if (maxima[2] > 0.0) overlap = 100.0 - (maxima[0] - maxima[1]) / maxima[2] * 100.0;
                if (overlap < 0.0) overlap = 0.0;
                fprintf(stdout, "%-*d%*.*f%*.*f%*.*f%*.*f\n", 10, size, FIELD_WIDTH, FLOAT_PRECISION, maxima[0] * 1e6,
                        FIELD_WIDTH, FLOAT_PRECISION, maxima[1] * 1e6, FIELD_WIDTH, FLOAT_PRECISION, maxima[2] * 1e6,
                        FIELD_WIDTH, FLOAT_PRECISION, overlap);
                fflush(stdout);
            }
        }
    }

    {
        int total_errors = 0;
        MPI_Allreduce(&errors, &total_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) fprintf(stdout, "# Validation: %s (%d errors)\n", total_errors ? "FAILED" : "passed", total_errors);
        errors = total_errors;
    }
    if (sink < 0.0) fprintf(stderr, "unreachable\n");
    free(sendbuf);
    free(recvbuf);
    MPI_Finalize();
    return errors ? EXIT_FAILURE : EXIT_SUCCESS;
}
