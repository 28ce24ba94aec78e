/*
 * mpi.h — the isvp MPI shim (MPI 3.1 C bindings, a documented subset, and
 * from MPI 4.0 the persistent collectives, the large-count _c forms and
 * MPI_Isendrecv(_replace)).
 *
 * Unmodified MPI C and C++ programs compile against this header with the
 * isvp-mpicc / isvp-mpicxx wrappers and run under `isvp run -n N`. What is
 * implemented, what returns MPI_ERR_UNSUPPORTED_OPERATION, and how handles
 * are represented: docs/MPI.md.
 *
 * Handles are ints (as in MPICH), so every predefined handle is a
 * compile-time constant usable in static initialisers, switch labels and
 * both C and C++. The kind of handle sits in the top byte (a wrong kind is
 * detected and reported as the matching MPI_ERR_* class).
 *
 * Every MPI_ function also exists as PMPI_ (the MPI_ name is a weak alias),
 * for profiling tools.
 */
#ifndef ISVP_MPI_H
#define ISVP_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define ISVP_MPI 1

/* ---- handle types ------------------------------------------------------ */
typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_File;
typedef int MPI_Message;

typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int isvp_cancelled;    /* private */
    long long isvp_bytes;  /* private: bytes received */
} MPI_Status;

/* ---- predefined handles ------------------------------------------------ */
#define MPI_COMM_NULL ((MPI_Comm)0x04000000)
#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)
#define MPI_COMM_SELF ((MPI_Comm)0x44000001)

#define MPI_GROUP_NULL ((MPI_Group)0x08000000)
#define MPI_GROUP_EMPTY ((MPI_Group)0x48000000)

#define MPI_REQUEST_NULL ((MPI_Request)0x2c000000)
#define MPI_MESSAGE_NULL ((MPI_Message)0x2c000000)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x6c000000)

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0x14000000)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)0x54000001)

#define MPI_INFO_NULL ((MPI_Info)0x1c000000)
#define MPI_INFO_ENV ((MPI_Info)0x5c000001)
#define MPI_WIN_NULL ((MPI_Win)0x20000000)
#define MPI_FILE_NULL ((MPI_File)0x38000000)

/* Datatypes: 0x4c000000 | index (docs/MPI.md lists sizes and extents). */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0x0c000000)
#define MPI_CHAR ((MPI_Datatype)0x4c000001)
#define MPI_SIGNED_CHAR ((MPI_Datatype)0x4c000002)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)0x4c000003)
#define MPI_BYTE ((MPI_Datatype)0x4c000004)
#define MPI_WCHAR ((MPI_Datatype)0x4c000005)
#define MPI_SHORT ((MPI_Datatype)0x4c000006)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)0x4c000007)
#define MPI_INT ((MPI_Datatype)0x4c000008)
#define MPI_UNSIGNED ((MPI_Datatype)0x4c000009)
#define MPI_LONG ((MPI_Datatype)0x4c00000a)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)0x4c00000b)
#define MPI_LONG_LONG_INT ((MPI_Datatype)0x4c00000c)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x4c00000d)
#define MPI_FLOAT ((MPI_Datatype)0x4c00000e)
#define MPI_DOUBLE ((MPI_Datatype)0x4c00000f)
#define MPI_LONG_DOUBLE ((MPI_Datatype)0x4c000010)
#define MPI_C_BOOL ((MPI_Datatype)0x4c000011)
#define MPI_INT8_T ((MPI_Datatype)0x4c000012)
#define MPI_INT16_T ((MPI_Datatype)0x4c000013)
#define MPI_INT32_T ((MPI_Datatype)0x4c000014)
#define MPI_INT64_T ((MPI_Datatype)0x4c000015)
#define MPI_UINT8_T ((MPI_Datatype)0x4c000016)
#define MPI_UINT16_T ((MPI_Datatype)0x4c000017)
#define MPI_UINT32_T ((MPI_Datatype)0x4c000018)
#define MPI_UINT64_T ((MPI_Datatype)0x4c000019)
#define MPI_AINT ((MPI_Datatype)0x4c00001a)
#define MPI_OFFSET ((MPI_Datatype)0x4c00001b)
#define MPI_COUNT ((MPI_Datatype)0x4c00001c)
#define MPI_PACKED ((MPI_Datatype)0x4c00001d)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)0x4c00001e)
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)0x4c00001f)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c000020)
/* Pair types for MINLOC / MAXLOC: {value; int index;} with C struct layout. */
#define MPI_FLOAT_INT ((MPI_Datatype)0x4c000021)
#define MPI_DOUBLE_INT ((MPI_Datatype)0x4c000022)
#define MPI_LONG_INT ((MPI_Datatype)0x4c000023)
#define MPI_2INT ((MPI_Datatype)0x4c000024)
#define MPI_SHORT_INT ((MPI_Datatype)0x4c000025)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)0x4c000026)
/* Fortran types, usable from C with the layout of gfortran's default kinds
 * (INTEGER, LOGICAL and REAL 4 bytes, DOUBLE PRECISION 8). */
#define MPI_CHARACTER ((MPI_Datatype)0x4c000027)
#define MPI_LOGICAL ((MPI_Datatype)0x4c000028)
#define MPI_INTEGER ((MPI_Datatype)0x4c000029)
#define MPI_REAL ((MPI_Datatype)0x4c00002a)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)0x4c00002b)
#define MPI_COMPLEX ((MPI_Datatype)0x4c00002c)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)0x4c00002d)
/* Fortran pair types for MINLOC / MAXLOC: value and index of the same type. */
#define MPI_2INTEGER ((MPI_Datatype)0x4c00002e)
#define MPI_2REAL ((MPI_Datatype)0x4c00002f)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)0x4c000030)
/* Fortran sized types (optional in the standard; REAL16 and COMPLEX32 are
 * not provided, INTEGER16 is at the end of the list). */
#define MPI_INTEGER1 ((MPI_Datatype)0x4c000031)
#define MPI_INTEGER2 ((MPI_Datatype)0x4c000032)
#define MPI_INTEGER4 ((MPI_Datatype)0x4c000033)
#define MPI_INTEGER8 ((MPI_Datatype)0x4c000034)
#define MPI_REAL4 ((MPI_Datatype)0x4c000035)
#define MPI_REAL8 ((MPI_Datatype)0x4c000036)
#define MPI_COMPLEX8 ((MPI_Datatype)0x4c000037)
#define MPI_COMPLEX16 ((MPI_Datatype)0x4c000038)
/* Types of the same layout as others, with their own handle and name. */
#define MPI_C_COMPLEX ((MPI_Datatype)0x4c000039)
#define MPI_CXX_BOOL ((MPI_Datatype)0x4c00003a)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)0x4c00003b)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)0x4c00003c)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c00003d)
/* MPI-1 bound markers (removed in MPI 3.0, kept for older programs): in
 * MPI_Type_create_struct they set the lower / upper bound explicitly. */
/* Fortran INTEGER(16), gfortran's 128-bit integer. */
#define MPI_INTEGER16 ((MPI_Datatype)0x4c00003e)
#define MPI_LB ((MPI_Datatype)0x4c00003f)
#define MPI_UB ((MPI_Datatype)0x4c000040)
#define ISVP_MPI_PREDEFINED_TYPES 0x41 /* indices 1 .. 0x40 */

/* ---- operations ------------------------------------------------------- */
#define MPI_OP_NULL ((MPI_Op)0x18000000)
#define MPI_MAX ((MPI_Op)0x58000001)
#define MPI_MIN ((MPI_Op)0x58000002)
#define MPI_SUM ((MPI_Op)0x58000003)
#define MPI_PROD ((MPI_Op)0x58000004)
#define MPI_LAND ((MPI_Op)0x58000005)
#define MPI_BAND ((MPI_Op)0x58000006)
#define MPI_LOR ((MPI_Op)0x58000007)
#define MPI_BOR ((MPI_Op)0x58000008)
#define MPI_LXOR ((MPI_Op)0x58000009)
#define MPI_BXOR ((MPI_Op)0x5800000a)
#define MPI_MINLOC ((MPI_Op)0x5800000b)
#define MPI_MAXLOC ((MPI_Op)0x5800000c)
#define MPI_REPLACE ((MPI_Op)0x5800000d)
#define MPI_NO_OP ((MPI_Op)0x5800000e)

/* ---- special values ---------------------------------------------------- */
#define MPI_IN_PLACE ((void *)-1)
#define MPI_BOTTOM ((void *)0)
/* The special pointers are odd constants (MPICH's values), so parameters
 * that take them are declared as pointers, not arrays: GCC 11+ treats an
 * array parameter as an access of at least one element and would warn
 * (-Wstringop-overflow) at MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE). */
#define MPI_STATUS_IGNORE ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
/* Not NULL (MPI 3.0 advises against it: NULL is a legal empty array). */
#define MPI_UNWEIGHTED ((int *)2)
#define MPI_WEIGHTS_EMPTY ((int *)1)

#define MPI_PROC_NULL (-1)
#define MPI_ANY_SOURCE (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID 0x24000000
#define MPI_BSEND_OVERHEAD 96
#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-54278278)

#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_MAX_PROCESSOR_NAME 128
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 256
#define MPI_MAX_DATAREP_STRING 128

/* Predefined attribute keys (MPI_Comm_get_attr on MPI_COMM_WORLD). */
#define MPI_TAG_UB 0x64400001
#define MPI_HOST 0x64400003
#define MPI_IO 0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE 0x64400009
#define MPI_LASTUSEDCODE 0x6440000b
#define MPI_APPNUM 0x6440000d

/* Topologies, communicator split types, datatype constructors. */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
#define MPI_COMM_TYPE_SHARED 1
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR_INTEGER 5
#define MPI_COMBINER_HVECTOR 6
#define MPI_COMBINER_INDEXED 7
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_HINDEXED 9
#define MPI_COMBINER_INDEXED_BLOCK 10
#define MPI_COMBINER_STRUCT_INTEGER 11
#define MPI_COMBINER_STRUCT 12
#define MPI_COMBINER_SUBARRAY 13
#define MPI_COMBINER_DARRAY 14
#define MPI_COMBINER_F90_REAL 15
#define MPI_COMBINER_F90_COMPLEX 16
#define MPI_COMBINER_F90_INTEGER 17
#define MPI_COMBINER_RESIZED 18
#define MPI_COMBINER_HINDEXED_BLOCK 19

/* One-sided and file constants (the functions are unsupported; docs/MPI.md). */
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
#define MPI_MODE_RDONLY 2
#define MPI_MODE_RDWR 8
#define MPI_MODE_WRONLY 4
#define MPI_MODE_CREATE 1
#define MPI_MODE_EXCL 64
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604

/* ---- error classes (MPICH's values) ------------------------------------ */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_ROOT 7
#define MPI_ERR_GROUP 8
#define MPI_ERR_OP 9
#define MPI_ERR_TOPOLOGY 10
#define MPI_ERR_DIMS 11
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_TRUNCATE 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_REQUEST 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_BAD_FILE 22
#define MPI_ERR_CONVERSION 23
#define MPI_ERR_DUP_DATAREP 24
#define MPI_ERR_FILE_EXISTS 25
#define MPI_ERR_FILE_IN_USE 26
#define MPI_ERR_FILE 27
#define MPI_ERR_INFO 28
#define MPI_ERR_INFO_KEY 29
#define MPI_ERR_INFO_VALUE 30
#define MPI_ERR_INFO_NOKEY 31
#define MPI_ERR_IO 32
#define MPI_ERR_NAME 33
#define MPI_ERR_NO_MEM 34
#define MPI_ERR_NOT_SAME 35
#define MPI_ERR_NO_SPACE 36
#define MPI_ERR_NO_SUCH_FILE 37
#define MPI_ERR_PORT 38
#define MPI_ERR_QUOTA 39
#define MPI_ERR_READ_ONLY 40
#define MPI_ERR_SERVICE 41
#define MPI_ERR_SPAWN 42
#define MPI_ERR_UNSUPPORTED_DATAREP 43
#define MPI_ERR_UNSUPPORTED_OPERATION 44
#define MPI_ERR_WIN 45
#define MPI_ERR_BASE 46
#define MPI_ERR_LOCKTYPE 47
#define MPI_ERR_KEYVAL 48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_SYNC 50
#define MPI_ERR_SIZE 51
#define MPI_ERR_DISP 52
#define MPI_ERR_ASSERT 53
#define MPI_ERR_RMA_RANGE 55
#define MPI_ERR_RMA_ATTACH 56
#define MPI_ERR_RMA_SHARED 57
#define MPI_ERR_RMA_FLAVOR 58
#define MPI_ERR_LASTCODE 0x3fffffff

/* ---- callback types ----------------------------------------------------- */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef void MPI_Handler_function(MPI_Comm *comm, int *error_code, ...);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *error_code, ...);
typedef void MPI_File_errhandler_function(MPI_File *file, int *error_code, ...);
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val, void *extra_state);
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                              void *attribute_val_out, int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                                       void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state);
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);

/* Predefined attribute copy / delete functions (defined in libisvp_mpi). */
int isvp_mpi_null_copy_fn(MPI_Comm, int, void *, void *, void *, int *);
int isvp_mpi_dup_fn(MPI_Comm, int, void *, void *, void *, int *);
int isvp_mpi_null_delete_fn(MPI_Comm, int, void *, void *);
int isvp_mpi_type_null_copy_fn(MPI_Datatype, int, void *, void *, void *, int *);
int isvp_mpi_type_dup_fn(MPI_Datatype, int, void *, void *, void *, int *);
int isvp_mpi_type_null_delete_fn(MPI_Datatype, int, void *, void *);
#define MPI_NULL_COPY_FN isvp_mpi_null_copy_fn
#define MPI_DUP_FN isvp_mpi_dup_fn
#define MPI_NULL_DELETE_FN isvp_mpi_null_delete_fn
#define MPI_COMM_NULL_COPY_FN isvp_mpi_null_copy_fn
#define MPI_COMM_DUP_FN isvp_mpi_dup_fn
#define MPI_COMM_NULL_DELETE_FN isvp_mpi_null_delete_fn
#define MPI_TYPE_NULL_COPY_FN isvp_mpi_type_null_copy_fn
#define MPI_TYPE_DUP_FN isvp_mpi_type_dup_fn
#define MPI_TYPE_NULL_DELETE_FN isvp_mpi_type_null_delete_fn
/* Window keyvals may be created and freed; windows themselves are unsupported. */
int isvp_mpi_win_null_copy_fn(MPI_Win, int, void *, void *, void *, int *);
int isvp_mpi_win_dup_fn(MPI_Win, int, void *, void *, void *, int *);
int isvp_mpi_win_null_delete_fn(MPI_Win, int, void *, void *);
#define MPI_WIN_NULL_COPY_FN isvp_mpi_win_null_copy_fn
#define MPI_WIN_DUP_FN isvp_mpi_win_dup_fn
#define MPI_WIN_NULL_DELETE_FN isvp_mpi_win_null_delete_fn

/* Handle conversion (handles are ints in C and Fortran alike). */
#define MPI_Comm_c2f(comm) ((MPI_Fint)(comm))
#define MPI_Comm_f2c(comm) ((MPI_Comm)(comm))
#define MPI_Type_c2f(datatype) ((MPI_Fint)(datatype))
#define MPI_Type_f2c(datatype) ((MPI_Datatype)(datatype))
#define MPI_Group_c2f(group) ((MPI_Fint)(group))
#define MPI_Group_f2c(group) ((MPI_Group)(group))
#define MPI_Info_c2f(info) ((MPI_Fint)(info))
#define MPI_Info_f2c(info) ((MPI_Info)(info))
#define MPI_Request_c2f(request) ((MPI_Fint)(request))
#define MPI_Request_f2c(request) ((MPI_Request)(request))
#define MPI_Op_c2f(op) ((MPI_Fint)(op))
#define MPI_Op_f2c(op) ((MPI_Op)(op))
#define MPI_Errhandler_c2f(errhandler) ((MPI_Fint)(errhandler))
#define MPI_Errhandler_f2c(errhandler) ((MPI_Errhandler)(errhandler))
#define MPI_Win_c2f(win) ((MPI_Fint)(win))
#define MPI_Win_f2c(win) ((MPI_Win)(win))
#define MPI_Message_c2f(message) ((MPI_Fint)(message))
#define MPI_Message_f2c(message) ((MPI_Message)(message))

/* Declares MPI_name and its profiling twin PMPI_name. */
#define ISVP_MPI_API(name, params) \
    int MPI_##name params;         \
    int PMPI_##name params

/* ---- environment ------------------------------------------------------- */
ISVP_MPI_API(Init, (int *argc, char ***argv));
ISVP_MPI_API(Init_thread, (int *argc, char ***argv, int required, int *provided));
ISVP_MPI_API(Initialized, (int *flag));
ISVP_MPI_API(Finalize, (void));
ISVP_MPI_API(Finalized, (int *flag));
ISVP_MPI_API(Abort, (MPI_Comm comm, int errorcode));
ISVP_MPI_API(Query_thread, (int *provided));
ISVP_MPI_API(Is_thread_main, (int *flag));
ISVP_MPI_API(Get_version, (int *version, int *subversion));
ISVP_MPI_API(Get_library_version, (char *version, int *resultlen));
ISVP_MPI_API(Get_processor_name, (char *name, int *resultlen));
ISVP_MPI_API(Pcontrol, (const int level, ...));
ISVP_MPI_API(Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr));
ISVP_MPI_API(Free_mem, (void *base));
double MPI_Wtime(void);
double PMPI_Wtime(void);
double MPI_Wtick(void);
double PMPI_Wtick(void);

/* ---- error handling ----------------------------------------------------- */
ISVP_MPI_API(Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler));
ISVP_MPI_API(Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler));
ISVP_MPI_API(Comm_create_errhandler, (MPI_Comm_errhandler_function * function, MPI_Errhandler *errhandler));
ISVP_MPI_API(Comm_call_errhandler, (MPI_Comm comm, int errorcode));
ISVP_MPI_API(Errhandler_free, (MPI_Errhandler * errhandler));
ISVP_MPI_API(Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler));
ISVP_MPI_API(Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler));
ISVP_MPI_API(Errhandler_create, (MPI_Handler_function * function, MPI_Errhandler *errhandler));
ISVP_MPI_API(Error_string, (int errorcode, char *string, int *resultlen));
ISVP_MPI_API(Error_class, (int errorcode, int *errorclass));
ISVP_MPI_API(Add_error_class, (int *errorclass));
ISVP_MPI_API(Add_error_code, (int errorclass, int *errorcode));
ISVP_MPI_API(Add_error_string, (int errorcode, const char *string));

/* ---- communicators ------------------------------------------------------ */
ISVP_MPI_API(Comm_rank, (MPI_Comm comm, int *rank));
ISVP_MPI_API(Comm_size, (MPI_Comm comm, int *size));
ISVP_MPI_API(Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm));
ISVP_MPI_API(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm));
ISVP_MPI_API(Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request));
ISVP_MPI_API(Comm_idup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request));
ISVP_MPI_API(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm));
ISVP_MPI_API(Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm));
ISVP_MPI_API(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm));
ISVP_MPI_API(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm));
ISVP_MPI_API(Comm_free, (MPI_Comm * comm));
ISVP_MPI_API(Comm_disconnect, (MPI_Comm * comm));
ISVP_MPI_API(Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result));
ISVP_MPI_API(Comm_group, (MPI_Comm comm, MPI_Group *group));
ISVP_MPI_API(Comm_test_inter, (MPI_Comm comm, int *flag));
ISVP_MPI_API(Comm_remote_size, (MPI_Comm comm, int *size));
ISVP_MPI_API(Comm_remote_group, (MPI_Comm comm, MPI_Group *group));
ISVP_MPI_API(Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                int tag, MPI_Comm *newintercomm));
ISVP_MPI_API(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm));
ISVP_MPI_API(Comm_set_name, (MPI_Comm comm, const char *comm_name));
ISVP_MPI_API(Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen));
ISVP_MPI_API(Comm_set_info, (MPI_Comm comm, MPI_Info info));
ISVP_MPI_API(Comm_get_info, (MPI_Comm comm, MPI_Info *info_used));
ISVP_MPI_API(Comm_get_parent, (MPI_Comm * parent));
ISVP_MPI_API(Comm_create_keyval, (MPI_Comm_copy_attr_function * comm_copy_attr_fn,
                                  MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                                  void *extra_state));
ISVP_MPI_API(Comm_free_keyval, (int *comm_keyval));
ISVP_MPI_API(Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val));
ISVP_MPI_API(Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag));
ISVP_MPI_API(Comm_delete_attr, (MPI_Comm comm, int comm_keyval));
ISVP_MPI_API(Keyval_create, (MPI_Copy_function * copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                             void *extra_state));
ISVP_MPI_API(Keyval_free, (int *keyval));
ISVP_MPI_API(Attr_put, (MPI_Comm comm, int keyval, void *attribute_val));
ISVP_MPI_API(Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag));
ISVP_MPI_API(Attr_delete, (MPI_Comm comm, int keyval));

/* ---- groups ------------------------------------------------------------- */
ISVP_MPI_API(Group_size, (MPI_Group group, int *size));
ISVP_MPI_API(Group_rank, (MPI_Group group, int *rank));
ISVP_MPI_API(Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]));
ISVP_MPI_API(Group_compare, (MPI_Group group1, MPI_Group group2, int *result));
ISVP_MPI_API(Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
ISVP_MPI_API(Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
ISVP_MPI_API(Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
ISVP_MPI_API(Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
ISVP_MPI_API(Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
ISVP_MPI_API(Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
ISVP_MPI_API(Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
ISVP_MPI_API(Group_free, (MPI_Group * group));

/* ---- datatypes ---------------------------------------------------------- */
ISVP_MPI_API(Type_size, (MPI_Datatype datatype, int *size));
ISVP_MPI_API(Type_size_x, (MPI_Datatype datatype, MPI_Count *size));
ISVP_MPI_API(Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent));
ISVP_MPI_API(Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
ISVP_MPI_API(Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent));
ISVP_MPI_API(Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
ISVP_MPI_API(Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen));
ISVP_MPI_API(Type_set_name, (MPI_Datatype datatype, const char *type_name));
ISVP_MPI_API(Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype));
ISVP_MPI_API(Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                   MPI_Datatype *newtype));
ISVP_MPI_API(Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[],
                            MPI_Datatype oldtype, MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_hindexed, (int count, const int array_of_blocklengths[],
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[],
                                          MPI_Datatype oldtype, MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_struct, (int count, const int array_of_blocklengths[],
                                  const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                                  MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_subarray, (int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                                    const int array_of_starts[], int order, MPI_Datatype oldtype,
                                    MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_darray, (int size, int rank, int ndims, const int array_of_gsizes[],
                                  const int array_of_distribs[], const int array_of_dargs[],
                                  const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                  MPI_Datatype *newtype));
ISVP_MPI_API(Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype));
ISVP_MPI_API(Type_commit, (MPI_Datatype * datatype));
ISVP_MPI_API(Type_free, (MPI_Datatype * datatype));
ISVP_MPI_API(Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                                 int *combiner));
ISVP_MPI_API(Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                                 int array_of_integers[], MPI_Aint array_of_addresses[],
                                 MPI_Datatype array_of_datatypes[]));
ISVP_MPI_API(Type_match_size, (int typeclass, int size, MPI_Datatype *datatype));
ISVP_MPI_API(Type_create_f90_integer, (int r, MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_f90_real, (int p, int r, MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_keyval, (MPI_Type_copy_attr_function * type_copy_attr_fn,
                                  MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                                  void *extra_state));
ISVP_MPI_API(Type_free_keyval, (int *type_keyval));
ISVP_MPI_API(Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val));
ISVP_MPI_API(Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag));
ISVP_MPI_API(Type_delete_attr, (MPI_Datatype datatype, int type_keyval));
ISVP_MPI_API(Pack_external, (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                             void *outbuf, MPI_Aint outsize, MPI_Aint *position));
ISVP_MPI_API(Unpack_external, (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                               void *outbuf, int outcount, MPI_Datatype datatype));
ISVP_MPI_API(Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size));
/* MPI-1 names (deprecated, removed in MPI 3.0, still common in older programs). */
ISVP_MPI_API(Type_extent, (MPI_Datatype datatype, MPI_Aint *extent));
ISVP_MPI_API(Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement));
ISVP_MPI_API(Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement));
ISVP_MPI_API(Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype));
ISVP_MPI_API(Type_hindexed, (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                             MPI_Datatype oldtype, MPI_Datatype *newtype));
ISVP_MPI_API(Type_struct, (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                           MPI_Datatype array_of_types[], MPI_Datatype *newtype));
ISVP_MPI_API(Get_address, (const void *location, MPI_Aint *address));
ISVP_MPI_API(Address, (void *location, MPI_Aint *address));
ISVP_MPI_API(Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count));
ISVP_MPI_API(Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count));
ISVP_MPI_API(Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
ISVP_MPI_API(Status_set_elements, (MPI_Status * status, MPI_Datatype datatype, int count));
ISVP_MPI_API(Status_set_elements_x, (MPI_Status * status, MPI_Datatype datatype, MPI_Count count));
ISVP_MPI_API(Status_set_cancelled, (MPI_Status * status, int flag));
ISVP_MPI_API(Test_cancelled, (const MPI_Status *status, int *flag));
ISVP_MPI_API(Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
                    MPI_Comm comm));
ISVP_MPI_API(Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                      MPI_Datatype datatype, MPI_Comm comm));
ISVP_MPI_API(Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size));
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);

/* ---- operations ---------------------------------------------------------- */
ISVP_MPI_API(Op_create, (MPI_User_function * user_fn, int commute, MPI_Op *op));
ISVP_MPI_API(Op_free, (MPI_Op * op));
ISVP_MPI_API(Op_commutative, (MPI_Op op, int *commute));
ISVP_MPI_API(Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op));

/* ---- point-to-point ------------------------------------------------------ */
ISVP_MPI_API(Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
ISVP_MPI_API(Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
ISVP_MPI_API(Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
ISVP_MPI_API(Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
ISVP_MPI_API(Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                    MPI_Status *status));
ISVP_MPI_API(Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                        MPI_Status *status));
ISVP_MPI_API(Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                int recvtag, MPI_Comm comm, MPI_Status *status));
ISVP_MPI_API(Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request *request));
ISVP_MPI_API(Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request));
ISVP_MPI_API(Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request));
ISVP_MPI_API(Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request *request));
ISVP_MPI_API(Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Request *request));
ISVP_MPI_API(Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request));
ISVP_MPI_API(Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                          MPI_Request *request));
ISVP_MPI_API(Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                          MPI_Request *request));
ISVP_MPI_API(Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                          MPI_Request *request));
ISVP_MPI_API(Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                         MPI_Request *request));
ISVP_MPI_API(Start, (MPI_Request * request));
ISVP_MPI_API(Startall, (int count, MPI_Request array_of_requests[]));
ISVP_MPI_API(Wait, (MPI_Request * request, MPI_Status *status));
ISVP_MPI_API(Waitall, (int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses));
ISVP_MPI_API(Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status));
ISVP_MPI_API(Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                        MPI_Status *array_of_statuses));
ISVP_MPI_API(Test, (MPI_Request * request, int *flag, MPI_Status *status));
ISVP_MPI_API(Testall, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status *array_of_statuses));
ISVP_MPI_API(Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status));
ISVP_MPI_API(Testsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                        MPI_Status *array_of_statuses));
ISVP_MPI_API(Request_free, (MPI_Request * request));
ISVP_MPI_API(Request_get_status, (MPI_Request request, int *flag, MPI_Status *status));
ISVP_MPI_API(Cancel, (MPI_Request * request));
ISVP_MPI_API(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status));
ISVP_MPI_API(Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status));
ISVP_MPI_API(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status));
ISVP_MPI_API(Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status));
ISVP_MPI_API(Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status));
ISVP_MPI_API(Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request));
ISVP_MPI_API(Buffer_attach, (void *buffer, int size));
ISVP_MPI_API(Buffer_detach, (void *buffer_addr, int *size));

/* ---- collectives (blocking) ---------------------------------------------- */
ISVP_MPI_API(Barrier, (MPI_Comm comm));
ISVP_MPI_API(Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm));
ISVP_MPI_API(Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                      MPI_Comm comm));
ISVP_MPI_API(Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm));
ISVP_MPI_API(Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm));
ISVP_MPI_API(Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
ISVP_MPI_API(Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm));
ISVP_MPI_API(Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm));
ISVP_MPI_API(Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm));
ISVP_MPI_API(Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
ISVP_MPI_API(Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm));
ISVP_MPI_API(Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm));
ISVP_MPI_API(Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm));
ISVP_MPI_API(Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm));
ISVP_MPI_API(Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm));
ISVP_MPI_API(Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm));
ISVP_MPI_API(Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm));

/* ---- persistent collectives (MPI 4.0; sw/mpi/persistent.cpp) ------------------ */
ISVP_MPI_API(Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Bcast_init, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request));
ISVP_MPI_API(Reduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                           MPI_Comm comm, MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Allreduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Scatter_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Scatterv_init, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Gather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Gatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request));
ISVP_MPI_API(Allgatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Alltoallv_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Alltoallw_init, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                              MPI_Request *request));
ISVP_MPI_API(Reduce_scatter_init, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Reduce_scatter_block_init, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Scan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request));
ISVP_MPI_API(Exscan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm, MPI_Info info, MPI_Request *request));

/* ---- nonblocking and neighbourhood collectives ----------------------------- */
ISVP_MPI_API(Ibarrier, (MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Request *request));
ISVP_MPI_API(Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Request *request));
ISVP_MPI_API(Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Request *request));
ISVP_MPI_API(Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request));
ISVP_MPI_API(Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                     MPI_Op op, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Request *request));
ISVP_MPI_API(Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
ISVP_MPI_API(Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
ISVP_MPI_API(Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
ISVP_MPI_API(Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm));
ISVP_MPI_API(Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
ISVP_MPI_API(Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Request *request));
ISVP_MPI_API(Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                   MPI_Request *request));

/* ---- MPI 4.0 point-to-point additions and large-count (_c) forms ----------------
 * (sw/mpi/large_count.cpp). isvp's MPI keeps int counts inside: a count,
 * size or displacement beyond INT_MAX is MPI_ERR_COUNT (one message is at
 * most 512 MiB anyway). */
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len, MPI_Datatype *datatype);
ISVP_MPI_API(Grequest_start, (MPI_Grequest_query_function * query_fn, MPI_Grequest_free_function *free_fn,
                              MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request));
ISVP_MPI_API(Grequest_complete, (MPI_Request request));
ISVP_MPI_API(Op_create_c, (MPI_User_function_c * user_fn, int commute, MPI_Op *op));
ISVP_MPI_API(Isendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                         MPI_Request *request));
ISVP_MPI_API(Isendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                 int recvtag, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Isendrecv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                           MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Isendrecv_replace_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                   int source, int recvtag, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Send_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
ISVP_MPI_API(Ssend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
ISVP_MPI_API(Bsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
ISVP_MPI_API(Rsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
ISVP_MPI_API(Recv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                      MPI_Status *status));
ISVP_MPI_API(Isend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                       MPI_Request *request));
ISVP_MPI_API(Issend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request));
ISVP_MPI_API(Ibsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request));
ISVP_MPI_API(Irsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request));
ISVP_MPI_API(Irecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Request *request));
ISVP_MPI_API(Send_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request *request));
ISVP_MPI_API(Ssend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Bsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Rsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                            MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Recv_init_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                           MPI_Request *request));
ISVP_MPI_API(Sendrecv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                          MPI_Comm comm, MPI_Status *status));
ISVP_MPI_API(Sendrecv_replace_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                                  int source, int recvtag, MPI_Comm comm, MPI_Status *status));
ISVP_MPI_API(Mrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status));
ISVP_MPI_API(Imrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                        MPI_Request *request));
ISVP_MPI_API(Get_count_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
ISVP_MPI_API(Get_elements_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
ISVP_MPI_API(Status_set_elements_c, (MPI_Status * status, MPI_Datatype datatype, MPI_Count count));
ISVP_MPI_API(Type_size_c, (MPI_Datatype datatype, MPI_Count *size));
ISVP_MPI_API(Type_get_extent_c, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
ISVP_MPI_API(Type_get_true_extent_c, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
ISVP_MPI_API(Type_contiguous_c, (MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype));
ISVP_MPI_API(Type_vector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_hvector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                                     MPI_Datatype *newtype));
ISVP_MPI_API(Type_indexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_indexed_block_c, (MPI_Count count, MPI_Count blocklength,
                                           const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                           MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_hindexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[],
                                      const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                      MPI_Datatype *newtype));
ISVP_MPI_API(Type_create_resized_c, (MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype));
ISVP_MPI_API(Pack_c, (const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                      MPI_Count *position, MPI_Comm comm));
ISVP_MPI_API(Unpack_c, (const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                        MPI_Datatype datatype, MPI_Comm comm));
ISVP_MPI_API(Pack_size_c, (MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size));
ISVP_MPI_API(Reduce_local_c, (const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op));
ISVP_MPI_API(Bcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm));
ISVP_MPI_API(Ibcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                        MPI_Request *request));
ISVP_MPI_API(Reduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                        int root, MPI_Comm comm));
ISVP_MPI_API(Ireduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                         int root, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Allreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm));
ISVP_MPI_API(Iallreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Scan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm));
ISVP_MPI_API(Iscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Exscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm));
ISVP_MPI_API(Iexscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Reduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm));
ISVP_MPI_API(Ireduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Reduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
ISVP_MPI_API(Ireduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Scatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
ISVP_MPI_API(Iscatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Gather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
ISVP_MPI_API(Igather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                           MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
ISVP_MPI_API(Iallgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
ISVP_MPI_API(Ialltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                           MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Scatterv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm));
ISVP_MPI_API(Gatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                         MPI_Comm comm));
ISVP_MPI_API(Allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                            const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                            MPI_Comm comm));
ISVP_MPI_API(Alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                           const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
ISVP_MPI_API(Iscatterv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                           MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Igatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                          MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Iallgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Ialltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                            const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
ISVP_MPI_API(Ialltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request));
ISVP_MPI_API(Alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));

/* ---- topologies ----------------------------------------------------------- */
ISVP_MPI_API(Dims_create, (int nnodes, int ndims, int dims[]));
ISVP_MPI_API(Topo_test, (MPI_Comm comm, int *status));
ISVP_MPI_API(Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                           MPI_Comm *comm_cart));
ISVP_MPI_API(Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]));
ISVP_MPI_API(Cart_rank, (MPI_Comm comm, const int coords[], int *rank));
ISVP_MPI_API(Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest));
ISVP_MPI_API(Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]));
ISVP_MPI_API(Cartdim_get, (MPI_Comm comm, int *ndims));
ISVP_MPI_API(Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm));
ISVP_MPI_API(Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank));
ISVP_MPI_API(Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                            MPI_Comm *comm_graph));
ISVP_MPI_API(Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]));
ISVP_MPI_API(Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges));
ISVP_MPI_API(Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]));
ISVP_MPI_API(Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors));
ISVP_MPI_API(Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank));
ISVP_MPI_API(Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                 const int destinations[], const int *weights, MPI_Info info, int reorder,
                                 MPI_Comm *comm_dist_graph));
ISVP_MPI_API(Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[],
                                          const int *sourceweights, int outdegree, const int destinations[],
                                          const int *destweights, MPI_Info info, int reorder,
                                          MPI_Comm *comm_dist_graph));
ISVP_MPI_API(Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree, int *weighted));
ISVP_MPI_API(Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[], int *sourceweights,
                                    int maxoutdegree, int destinations[], int *destweights));

/* ---- info objects ---------------------------------------------------------- */
ISVP_MPI_API(Info_create, (MPI_Info * info));
ISVP_MPI_API(Info_free, (MPI_Info * info));
ISVP_MPI_API(Info_dup, (MPI_Info info, MPI_Info *newinfo));
ISVP_MPI_API(Info_set, (MPI_Info info, const char *key, const char *value));
ISVP_MPI_API(Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag));
ISVP_MPI_API(Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag));
ISVP_MPI_API(Info_delete, (MPI_Info info, const char *key));
ISVP_MPI_API(Info_get_nkeys, (MPI_Info info, int *nkeys));
ISVP_MPI_API(Info_get_nthkey, (MPI_Info info, int n, char *key));

/* ---- one-sided communication (unsupported) -------------------------------- */
ISVP_MPI_API(Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win));
ISVP_MPI_API(Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                            MPI_Win *win));
ISVP_MPI_API(Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                                   MPI_Win *win));
ISVP_MPI_API(Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win));
ISVP_MPI_API(Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr));
ISVP_MPI_API(Win_attach, (MPI_Win win, void *base, MPI_Aint size));
ISVP_MPI_API(Win_detach, (MPI_Win win, const void *base));
ISVP_MPI_API(Win_free, (MPI_Win * win));
ISVP_MPI_API(Win_get_group, (MPI_Win win, MPI_Group *group));
ISVP_MPI_API(Win_fence, (int assert_flags, MPI_Win win));
ISVP_MPI_API(Win_start, (MPI_Group group, int assert_flags, MPI_Win win));
ISVP_MPI_API(Win_complete, (MPI_Win win));
ISVP_MPI_API(Win_post, (MPI_Group group, int assert_flags, MPI_Win win));
ISVP_MPI_API(Win_wait, (MPI_Win win));
ISVP_MPI_API(Win_test, (MPI_Win win, int *flag));
ISVP_MPI_API(Win_lock, (int lock_type, int rank, int assert_flags, MPI_Win win));
ISVP_MPI_API(Win_unlock, (int rank, MPI_Win win));
ISVP_MPI_API(Win_lock_all, (int assert_flags, MPI_Win win));
ISVP_MPI_API(Win_unlock_all, (MPI_Win win));
ISVP_MPI_API(Win_flush, (int rank, MPI_Win win));
ISVP_MPI_API(Win_flush_all, (MPI_Win win));
ISVP_MPI_API(Win_flush_local, (int rank, MPI_Win win));
ISVP_MPI_API(Win_flush_local_all, (MPI_Win win));
ISVP_MPI_API(Win_sync, (MPI_Win win));
ISVP_MPI_API(Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler));
ISVP_MPI_API(Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag));
ISVP_MPI_API(Win_create_keyval, (MPI_Win_copy_attr_function * win_copy_attr_fn,
                                 MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                                 void *extra_state));
ISVP_MPI_API(Win_free_keyval, (int *win_keyval));
ISVP_MPI_API(Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val));
ISVP_MPI_API(Win_delete_attr, (MPI_Win win, int win_keyval));
ISVP_MPI_API(Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win));
ISVP_MPI_API(Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win));
ISVP_MPI_API(Accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                          MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win));
ISVP_MPI_API(Get_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                              void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                              MPI_Win win));
ISVP_MPI_API(Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                            MPI_Aint target_disp, MPI_Op op, MPI_Win win));
ISVP_MPI_API(Compare_and_swap, (const void *origin_addr, const void *compare_addr, void *result_addr,
                                MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win));
ISVP_MPI_API(Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                    MPI_Request *request));
ISVP_MPI_API(Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                    MPI_Request *request));

/* ---- dynamic processes (unsupported) --------------------------------------- */
ISVP_MPI_API(Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                          MPI_Comm *intercomm, int array_of_errcodes[]));
ISVP_MPI_API(Open_port, (MPI_Info info, char *port_name));
ISVP_MPI_API(Close_port, (const char *port_name));
ISVP_MPI_API(Comm_accept, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm));
ISVP_MPI_API(Comm_connect, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm));

/* ---- MPI-IO (unsupported) ----------------------------------------------------- */
ISVP_MPI_API(File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh));
ISVP_MPI_API(File_close, (MPI_File * fh));
ISVP_MPI_API(File_delete, (const char *filename, MPI_Info info));
ISVP_MPI_API(File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                             const char *datarep, MPI_Info info));
ISVP_MPI_API(File_read, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status));
ISVP_MPI_API(File_write, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status));
ISVP_MPI_API(File_read_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                            MPI_Status *status));
ISVP_MPI_API(File_write_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
                             MPI_Status *status));
ISVP_MPI_API(File_read_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status));
ISVP_MPI_API(File_write_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status));
ISVP_MPI_API(File_read_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                                MPI_Status *status));
ISVP_MPI_API(File_write_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype datatype, MPI_Status *status));
ISVP_MPI_API(File_get_size, (MPI_File fh, MPI_Offset *size));
ISVP_MPI_API(File_set_size, (MPI_File fh, MPI_Offset size));
ISVP_MPI_API(File_seek, (MPI_File fh, MPI_Offset offset, int whence));
ISVP_MPI_API(File_sync, (MPI_File fh));
ISVP_MPI_API(File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler));
ISVP_MPI_API(File_get_errhandler, (MPI_File file, MPI_Errhandler *errhandler));

#ifdef __cplusplus
}
#endif

#endif /* ISVP_MPI_H */
