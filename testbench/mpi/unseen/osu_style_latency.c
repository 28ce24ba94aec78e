/* Written in the style of the OSU micro-benchmarks' osu_latency.c (not a
 * copy): ping-pong latency between two processes, timed with MPI_Wtime,
 * warm-up iterations skipped, buffers from posix_memalign, output in the
 * OSU format. Part of the "unseen program" check: it must compile
 * unchanged with isvp-mpicc and run under `isvp run -n 2`. */
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MSG_SIZE (1 << 14)
#define FIELD_WIDTH 20
#define FLOAT_PRECISION 2
#define LOOP 20
#define SKIP 5

int main(int argc, char* argv[]) {
    int myid, numprocs, i, size;
    MPI_Status reqstat;
    char *s_buf, *r_buf;
    double t_start = 0.0, t_end = 0.0;
    int align_size = 64;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &numprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &myid);

    if (numprocs != 2) {
        if (myid == 0) fprintf(stderr, "This test requires exactly two processes\n");
        MPI_Finalize();
        return EXIT_FAILURE;
    }
    if (posix_memalign((void**)&s_buf, align_size, MAX_MSG_SIZE) != 0 ||
        posix_memalign((void**)&r_buf, align_size, MAX_MSG_SIZE) != 0) {
        fprintf(stderr, "Error allocating host memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (myid == 0) {
        fprintf(stdout, "# OSU-style MPI Latency Test\n");
        fprintf(stdout, "%-*s%*s\n", 10, "# Size", FIELD_WIDTH, "Latency (us)");
        fflush(stdout);
    }

    for (size = 0; size <= MAX_MSG_SIZE; size = (size ? size * 2 : 1)) {
        memset(s_buf, 'a', size);
        memset(r_buf, 'b', size);
        MPI_Barrier(MPI_COMM_WORLD);

        if (myid == 0) {
            for (i = 0; i < LOOP + SKIP; i++) {
                if (i == SKIP) t_start = MPI_Wtime();
                MPI_Send(s_buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(r_buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &reqstat);
            }
            t_end = MPI_Wtime();
        } else if (myid == 1) {
            for (i = 0; i < LOOP + SKIP; i++) {
                MPI_Recv(r_buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &reqstat);
                MPI_Send(s_buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }

        if (myid == 0) {
            double latency = (t_end - t_start) * 1e6 / (2.0 * LOOP);
            if (size > 0 && r_buf[size - 1] != 'a') {
                fprintf(stderr, "wrong data at size %d\n", size);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            if (!(latency > 0.0)) {
                fprintf(stderr, "latency %f is not positive\n", latency);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            fprintf(stdout, "%-*d%*.*f\n", 10, size, FIELD_WIDTH, FLOAT_PRECISION, latency);
            fflush(stdout);
        }
    }

    free(s_buf);
    free(r_buf);
    MPI_Finalize();
    return EXIT_SUCCESS;
}
