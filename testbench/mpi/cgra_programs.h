/* CGRA programs shared by the fused-collective test programs (isvp_fused.h,
 * instruction format in docs/FUSED.md). */
#ifndef ISVP_CGRA_PROGRAMS_H
#define ISVP_CGRA_PROGRAMS_H

#include <stdint.h>

#include "isvp_fused.h"
#include "mpi_check.h"

/* A program's header word: element type, lanes, instruction count. */
static inline uint32_t cgra_head(unsigned type, unsigned lanes, unsigned n) {
    return 0xC6u << 24 | 1u << 20 | type << 16 | lanes << 8 | n;
}

/* NAS IS's op on int32, 4 lanes: MUL 3, ADD rank, PREFIX_SUM. */
static inline MPIX_Cgra_program cgra_is_program(void) {
    const uint32_t words[] = {cgra_head(0, 4, 3), 3, 3, 0, 1 | 1u << 8, 0, 0, 6, 0, 0};
    MPIX_Cgra_program p = MPIX_CGRA_PROGRAM_NULL;
    CHECK_INT(MPIX_Cgra_program_create(words, 10, &p), MPI_SUCCESS);
    return p;
}

#endif
