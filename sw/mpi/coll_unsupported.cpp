// Collectives the isvp MPI shim does not implement (yet): none at the
// moment (the neighbourhood collectives are in coll_neighbor.cpp). They link, and
// every call reports MPI_ERR_UNSUPPORTED_OPERATION through the error
// handler (docs/MPI.md). Owned by the collectives' author (coll*.cpp):
// replace a stub by an implementation in another coll*.cpp file and delete
// it here.
#include "mpi_impl.h"

// Parameters are named as in mpi.h (documentation); the stubs use none.
#pragma GCC diagnostic ignored "-Wunused-parameter"

using isvp::mpi::entry;
using isvp::mpi::unsupported;

extern "C" {

}  // extern "C"

