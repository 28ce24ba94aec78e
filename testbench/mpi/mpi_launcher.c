/* The launcher's mpirun conventions (docs/MPI.md, "Using it"):
 *   args ARGS...  prints "rank R of N args: ARGS" (words after the program
 *                 name reach it without "--", options included)
 *   streams       one line on stdout and one on stderr per rank, then a long
 *                 stdout line written in many small pieces (never mixed with
 *                 another rank's line)
 *   early-exit    rank 0 returns 0 without MPI_Finalize while rank 1
 *                 computes: the job ends at once with status 1
 *   flood LINES   every rank writes LINES lines of 1 KiB at once, as fast
 *                 as it can ("rank R line K " then R's letter): under
 *                 partitions every line must still come out whole
 *   late-output   after MPI_Finalize rank 0 leaves a process in its own
 *                 session (outside the guest's process group, so the
 *                 launcher does not end it) that holds stdout and writes
 *                 "late line K" for K = 0..5 every 0.4 s: the launcher
 *                 reads until the pipe closes while output keeps coming
 *                 (2 s in all, more than the 1 s it waits when idle)
 * Run: isvp run -n N mpi_launcher MODE [ARGS...] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

static void write_all(int fd, const char* text, size_t length) {
    while (length > 0) {
        const ssize_t written = write(fd, text, length);
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "args") == 0) {
        printf("rank %d of %d args:", rank, size);
        for (int i = 2; i < argc; ++i) printf(" %s", argv[i]);
        printf("\n");
    } else if (strcmp(mode, "streams") == 0) {
        printf("stdout line from rank %d\n", rank);
        fflush(stdout);
        fprintf(stderr, "stderr line from rank %d\n", rank);
        char piece[64];
        memset(piece, 'a' + rank % 26, sizeof piece);
        MPI_Barrier(MPI_COMM_WORLD); /* every rank writes its long line at once */
        write_all(1, "long ", 5);
        for (int i = 0; i < 64; ++i) {
            write_all(1, piece, sizeof piece);
            const struct timespec pause = {0, 200000}; /* 0.2 ms */
            nanosleep(&pause, NULL);
        }
        write_all(1, "\n", 1);
    } else if (strcmp(mode, "flood") == 0) {
        const int lines = argc > 2 ? atoi(argv[2]) : 100;
        char line[1024];
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = 0; k < lines; ++k) {
            const int head = snprintf(line, sizeof line, "rank %d line %d ", rank, k);
            memset(line + head, 'a' + rank % 26, sizeof line - 1 - (size_t)head);
            line[sizeof line - 1] = '\n';
            write_all(1, line, sizeof line);
        }
    } else if (strcmp(mode, "late-output") == 0) {
        MPI_Finalize();
        if (rank == 0) {
            fflush(stdout);
            /* The child tells the parent when it has its own session: until
             * then it is in the rank's process group, which the launcher
             * ends when the rank exits (under load the child was sometimes
             * killed before its setsid, and the test saw no late line). */
            int in_session[2];
            if (pipe(in_session) != 0) return 1;
            const pid_t child = fork();
            if (child == 0) {
                setsid();
                close(in_session[0]);
                if (write(in_session[1], "s", 1) != 1) _exit(1);
                close(in_session[1]);
                for (int k = 0; k < 6; ++k) {
                    if (k > 0) {
                        const struct timespec pause = {0, 400000000}; /* 0.4 s */
                        nanosleep(&pause, NULL);
                    }
                    printf("late line %d\n", k);
                    fflush(stdout);
                }
                _exit(0);
            }
            close(in_session[1]);
            char done = 0;
            if (child < 0 || read(in_session[0], &done, 1) != 1) return 1;
            close(in_session[0]);
        }
        return 0;
    } else if (strcmp(mode, "early-exit") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) return 0; /* no MPI_Finalize */
        sleep(60);               /* computing: the launcher ends it */
    } else {
        fprintf(stderr, "mpi_launcher: unknown mode '%s'\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
