// What the blocking fused collectives (fused.cpp) and their nonblocking
// forms (fused_nonblocking.cpp) share: the program handle, the evaluator's
// threshold, the datatype check, the path the last call took.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "isvp/cgra.h"
#include "isvp_fused.h"
#include "mpi_impl.h"

struct MPIX_Cgra_program_s {
    std::vector<std::uint32_t> words;  ///< as the switch's CGRA loads them
    isvp::cgra::Program program;       ///< decoded, for the host's fallback
};

namespace isvp::mpi {

/// MPIX_Fused_last_offloaded(): 2 fully fused, 1 semi-fused, 0 fallback.
/// Each fused call assigns its path; `call` counts them, so that a
/// nonblocking FEM call that learns only at completion that its blocks ran
/// in software (path 1) corrects the value while it is still the last call.
struct LastOffloaded {
    int path = 0;
    std::uint64_t call = 0;  ///< fused calls so far (the one that set `path`)
    LastOffloaded& operator=(int taken) {
        path = taken;
        ++call;
        return *this;
    }
};
extern LastOffloaded last_offloaded;
/// ISVP_MPI_FUSED_THRESHOLD: the largest op array (bytes) offloaded; 16 KiB by default.
std::size_t fused_threshold();
/// The datatype, checked against the program's element type (MPI_ERR_TYPE)
/// and the program against NULL (MPI_ERR_ARG).
const Type& check_program_type(MPIX_Cgra_program program, MPI_Datatype datatype);

}  // namespace isvp::mpi
