/* A software collective whose internal message is longer than one packet
 * carries (512 MiB - 17 bytes of data): MPI_Bcast and MPI_Ibcast of BYTES
 * from the last rank. On 2 ranks the binomial tree sends the whole buffer
 * as one message, which goes in pieces (sw/mpi send_internal); before, the
 * root's driver refused it ("driver: message of ... bytes exceeds the
 * ...-byte limit", MPI_ERR_OTHER) and the other rank waited for ever.
 *
 *   coll_long_messages BYTES   both calls, every byte checked */
#include <stdint.h>
#include <stdlib.h>

#include "mpi_check.h"

static int rank, size;

static unsigned char pattern(size_t i, int call) {
    return (unsigned char)(i * 7 + (size_t)call * 13 + (i >> 9));
}

static void bcast(size_t bytes, int nonblocking) {
    const int root = size - 1;
    unsigned char* buffer = malloc(bytes);
    CHECK(buffer != NULL);
    for (size_t i = 0; i < bytes; ++i) buffer[i] = rank == root ? pattern(i, nonblocking) : 0;
    if (nonblocking) {
        MPI_Request request;
        CHECK_INT(MPI_Ibcast(buffer, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD, &request), MPI_SUCCESS);
        CHECK_INT(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
    } else {
        CHECK_INT(MPI_Bcast(buffer, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD), MPI_SUCCESS);
    }
    size_t wrong = 0;
    for (size_t i = 0; i < bytes; ++i) wrong += buffer[i] != pattern(i, nonblocking);
    CHECK_INT(wrong, 0);
    free(buffer);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const size_t bytes = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 0;
    CHECK(bytes > 0 && bytes <= INT32_MAX);
    bcast(bytes, 0);
    bcast(bytes, 1);
    const int status = mpi_check_done("coll_long_messages", rank);
    MPI_Finalize();
    return status;
}
