/* Synchronous-mode sends (MPI 3.1 §3.4): MPI_Ssend, MPI_Issend and
 * MPI_Ssend_init complete only once a receive has matched the message;
 * standard sends complete at once (eager). Every check is about order of
 * events, never about how long something took: a rank that must not have
 * been released yet is asked (MPI_Test, MPI_Request_get_status) before the
 * peer is told to receive.
 *
 * Run: isvp run -n 3 --set topology.torus=3x1x1 -- mpi_ssend
 *      ... mpi_ssend head-to-head   (ranks 0 and 1 Ssend to each
 *      other before receiving: must end in the simulator's deadlock report)
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int rank = -1, size = 0;

enum { kGo = 900, kNote = 901, kTime = 902 };

/* Lets simulated time pass on this rank: every MPI_Iprobe that finds
 * nothing costs one PCIe round trip (nobody sends on kUnused). */
static void let_time_pass(int probes) {
    enum { kUnused = 999 };
    int flag = 0;
    for (int i = 0; i < probes; ++i) MPI_Iprobe(MPI_ANY_SOURCE, kUnused, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

static void send_int(int value, int to, int tag) {
    MPI_Send(&value, 1, MPI_INT, to, tag, MPI_COMM_WORLD);
}

static int receive_int(int from, int tag) {
    int value = -1;
    MPI_Recv(&value, 1, MPI_INT, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return value;
}

/* The request has not completed (and stays active: MPI_Request_get_status
 * does not free it); asked `times` times, each a round trip. */
static int still_pending(MPI_Request request, int times) {
    int pending = 1;
    for (int i = 0; i < times; ++i) {
        int flag = -1;
        MPI_Request_get_status(request, &flag, MPI_STATUS_IGNORE);
        pending = pending && flag == 0;
    }
    return pending;
}

/* Rank 0 sends at once; rank 1 first lets time pass, then receives and
 * tells rank 0 when it posted the receive. A synchronous send returns no
 * earlier than that; a standard (eager) send returns well before it. */
static void completion_time(int synchronous) {
    const int tag = synchronous ? 11 : 10;
    if (rank == 0) {
        const int data[4] = {1, 2, 3, 4};
        if (synchronous)
            MPI_Ssend(data, 4, MPI_INT, 1, tag, MPI_COMM_WORLD);
        else
            MPI_Send(data, 4, MPI_INT, 1, tag, MPI_COMM_WORLD);
        const double returned = MPI_Wtime();
        double posted = 0.0;
        MPI_Recv(&posted, 1, MPI_DOUBLE, 1, kTime, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (synchronous) {
            CHECK(returned >= posted);
        } else {
            CHECK(returned < posted);
        }
    } else if (rank == 1) {
        let_time_pass(50);
        int data[4] = {0, 0, 0, 0};
        const double posted = MPI_Wtime();
        MPI_Recv(data, 4, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(data[0] == 1 && data[3] == 4);
        MPI_Send(&posted, 1, MPI_DOUBLE, 0, kTime, MPI_COMM_WORLD);
    }
}

/* MPI_Issend: MPI_Test says "not yet" until rank 1 receives; the message
 * waits in rank 1's unexpected queue, and the receive that takes it from
 * there releases the sender. */
static void issend_test_until_received(void) {
    if (rank == 0) {
        int value = 42, flag = -1;
        MPI_Request request;
        MPI_Issend(&value, 1, MPI_INT, 1, 20, MPI_COMM_WORLD, &request);
        for (int i = 0; i < 10; ++i) {
            MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
            CHECK_INT(flag, 0);
        }
        CHECK(request != MPI_REQUEST_NULL);
        send_int(1, 1, kGo);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        CHECK(request == MPI_REQUEST_NULL);
    } else if (rank == 1) {
        receive_int(0, kGo); /* the message (sent before kGo) is already here, unexpected */
        CHECK_INT(receive_int(0, 20), 42);
    }
}

/* A receive posted before the message arrives releases the sender too. */
static void ssend_to_a_posted_receive(void) {
    if (rank == 0) {
        receive_int(1, kNote);
        const int value = 7;
        MPI_Ssend(&value, 1, MPI_INT, 1, 21, MPI_COMM_WORLD);
    } else if (rank == 1) {
        int value = -1;
        MPI_Request request;
        MPI_Irecv(&value, 1, MPI_INT, 0, 21, MPI_COMM_WORLD, &request);
        send_int(1, 0, kNote);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        CHECK_INT(value, 7);
    }
}

/* MPI_Probe and MPI_Iprobe see the message but do not receive it: the
 * sender stays blocked. A matched probe (MPI_Mprobe) neither; its
 * MPI_Mrecv does release it. */
static void probes_do_not_release(void) {
    if (rank == 0) {
        const int values[2] = {5, 6};
        MPI_Request requests[2];
        MPI_Issend(&values[0], 1, MPI_INT, 1, 22, MPI_COMM_WORLD, &requests[0]);
        MPI_Issend(&values[1], 1, MPI_INT, 1, 23, MPI_COMM_WORLD, &requests[1]);
        receive_int(1, kNote); /* rank 1 has probed tag 22 and matched-probed tag 23 */
        CHECK(still_pending(requests[0], 5));
        CHECK(still_pending(requests[1], 5));
        send_int(1, 1, kGo);
        receive_int(1, kNote); /* rank 1 has received tag 23 with MPI_Mrecv */
        int flag = -1;
        MPI_Request_get_status(requests[1], &flag, MPI_STATUS_IGNORE);
        CHECK_INT(flag, 1);
        CHECK(still_pending(requests[0], 3));
        send_int(1, 1, kGo);
        MPI_Status statuses[2];
        MPI_Waitall(2, requests, statuses);
    } else if (rank == 1) {
        int flag = 0, value = -1;
        MPI_Status status;
        MPI_Probe(0, 22, MPI_COMM_WORLD, &status);
        CHECK_INT(status.MPI_TAG, 22);
        MPI_Iprobe(0, 22, MPI_COMM_WORLD, &flag, &status);
        CHECK_INT(flag, 1);
        int count = -1;
        MPI_Get_count(&status, MPI_INT, &count);
        CHECK_INT(count, 1); /* the sequence number that trails the data is not part of it */
        MPI_Message message;
        MPI_Mprobe(0, 23, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE);
        send_int(1, 0, kNote);
        receive_int(0, kGo);
        MPI_Mrecv(&value, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
        CHECK_INT(value, 6);
        send_int(1, 0, kNote);
        receive_int(0, kGo);
        MPI_Recv(&value, 1, MPI_INT, 0, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_INT(value, 5);
    }
}

/* Several outstanding Issends to one peer: each completes with its own
 * acknowledgement. Rank 1 receives tags 32, 31, 30 in that (reverse)
 * order, then three messages of one tag (which match in the order sent);
 * after each receive rank 0 checks that exactly the matched sends are done. */
static void several_outstanding(void) {
    enum { kCount = 6 };
    const int order[kCount] = {2, 1, 0, 3, 4, 5}; /* request index received k-th */
    if (rank == 0) {
        int values[kCount];
        MPI_Request requests[kCount];
        for (int i = 0; i < kCount; ++i) {
            values[i] = 100 + i;
            const int tag = i < 3 ? 30 + i : 33;
            MPI_Issend(&values[i], 1, MPI_INT, 1, tag, MPI_COMM_WORLD, &requests[i]);
        }
        CHECK(still_pending(requests[0], 1) && still_pending(requests[5], 1));
        int done[kCount] = {0, 0, 0, 0, 0, 0};
        for (int k = 0; k < kCount; ++k) {
            send_int(k, 1, kGo);
            receive_int(1, kNote);
            done[order[k]] = 1;
            for (int i = 0; i < kCount; ++i) {
                int flag = -1;
                MPI_Request_get_status(requests[i], &flag, MPI_STATUS_IGNORE);
                if (flag != done[i])
                    fprintf(stderr, "after receive %d: request %d flag %d, expected %d\n", k, i, flag, done[i]);
                CHECK_INT(flag, done[i]);
            }
        }
        MPI_Status statuses[kCount];
        MPI_Waitall(kCount, requests, statuses);
        for (int i = 0; i < kCount; ++i) CHECK(requests[i] == MPI_REQUEST_NULL);
    } else if (rank == 1) {
        for (int k = 0; k < kCount; ++k) {
            receive_int(0, kGo);
            const int index = order[k];
            const int tag = index < 3 ? 30 + index : 33;
            CHECK_INT(receive_int(0, tag), 100 + index);
            send_int(1, 0, kNote);
        }
    }
}

/* MPI_Ssend_init, MPI_Start, MPI_Wait, twice: each start waits for its own receive. */
static void persistent_synchronous(void) {
    if (rank == 0) {
        int value = 0;
        MPI_Request request;
        MPI_Ssend_init(&value, 1, MPI_INT, 1, 40, MPI_COMM_WORLD, &request);
        for (int round = 0; round < 2; ++round) {
            value = 50 + round;
            MPI_Start(&request);
            CHECK(still_pending(request, 4));
            send_int(round, 1, kGo);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            CHECK(request != MPI_REQUEST_NULL); /* persistent: inactive, not freed */
        }
        MPI_Request_free(&request);
    } else if (rank == 1) {
        for (int round = 0; round < 2; ++round) {
            CHECK_INT(receive_int(0, kGo), round);
            CHECK_INT(receive_int(0, 40), 50 + round);
        }
    }
}

/* A synchronous send to oneself: released by one's own receive (posted
 * before, or after the send started). */
static void to_itself(void) {
    int in = -1, out = rank + 300, flag = -1;
    MPI_Request receive, send;
    MPI_Irecv(&in, 1, MPI_INT, rank, 50, MPI_COMM_WORLD, &receive);
    MPI_Ssend(&out, 1, MPI_INT, rank, 50, MPI_COMM_WORLD);
    MPI_Wait(&receive, MPI_STATUS_IGNORE);
    CHECK_INT(in, rank + 300);
    MPI_Issend(&out, 1, MPI_INT, rank, 51, MPI_COMM_WORLD, &send);
    MPI_Test(&send, &flag, MPI_STATUS_IGNORE);
    CHECK_INT(flag, 0);
    MPI_Recv(&in, 1, MPI_INT, rank, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Test(&send, &flag, MPI_STATUS_IGNORE);
    CHECK_INT(flag, 1);
}

/* MPI_Cancel of a synchronous send (MPI 3.1 §3.8.4): one nobody has
 * received is dropped at the receiver and completes as cancelled (the
 * receiver never sees it); one a receive has matched completes normally. */
static void cancel_synchronous_send(void) {
    if (rank == 0) {
        int value = 9;
        MPI_Request request;
        MPI_Status status;
        MPI_Issend(&value, 1, MPI_INT, 1, 60, MPI_COMM_WORLD, &request);
        CHECK_INT(MPI_Cancel(&request), MPI_SUCCESS);
        CHECK_INT(MPI_Wait(&request, &status), MPI_SUCCESS); /* rank 1 answers while it waits for kGo */
        int cancelled = -1;
        MPI_Test_cancelled(&status, &cancelled);
        CHECK_INT(cancelled, 1);
        /* A standard send (complete at once, eager) and a persistent one, both unmatched. */
        MPI_Isend(&value, 1, MPI_INT, 1, 70, MPI_COMM_WORLD, &request);
        CHECK_INT(MPI_Cancel(&request), MPI_SUCCESS);
        MPI_Wait(&request, &status);
        MPI_Test_cancelled(&status, &cancelled);
        CHECK_INT(cancelled, 1);
        MPI_Send_init(&value, 1, MPI_INT, 1, 71, MPI_COMM_WORLD, &request);
        MPI_Start(&request);
        MPI_Cancel(&request);
        MPI_Wait(&request, &status);
        MPI_Test_cancelled(&status, &cancelled);
        CHECK_INT(cancelled, 1);
        MPI_Start(&request); /* started again: delivered, not cancelled */
        MPI_Wait(&request, &status);
        MPI_Test_cancelled(&status, &cancelled);
        CHECK_INT(cancelled, 0);
        MPI_Request_free(&request);
        send_int(1, 1, kGo);
        /* A second one, received (matched) before the cancel arrives. */
        receive_int(1, kGo);
        MPI_Issend(&value, 1, MPI_INT, 1, 61, MPI_COMM_WORLD, &request);
        MPI_Cancel(&request);
        MPI_Wait(&request, &status);
        MPI_Test_cancelled(&status, &cancelled);
        CHECK_INT(cancelled, 0);
        /* A standard send the receiver matched before the cancel came: not cancelled. */
        MPI_Isend(&value, 1, MPI_INT, 1, 72, MPI_COMM_WORLD, &request);
        MPI_Cancel(&request);
        MPI_Wait(&request, &status);
        MPI_Test_cancelled(&status, &cancelled);
        CHECK_INT(cancelled, 0);
        /* Cancelling a send to itself before its receive is posted. */
        MPI_Issend(&value, 1, MPI_INT, 0, 62, MPI_COMM_WORLD, &request);
        MPI_Cancel(&request);
        MPI_Wait(&request, &status);
        MPI_Test_cancelled(&status, &cancelled);
        CHECK_INT(cancelled, 1);
        int flag = 1;
        MPI_Iprobe(0, 62, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK_INT(flag, 0);
    } else if (rank == 1) {
        receive_int(0, kGo);
        int flag = 1;
        MPI_Iprobe(0, 60, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK_INT(flag, 0); /* the cancelled messages are gone */
        MPI_Iprobe(0, 70, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK_INT(flag, 0);
        int got = 0, got71 = 0, got72 = 0;
        MPI_Recv(&got71, 1, MPI_INT, 0, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* the second start's */
        CHECK_INT(got71, 9);
        MPI_Iprobe(0, 71, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK_INT(flag, 0);
        MPI_Request receive[2];
        MPI_Irecv(&got, 1, MPI_INT, 0, 61, MPI_COMM_WORLD, &receive[0]);
        MPI_Irecv(&got72, 1, MPI_INT, 0, 72, MPI_COMM_WORLD, &receive[1]);
        send_int(1, 0, kGo);
        MPI_Waitall(2, receive, MPI_STATUSES_IGNORE);
        CHECK_INT(got, 9);
        CHECK_INT(got72, 9);
    }
}

/* A synchronous message of many network packets, of a length that is no
 * multiple of 4 (the sequence number trails the data), and one of a
 * non-contiguous datatype: the receiver gets exactly the data. */
static void large_and_derived(void) {
    enum { kBytes = (1 << 20) + 3, kInts = 1000 };
    if (rank == 0) {
        unsigned char* bytes = malloc(kBytes);
        for (int i = 0; i < kBytes; ++i) bytes[i] = (unsigned char)(i * 7);
        int strided[2 * kInts];
        for (int i = 0; i < 2 * kInts; ++i) strided[i] = i % 2 ? -1 : i / 2;
        MPI_Datatype every_other;
        MPI_Type_vector(kInts, 1, 2, MPI_INT, &every_other);
        MPI_Type_commit(&every_other);
        MPI_Request request;
        MPI_Issend(strided, 1, every_other, 2, 91, MPI_COMM_WORLD, &request);
        MPI_Ssend(bytes, kBytes, MPI_BYTE, 2, 90, MPI_COMM_WORLD);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        MPI_Type_free(&every_other);
        free(bytes);
    } else if (rank == 2) {
        unsigned char* bytes = malloc(kBytes + 8);
        memset(bytes, 0xEE, kBytes + 8);
        MPI_Status status;
        MPI_Recv(bytes, kBytes + 8, MPI_BYTE, 0, 90, MPI_COMM_WORLD, &status);
        int count = -1, same = 1;
        MPI_Get_count(&status, MPI_BYTE, &count);
        CHECK_INT(count, kBytes);
        for (int i = 0; i < kBytes; ++i) same = same && bytes[i] == (unsigned char)(i * 7);
        CHECK(same && bytes[kBytes] == 0xEE);
        int values[kInts + 1];
        values[kInts] = -2;
        MPI_Recv(values, kInts + 1, MPI_INT, 0, 91, MPI_COMM_WORLD, &status);
        MPI_Get_count(&status, MPI_INT, &count);
        CHECK_INT(count, kInts);
        for (int i = 0; i < kInts; ++i) same = same && values[i] == i;
        CHECK(same && values[kInts] == -2);
        free(bytes);
    }
}

/* Concatenates its operands (a user op: the collective always runs in
 * software, over internal messages): in-order fold of rank digits. */
static void append_digits(void* in, void* inout, int* count, MPI_Datatype* type) {
    (void)type;
    for (int i = 0; i < *count; ++i) ((int*)inout)[i] = ((int*)in)[i] * 10 + ((int*)inout)[i] % 10;
}

/* A rank blocked in MPI_Ssend keeps the software collective messages that
 * arrive meanwhile: rank 2 starts an MPI_Allreduce while rank 0 waits for
 * rank 1 to receive; everyone then completes the collective. */
static void collective_while_blocked(void) {
    if (rank == 0) {
        const int value = 77;
        MPI_Ssend(&value, 1, MPI_INT, 1, 70, MPI_COMM_WORLD);
    } else if (rank == 1) {
        let_time_pass(30);
        CHECK_INT(receive_int(0, 70), 77);
    }
    MPI_Op op;
    MPI_Op_create(append_digits, 0, &op);
    int in = rank + 1, out = -1;
    MPI_Allreduce(&in, &out, 1, MPI_INT, op, MPI_COMM_WORLD);
    int expected = 1;
    for (int r = 1; r < size; ++r) expected = expected * 10 + (r + 1) % 10;
    CHECK_INT(out, expected);
    MPI_Op_free(&op);
}

/* Both ranks Ssend first, then receive: nobody can ever receive, so the
 * job must end with the simulator's deadlock report. */
static void head_to_head(void) {
    if (rank > 1) return;
    const int peer = 1 - rank;
    int out = rank, in = -1;
    MPI_Ssend(&out, 1, MPI_INT, peer, 80, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, peer, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("head-to-head Ssend returned on rank %d: it must block\n", rank);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 3);
    if (argc > 1 && strcmp(argv[1], "head-to-head") == 0) {
        head_to_head();
        MPI_Finalize();
        return 1;
    }
    completion_time(0);
    completion_time(1);
    issend_test_until_received();
    ssend_to_a_posted_receive();
    probes_do_not_release();
    several_outstanding();
    persistent_synchronous();
    to_itself();
    cancel_synchronous_send();
    large_and_derived();
    collective_while_blocked();
    MPI_Finalize();
    return mpi_check_done("mpi_ssend", rank);
}
