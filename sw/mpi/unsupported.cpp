// Functions a program may reference but the isvp MPI shim does not
// implement: they link, and every call reports
// MPI_ERR_UNSUPPORTED_OPERATION through the error handler (fatal by
// default, naming the function). The list is in docs/MPI.md:
// one-sided windows,
// dynamic processes and MPI-IO.
#include "mpi_impl.h"

// Parameters are named as in mpi.h (documentation); the stubs use none.
#pragma GCC diagnostic ignored "-Wunused-parameter"

using isvp::mpi::entry;
using isvp::mpi::unsupported;

extern "C" {

int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
    return entry("MPI_Win_create", comm, [] { unsupported("MPI_Win_create"); });
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
    return entry("MPI_Win_allocate", comm, [] { unsupported("MPI_Win_allocate"); });
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
    return entry("MPI_Win_allocate_shared", comm, [] { unsupported("MPI_Win_allocate_shared"); });
}

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
    return entry("MPI_Win_create_dynamic", comm, [] { unsupported("MPI_Win_create_dynamic"); });
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
    return entry("MPI_Win_shared_query", MPI_COMM_WORLD, [] { unsupported("MPI_Win_shared_query"); });
}

int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
    return entry("MPI_Win_attach", MPI_COMM_WORLD, [] { unsupported("MPI_Win_attach"); });
}

int PMPI_Win_detach(MPI_Win win, const void* base) {
    return entry("MPI_Win_detach", MPI_COMM_WORLD, [] { unsupported("MPI_Win_detach"); });
}

int PMPI_Win_free(MPI_Win* win) {
    return entry("MPI_Win_free", MPI_COMM_WORLD, [] { unsupported("MPI_Win_free"); });
}

int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
    return entry("MPI_Win_get_group", MPI_COMM_WORLD, [] { unsupported("MPI_Win_get_group"); });
}

int PMPI_Win_fence(int assert_flags, MPI_Win win) {
    return entry("MPI_Win_fence", MPI_COMM_WORLD, [] { unsupported("MPI_Win_fence"); });
}

int PMPI_Win_start(MPI_Group group, int assert_flags, MPI_Win win) {
    return entry("MPI_Win_start", MPI_COMM_WORLD, [] { unsupported("MPI_Win_start"); });
}

int PMPI_Win_complete(MPI_Win win) {
    return entry("MPI_Win_complete", MPI_COMM_WORLD, [] { unsupported("MPI_Win_complete"); });
}

int PMPI_Win_post(MPI_Group group, int assert_flags, MPI_Win win) {
    return entry("MPI_Win_post", MPI_COMM_WORLD, [] { unsupported("MPI_Win_post"); });
}

int PMPI_Win_wait(MPI_Win win) {
    return entry("MPI_Win_wait", MPI_COMM_WORLD, [] { unsupported("MPI_Win_wait"); });
}

int PMPI_Win_test(MPI_Win win, int* flag) {
    return entry("MPI_Win_test", MPI_COMM_WORLD, [] { unsupported("MPI_Win_test"); });
}

int PMPI_Win_lock(int lock_type, int rank, int assert_flags, MPI_Win win) {
    return entry("MPI_Win_lock", MPI_COMM_WORLD, [] { unsupported("MPI_Win_lock"); });
}

int PMPI_Win_unlock(int rank, MPI_Win win) {
    return entry("MPI_Win_unlock", MPI_COMM_WORLD, [] { unsupported("MPI_Win_unlock"); });
}

int PMPI_Win_lock_all(int assert_flags, MPI_Win win) {
    return entry("MPI_Win_lock_all", MPI_COMM_WORLD, [] { unsupported("MPI_Win_lock_all"); });
}

int PMPI_Win_unlock_all(MPI_Win win) {
    return entry("MPI_Win_unlock_all", MPI_COMM_WORLD, [] { unsupported("MPI_Win_unlock_all"); });
}

int PMPI_Win_flush(int rank, MPI_Win win) {
    return entry("MPI_Win_flush", MPI_COMM_WORLD, [] { unsupported("MPI_Win_flush"); });
}

int PMPI_Win_flush_all(MPI_Win win) {
    return entry("MPI_Win_flush_all", MPI_COMM_WORLD, [] { unsupported("MPI_Win_flush_all"); });
}

int PMPI_Win_flush_local(int rank, MPI_Win win) {
    return entry("MPI_Win_flush_local", MPI_COMM_WORLD, [] { unsupported("MPI_Win_flush_local"); });
}

int PMPI_Win_flush_local_all(MPI_Win win) {
    return entry("MPI_Win_flush_local_all", MPI_COMM_WORLD, [] { unsupported("MPI_Win_flush_local_all"); });
}

int PMPI_Win_sync(MPI_Win win) {
    return entry("MPI_Win_sync", MPI_COMM_WORLD, [] { unsupported("MPI_Win_sync"); });
}

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
    return entry("MPI_Win_set_errhandler", MPI_COMM_WORLD, [] { unsupported("MPI_Win_set_errhandler"); });
}

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
    return entry("MPI_Win_get_attr", MPI_COMM_WORLD, [] { unsupported("MPI_Win_get_attr"); });
}

int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
    return entry("MPI_Put", MPI_COMM_WORLD, [] { unsupported("MPI_Put"); });
}

int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
             int target_count, MPI_Datatype target_datatype, MPI_Win win) {
    return entry("MPI_Get", MPI_COMM_WORLD, [] { unsupported("MPI_Get"); });
}

int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    return entry("MPI_Accumulate", MPI_COMM_WORLD, [] { unsupported("MPI_Accumulate"); });
}

int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    return entry("MPI_Get_accumulate", MPI_COMM_WORLD, [] { unsupported("MPI_Get_accumulate"); });
}

int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
    return entry("MPI_Fetch_and_op", MPI_COMM_WORLD, [] { unsupported("MPI_Fetch_and_op"); });
}

int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr, MPI_Datatype datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Win win) {
    return entry("MPI_Compare_and_swap", MPI_COMM_WORLD, [] { unsupported("MPI_Compare_and_swap"); });
}

int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
    return entry("MPI_Rput", MPI_COMM_WORLD, [] { unsupported("MPI_Rput"); });
}

int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
              int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
    return entry("MPI_Rget", MPI_COMM_WORLD, [] { unsupported("MPI_Rget"); });
}

int PMPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm* intercomm, int array_of_errcodes[]) {
    return entry("MPI_Comm_spawn", comm, [] { unsupported("MPI_Comm_spawn"); });
}

int PMPI_Open_port(MPI_Info info, char* port_name) {
    return entry("MPI_Open_port", MPI_COMM_WORLD, [] { unsupported("MPI_Open_port"); });
}

int PMPI_Close_port(const char* port_name) {
    return entry("MPI_Close_port", MPI_COMM_WORLD, [] { unsupported("MPI_Close_port"); });
}

int PMPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
    return entry("MPI_Comm_accept", comm, [] { unsupported("MPI_Comm_accept"); });
}

int PMPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm) {
    return entry("MPI_Comm_connect", comm, [] { unsupported("MPI_Comm_connect"); });
}

int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
    return entry("MPI_File_open", comm, [] { unsupported("MPI_File_open"); });
}

int PMPI_File_close(MPI_File* fh) {
    return entry("MPI_File_close", MPI_COMM_WORLD, [] { unsupported("MPI_File_close"); });
}

int PMPI_File_delete(const char* filename, MPI_Info info) {
    return entry("MPI_File_delete", MPI_COMM_WORLD, [] { unsupported("MPI_File_delete"); });
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* datarep,
                       MPI_Info info) {
    return entry("MPI_File_set_view", MPI_COMM_WORLD, [] { unsupported("MPI_File_set_view"); });
}

int PMPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
    return entry("MPI_File_read", MPI_COMM_WORLD, [] { unsupported("MPI_File_read"); });
}

int PMPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
    return entry("MPI_File_write", MPI_COMM_WORLD, [] { unsupported("MPI_File_write"); });
}

int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
    return entry("MPI_File_read_at", MPI_COMM_WORLD, [] { unsupported("MPI_File_read_at"); });
}

int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                       MPI_Status* status) {
    return entry("MPI_File_write_at", MPI_COMM_WORLD, [] { unsupported("MPI_File_write_at"); });
}

int PMPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
    return entry("MPI_File_read_all", MPI_COMM_WORLD, [] { unsupported("MPI_File_read_all"); });
}

int PMPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
    return entry("MPI_File_write_all", MPI_COMM_WORLD, [] { unsupported("MPI_File_write_all"); });
}

int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                          MPI_Status* status) {
    return entry("MPI_File_read_at_all", MPI_COMM_WORLD, [] { unsupported("MPI_File_read_at_all"); });
}

int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                           MPI_Status* status) {
    return entry("MPI_File_write_at_all", MPI_COMM_WORLD, [] { unsupported("MPI_File_write_at_all"); });
}

int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
    return entry("MPI_File_get_size", MPI_COMM_WORLD, [] { unsupported("MPI_File_get_size"); });
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
    return entry("MPI_File_set_size", MPI_COMM_WORLD, [] { unsupported("MPI_File_set_size"); });
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
    return entry("MPI_File_seek", MPI_COMM_WORLD, [] { unsupported("MPI_File_seek"); });
}

int PMPI_File_sync(MPI_File fh) {
    return entry("MPI_File_sync", MPI_COMM_WORLD, [] { unsupported("MPI_File_sync"); });
}

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
    return entry("MPI_File_set_errhandler", MPI_COMM_WORLD, [] { unsupported("MPI_File_set_errhandler"); });
}

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
    return entry("MPI_File_get_errhandler", MPI_COMM_WORLD, [] { unsupported("MPI_File_get_errhandler"); });
}

}  // extern "C"

ISVP_MPI_ALIAS(Win_create)
ISVP_MPI_ALIAS(Win_allocate)
ISVP_MPI_ALIAS(Win_allocate_shared)
ISVP_MPI_ALIAS(Win_create_dynamic)
ISVP_MPI_ALIAS(Win_shared_query)
ISVP_MPI_ALIAS(Win_attach)
ISVP_MPI_ALIAS(Win_detach)
ISVP_MPI_ALIAS(Win_free)
ISVP_MPI_ALIAS(Win_get_group)
ISVP_MPI_ALIAS(Win_fence)
ISVP_MPI_ALIAS(Win_start)
ISVP_MPI_ALIAS(Win_complete)
ISVP_MPI_ALIAS(Win_post)
ISVP_MPI_ALIAS(Win_wait)
ISVP_MPI_ALIAS(Win_test)
ISVP_MPI_ALIAS(Win_lock)
ISVP_MPI_ALIAS(Win_unlock)
ISVP_MPI_ALIAS(Win_lock_all)
ISVP_MPI_ALIAS(Win_unlock_all)
ISVP_MPI_ALIAS(Win_flush)
ISVP_MPI_ALIAS(Win_flush_all)
ISVP_MPI_ALIAS(Win_flush_local)
ISVP_MPI_ALIAS(Win_flush_local_all)
ISVP_MPI_ALIAS(Win_sync)
ISVP_MPI_ALIAS(Win_set_errhandler)
ISVP_MPI_ALIAS(Win_get_attr)
ISVP_MPI_ALIAS(Put)
ISVP_MPI_ALIAS(Get)
ISVP_MPI_ALIAS(Accumulate)
ISVP_MPI_ALIAS(Get_accumulate)
ISVP_MPI_ALIAS(Fetch_and_op)
ISVP_MPI_ALIAS(Compare_and_swap)
ISVP_MPI_ALIAS(Rput)
ISVP_MPI_ALIAS(Rget)
ISVP_MPI_ALIAS(Comm_spawn)
ISVP_MPI_ALIAS(Open_port)
ISVP_MPI_ALIAS(Close_port)
ISVP_MPI_ALIAS(Comm_accept)
ISVP_MPI_ALIAS(Comm_connect)
ISVP_MPI_ALIAS(File_open)
ISVP_MPI_ALIAS(File_close)
ISVP_MPI_ALIAS(File_delete)
ISVP_MPI_ALIAS(File_set_view)
ISVP_MPI_ALIAS(File_read)
ISVP_MPI_ALIAS(File_write)
ISVP_MPI_ALIAS(File_read_at)
ISVP_MPI_ALIAS(File_write_at)
ISVP_MPI_ALIAS(File_read_all)
ISVP_MPI_ALIAS(File_write_all)
ISVP_MPI_ALIAS(File_read_at_all)
ISVP_MPI_ALIAS(File_write_at_all)
ISVP_MPI_ALIAS(File_get_size)
ISVP_MPI_ALIAS(File_set_size)
ISVP_MPI_ALIAS(File_seek)
ISVP_MPI_ALIAS(File_sync)
ISVP_MPI_ALIAS(File_set_errhandler)
ISVP_MPI_ALIAS(File_get_errhandler)
