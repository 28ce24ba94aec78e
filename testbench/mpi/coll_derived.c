/* Derived datatypes in the collectives: a strided vector of ints (gaps
 * between its blocks must stay untouched), a struct {char; double; int[2]}
 * with padding, an indexed type, and contiguous(3, MPI_INT). Send and
 * receive types may differ when their type signatures match (6 MPI_INT
 * sent, one vector received). Predefined ops on derived types made of one
 * predefined type (SUM on the vector and on contiguous(3, MPI_INT), MAX on
 * a vector of doubles), a user op on the struct, v-variants with zero
 * counts. Run on MPI_COMM_WORLD and an odd-sized split. */
#include <stddef.h>
#include <string.h>

#include "mpi_check.h"

#define GAP (-99)
#define MAX_RANKS 64

/* vector(3, 2, 4, MPI_INT): ints 0,1, 4,5, 8,9 of each 10-int element
 * (extent 10 ints after resizing). */
static MPI_Datatype vector_int;
enum { VECTOR_INTS = 10 };
static int vector_slot(int k) { return k / 2 * 4 + k % 2; } /* k-th data int of an element */

typedef struct {
    char tag;
    double weight;
    int ids[2];
} Record;
static MPI_Datatype record_type;
static MPI_Datatype triple_int; /* contiguous(3, MPI_INT) */
static MPI_Datatype vector_double; /* doubles 0, 2, 4, 6 of 7 */
static MPI_Datatype indexed_int;   /* ints 0 and 3..4 of 6 */

static const char* comm_name = "";

static void fail_at(const char* what, int index) {
    ++mpi_check_failures;
    fprintf(stderr, "FAIL rank %d: %s on %s: differs at %d\n", mpi_check_rank(), what, comm_name, index);
}

static int value(int rank, int element, int k) { return rank * 1000 + element * 10 + k; }

static Record record(int rank, int element) {
    Record r;
    memset(&r, 0, sizeof r);
    r.tag = (char)('a' + (rank + element) % 26);
    r.weight = rank * 0.5 + element;
    r.ids[0] = value(rank, element, 0);
    r.ids[1] = -value(rank, element, 1);
    return r;
}

static int same_record(Record a, Record b) {
    return a.tag == b.tag && a.weight == b.weight && a.ids[0] == b.ids[0] && a.ids[1] == b.ids[1];
}

/* Fills `count` vector elements with data (rank, element) and gaps with GAP. */
static void fill_vector(int* buffer, int count, int rank) {
    for (int i = 0; i < count * VECTOR_INTS; ++i) buffer[i] = GAP;
    for (int e = 0; e < count; ++e)
        for (int k = 0; k < 6; ++k) buffer[e * VECTOR_INTS + vector_slot(k)] = value(rank, e, k);
}

static void check_vector(const char* what, const int* buffer, int count, int rank, int element_base) {
    for (int e = 0; e < count; ++e)
        for (int i = 0; i < VECTOR_INTS; ++i) {
            int want = GAP;
            for (int k = 0; k < 6; ++k)
                if (vector_slot(k) == i) want = value(rank, element_base + e, k);
            if (buffer[e * VECTOR_INTS + i] != want) {
                fail_at(what, e * VECTOR_INTS + i);
                return;
            }
        }
}

static void make_types(void) {
    MPI_Datatype v;
    MPI_Type_vector(3, 2, 4, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, VECTOR_INTS * (MPI_Aint)sizeof(int), &vector_int);
    MPI_Type_free(&v);
    MPI_Type_commit(&vector_int);

    const int lengths[3] = {1, 1, 2};
    const MPI_Aint displacements[3] = {offsetof(Record, tag), offsetof(Record, weight), offsetof(Record, ids)};
    const MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Datatype s;
    MPI_Type_create_struct(3, lengths, displacements, types, &s);
    MPI_Type_create_resized(s, 0, sizeof(Record), &record_type);
    MPI_Type_free(&s);
    MPI_Type_commit(&record_type);

    MPI_Type_contiguous(3, MPI_INT, &triple_int);
    MPI_Type_commit(&triple_int);
    MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &vector_double);
    MPI_Type_commit(&vector_double);
    const int blocks[2] = {1, 2}, offsets[2] = {0, 3};
    MPI_Datatype x;
    MPI_Type_indexed(2, blocks, offsets, MPI_INT, &x);
    MPI_Type_create_resized(x, 0, 6 * (MPI_Aint)sizeof(int), &indexed_int);
    MPI_Type_free(&x);
    MPI_Type_commit(&indexed_int);
}

static void movement(MPI_Comm comm, int rank, int size) {
    int buffer[MAX_RANKS * VECTOR_INTS * 3], plain[MAX_RANKS * 6 * 3];
    const int root = size - 1;

    /* Bcast of 3 vector elements */
    fill_vector(buffer, 3, rank == root ? root : -1);
    MPI_Bcast(buffer, 3, vector_int, root, comm);
    check_vector("MPI_Bcast(vector)", buffer, 3, root, 0);

    /* Gather: 6 MPI_INT sent, one vector element received per rank */
    for (int k = 0; k < 6; ++k) plain[k] = value(rank, 0, k);
    for (int i = 0; i < size * VECTOR_INTS; ++i) buffer[i] = GAP;
    MPI_Gather(plain, 6, MPI_INT, buffer, 1, vector_int, 0, comm);
    if (rank == 0)
        for (int r = 0; r < size; ++r) check_vector("MPI_Gather(int -> vector)", buffer + r * VECTOR_INTS, 1, r, 0);

    /* Scatter: vector elements sent, 6 MPI_INT received */
    if (rank == 0)
        for (int r = 0; r < size; ++r) fill_vector(buffer + r * VECTOR_INTS, 1, r);
    MPI_Scatter(buffer, 1, vector_int, plain, 6, MPI_INT, 0, comm);
    for (int k = 0; k < 6; ++k)
        if (plain[k] != value(rank, 0, k)) fail_at("MPI_Scatter(vector -> int)", k);

    /* Allgather and Alltoall of records (padding in between) */
    Record mine[MAX_RANKS], all[MAX_RANKS];
    for (int j = 0; j < size; ++j) mine[j] = record(rank, j);
    MPI_Allgather(mine, 1, record_type, all, 1, record_type, comm);
    for (int r = 0; r < size; ++r)
        if (!same_record(all[r], record(r, 0))) fail_at("MPI_Allgather(struct)", r);
    MPI_Alltoall(mine, 1, record_type, all, 1, record_type, comm);
    for (int r = 0; r < size; ++r)
        if (!same_record(all[r], record(r, rank))) fail_at("MPI_Alltoall(struct)", r);

    /* Allgatherv / Gatherv / Scatterv of records with zero counts (every
     * third rank sends nothing) */
    int counts[MAX_RANKS], displs[MAX_RANKS], at = 0;
    for (int r = 0; r < size; ++r) {
        counts[r] = r % 3 == 2 ? 0 : 1 + r % 2;
        displs[r] = at;
        at += counts[r] + 1;
    }
    Record many[MAX_RANKS * 3];
    memset(many, 0, sizeof many);
    MPI_Allgatherv(mine, counts[rank], record_type, many, counts, displs, record_type, comm);
    for (int r = 0; r < size; ++r)
        for (int j = 0; j < counts[r]; ++j)
            if (!same_record(many[displs[r] + j], record(r, j))) fail_at("MPI_Allgatherv(struct)", r);
    memset(many, 0, sizeof many);
    MPI_Gatherv(mine, counts[rank], record_type, many, counts, displs, record_type, root, comm);
    if (rank == root)
        for (int r = 0; r < size; ++r)
            for (int j = 0; j < counts[r]; ++j)
                if (!same_record(many[displs[r] + j], record(r, j))) fail_at("MPI_Gatherv(struct)", r);
    if (rank == root)
        for (int r = 0; r < size; ++r)
            for (int j = 0; j < counts[r]; ++j) many[displs[r] + j] = record(r, j + 5);
    Record got[3];
    memset(got, 0, sizeof got);
    MPI_Scatterv(many, counts, displs, record_type, got, counts[rank], record_type, root, comm);
    for (int j = 0; j < counts[rank]; ++j)
        if (!same_record(got[j], record(rank, j + 5))) fail_at("MPI_Scatterv(struct)", j);

    /* Alltoallv with an indexed type: 3 ints (of 6) per element */
    int out[MAX_RANKS * 6], in[MAX_RANKS * 6], scounts[MAX_RANKS], sdispls[MAX_RANKS], rcounts[MAX_RANKS],
        rdispls[MAX_RANKS];
    for (int j = 0; j < size; ++j) {
        scounts[j] = (rank + j) % 2;
        sdispls[j] = j;
        rcounts[j] = (rank + j) % 2 * 3;
        rdispls[j] = j * 3;
        for (int k = 0; k < 6; ++k) out[j * 6 + k] = value(rank, j, k);
        for (int k = 0; k < 3; ++k) in[j * 3 + k] = GAP;
    }
    MPI_Alltoallv(out, scounts, sdispls, indexed_int, in, rcounts, rdispls, MPI_INT, comm);
    for (int j = 0; j < size; ++j) {
        const int sent = (rank + j) % 2;
        const int want[3] = {sent ? value(j, rank, 0) : GAP, sent ? value(j, rank, 3) : GAP,
                             sent ? value(j, rank, 4) : GAP};
        for (int k = 0; k < 3; ++k)
            if (in[j * 3 + k] != want[k]) fail_at("MPI_Alltoallv(indexed -> int)", j * 3 + k);
    }
}

static void record_combine(void* in, void* inout, int* len, MPI_Datatype* type) {
    CHECK(*type == record_type);
    const Record* a = (const Record*)in;
    Record* b = (Record*)inout;
    for (int i = 0; i < *len; ++i) {
        b[i].weight += a[i].weight;
        if (a[i].ids[0] > b[i].ids[0]) b[i].ids[0] = a[i].ids[0];
        b[i].ids[1] += a[i].ids[1];
        b[i].tag = a[i].tag < b[i].tag ? a[i].tag : b[i].tag;
    }
}

static void reductions(MPI_Comm comm, int rank, int size) {
    int send[MAX_RANKS * VECTOR_INTS * 2], recv[MAX_RANKS * VECTOR_INTS * 2];
    const int n = 2;

    /* SUM on the strided vector: gaps of recvbuf untouched */
    fill_vector(send, n, rank);
    fill_vector(recv, n, -1);
    MPI_Allreduce(send, recv, n, vector_int, MPI_SUM, comm);
    for (int e = 0; e < n; ++e)
        for (int i = 0; i < VECTOR_INTS; ++i) {
            int want = GAP;
            for (int k = 0; k < 6; ++k)
                if (vector_slot(k) == i) {
                    want = 0;
                    for (int r = 0; r < size; ++r) want += value(r, e, k);
                }
            if (recv[e * VECTOR_INTS + i] != want) fail_at("MPI_Allreduce(SUM, vector)", e * VECTOR_INTS + i);
        }

    /* SUM on contiguous(3, MPI_INT): Allreduce, Reduce_scatter_block, Scan */
    int triple[MAX_RANKS * 3 * 2], result[MAX_RANKS * 3 * 2];
    for (int i = 0; i < size * 3 * 2; ++i) triple[i] = value(rank, i, 0);
    MPI_Allreduce(triple, result, 2, triple_int, MPI_SUM, comm);
    for (int i = 0; i < 6; ++i) {
        int want = 0;
        for (int r = 0; r < size; ++r) want += value(r, i, 0);
        if (result[i] != want) fail_at("MPI_Allreduce(SUM, contiguous)", i);
    }
    MPI_Reduce_scatter_block(triple, result, 2, triple_int, MPI_SUM, comm);
    for (int i = 0; i < 6; ++i) {
        int want = 0;
        for (int r = 0; r < size; ++r) want += value(r, rank * 6 + i, 0);
        if (result[i] != want) fail_at("MPI_Reduce_scatter_block(SUM, contiguous)", i);
    }
    MPI_Scan(triple, result, 2, triple_int, MPI_SUM, comm);
    for (int i = 0; i < 6; ++i) {
        int want = 0;
        for (int r = 0; r <= rank; ++r) want += value(r, i, 0);
        if (result[i] != want) fail_at("MPI_Scan(SUM, contiguous)", i);
    }

    /* MAX on a vector of doubles, reduced to the last rank */
    double dsend[MAX_RANKS * 8], drecv[MAX_RANKS * 8];
    for (int i = 0; i < 7 * 3; ++i) {
        dsend[i] = (double)((rank * 37 + i * 11) % 17) - 0.25 * rank;
        drecv[i] = -1e300;
    }
    MPI_Reduce(dsend, drecv, 3, vector_double, MPI_MAX, size - 1, comm);
    if (rank == size - 1)
        for (int i = 0; i < 7 * 3; ++i) {
            double want = -1e300;
            if (i % 7 % 2 == 0)
                for (int r = 0; r < size; ++r) {
                    const double v = (double)((r * 37 + i * 11) % 17) - 0.25 * r;
                    if (v > want) want = v;
                }
            if (drecv[i] != want) fail_at("MPI_Reduce(MAX, vector of doubles)", i);
        }

    /* A user op on the struct type */
    MPI_Op op;
    MPI_Op_create(record_combine, 1, &op);
    Record mine[3], total[3];
    for (int i = 0; i < 3; ++i) mine[i] = record(rank, i);
    MPI_Allreduce(mine, total, 3, record_type, op, comm);
    for (int i = 0; i < 3; ++i) {
        Record want = record(0, i);
        for (int r = 1; r < size; ++r) {
            Record next = record(r, i);
            record_combine(&want, &next, &(int){1}, &record_type);
            want = next;
        }
        if (!same_record(total[i], want)) fail_at("MPI_Allreduce(user op, struct)", i);
    }
    MPI_Op_free(&op);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int world_rank, world_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    CHECK(world_size <= MAX_RANKS);
    make_types();

    MPI_Comm odd;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 3 == 0, -world_rank, &odd);
    const MPI_Comm comms[2] = {MPI_COMM_WORLD, odd};
    const char* names[2] = {"MPI_COMM_WORLD", "odd split, reversed keys"};
    for (int c = 0; c < 2; ++c) {
        int rank, size;
        MPI_Comm_rank(comms[c], &rank);
        MPI_Comm_size(comms[c], &size);
        comm_name = names[c];
        movement(comms[c], rank, size);
        reductions(comms[c], rank, size);
    }
    MPI_Comm_set_errhandler(odd, MPI_ERRORS_RETURN);
    CHECK_INT(mpi_error_class(MPI_Barrier(odd)), MPI_SUCCESS);
    MPI_Comm_free(&odd);
    MPI_Type_free(&vector_int);
    MPI_Type_free(&record_type);
    MPI_Type_free(&triple_int);
    MPI_Type_free(&vector_double);
    MPI_Type_free(&indexed_int);
    MPI_Finalize();
    return mpi_check_done("coll_derived", world_rank);
}
