/* One 8-byte MPI_Send from rank 0 to rank 1: the program whose PCIe
 * transaction log (--set trace.pcie=FILE) docs/PCIE_LOG.md shows and
 * testbench/scripts/pcie_log_checks.py checks. The payload is the ASCII
 * text "isvp-log" (69 73 76 70 2d 6c 6f 67), so the data DMAs of the send
 * can be found in the log by their bytes.
 *
 * Run: isvp run -n 2 --set topology.torus=2x1x1 --set trace.pcie=send.log -- pcie_log_send
 */
#include <string.h>

#include "mpi_check.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = -1, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(size, 2);
    char message[8];
    if (rank == 0) {
        memcpy(message, "isvp-log", 8);
        MPI_Send(message, 8, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
    } else {
        MPI_Recv(message, 8, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(memcmp(message, "isvp-log", 8) == 0);
    }
    MPI_Finalize();
    return mpi_check_done("pcie_log_send", rank);
}
