// Datatype attributes (MPI 3.1 §6.7): what datatypes.cpp calls when a type
// is duplicated or freed. Private to libisvp_mpi.
#pragma once

#include "mpi_impl.h"

namespace isvp::mpi {

/// Gives `to` the attributes of `from` that their keys' copy functions
/// copy (MPI_Type_dup). Throws Error when a copy function fails.
void copy_type_attributes(const Type& from, Type& to);

/// Deletes every attribute of `type`, calling the delete functions
/// (MPI_Type_free). Throws Error when one fails; the rest stay.
void delete_type_attributes(Type& type);

}  // namespace isvp::mpi
