// Point-to-point, in C++: blocking and nonblocking sends and receives,
// wildcards, MPI_PROC_NULL, the standard's ordering (non-overtaking per
// sender, posted receives matched in posting order, blocking receives
// after nonblocking ones), probes, matched probes, completion calls,
// persistent requests, cancel, truncation errors, self messages,
// communicator isolation, a 1 MiB message.
// Run: isvp run -n 4 --set topology.torus=2x2x1 -- mpi_point_to_point
#include <cstring>
#include <numeric>
#include <vector>

#include "mpi_check.h"

namespace {

int rank = -1, size = 0;

/// Rank `from` tells rank `to` that it may go on (posting order tests).
void signal_go(int from, int to, int tag = 999) {
    int go = 1;
    if (rank == from) MPI_Send(&go, 1, MPI_INT, to, tag, MPI_COMM_WORLD);
    if (rank == to) MPI_Recv(&go, 1, MPI_INT, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

void ring() {
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int sent = rank * 100, received = -1;
    MPI_Status status;
    MPI_Sendrecv(&sent, 1, MPI_INT, right, 4, &received, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &status);
    CHECK_INT(received, left * 100);
    CHECK_INT(status.MPI_SOURCE, left);
    CHECK_INT(status.MPI_TAG, 4);
    int value = rank;
    for (int step = 0; step < size; ++step)
        MPI_Sendrecv_replace(&value, 1, MPI_INT, right, 5, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_INT(value, rank);
}

void wildcards() {
    // On its own communicator: MPI_ANY_TAG would rightly take later phases' messages.
    MPI_Comm wild;
    MPI_Comm_dup(MPI_COMM_WORLD, &wild);
    if (rank == 0) {
        std::vector<bool> seen(static_cast<std::size_t>(size), false);
        for (int i = 1; i < size; ++i) {
            int data[3] = {0, 0, 0};
            MPI_Status status;
            MPI_Recv(data, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, wild, &status);
            int count = -1;
            MPI_Get_count(&status, MPI_INT, &count);
            CHECK(status.MPI_SOURCE > 0 && status.MPI_SOURCE < size);
            CHECK_INT(status.MPI_TAG, 20 + status.MPI_SOURCE);
            CHECK_INT(count, status.MPI_SOURCE % 3 + 1);
            CHECK_INT(data[0], status.MPI_SOURCE);
            seen[static_cast<std::size_t>(status.MPI_SOURCE)] = true;
        }
        for (int i = 1; i < size; ++i) CHECK(seen[static_cast<std::size_t>(i)]);
    } else {
        const int data[3] = {rank, rank, rank};
        MPI_Send(data, rank % 3 + 1, MPI_INT, 0, 20 + rank, wild);
    }
    MPI_Comm_free(&wild);
    // MPI_PROC_NULL: completes at once, status names it.
    int value = 5;
    MPI_Status status;
    CHECK(MPI_Send(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Recv(&value, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &status) == MPI_SUCCESS);
    int count = -1;
    MPI_Get_count(&status, MPI_INT, &count);
    CHECK(status.MPI_SOURCE == MPI_PROC_NULL && status.MPI_TAG == MPI_ANY_TAG && count == 0 && value == 5);
}

void ordering() {
    // Non-overtaking: 200 messages of one sender and tag arrive in order,
    // interleaved with another tag that is received afterwards.
    if (rank == 1) {
        for (int i = 0; i < 200; ++i) {
            MPI_Send(&i, 1, MPI_INT, 0, 30, MPI_COMM_WORLD);
            const int odd = -i;
            if (i % 2) MPI_Send(&odd, 1, MPI_INT, 0, 31, MPI_COMM_WORLD);
        }
    } else if (rank == 0) {
        for (int i = 0; i < 200; ++i) {
            int value = -1;
            MPI_Recv(&value, 1, MPI_INT, 1, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_INT(value, i);
        }
        for (int i = 1; i < 200; i += 2) {
            int value = 0;
            MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_INT(value, -i);
        }
    }
    // Posted receives match in posting order: a wildcard receive posted
    // first takes the first message even though a specific one matches too.
    int first = 0, second = 0, third = 0;
    MPI_Request requests[2];
    if (rank == 0) {
        MPI_Irecv(&first, 1, MPI_INT, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &requests[0]);
        MPI_Irecv(&second, 1, MPI_INT, 2, 40, MPI_COMM_WORLD, &requests[1]);
    }
    signal_go(0, 2);
    if (rank == 2)
        for (int value : {10, 20, 30}) MPI_Send(&value, 1, MPI_INT, 0, 40, MPI_COMM_WORLD);
    if (rank == 0) {
        // A blocking receive posted after them gets the third.
        MPI_Recv(&third, 1, MPI_INT, 2, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        CHECK(first == 10 && second == 20 && third == 30);
        CHECK(requests[0] == MPI_REQUEST_NULL && requests[1] == MPI_REQUEST_NULL);
    }
}

void completion_calls() {
    if (rank == 0) {
        // Waitany returns each completed request once, then MPI_UNDEFINED.
        int values[3] = {0, 0, 0};
        MPI_Request requests[3];
        for (int i = 0; i < 3; ++i) MPI_Irecv(&values[i], 1, MPI_INT, i + 1, 50, MPI_COMM_WORLD, &requests[i]);
        signal_go(0, 3);
        int done = 0;
        for (;;) {
            int index = -2;
            MPI_Status status;
            MPI_Waitany(3, requests, &index, &status);
            if (index == MPI_UNDEFINED) break;
            CHECK_INT(status.MPI_SOURCE, index + 1);
            CHECK(requests[index] == MPI_REQUEST_NULL);
            ++done;
        }
        CHECK_INT(done, 3);
        CHECK(values[0] == 1 && values[1] == 2 && values[2] == 3);
        // Test polls until the message is there; simulated time advances meanwhile.
        int value = 0, flag = 0, polls = 0;
        MPI_Request request;
        MPI_Irecv(&value, 1, MPI_INT, 1, 51, MPI_COMM_WORLD, &request);
        signal_go(0, 1, 998);
        const double start = MPI_Wtime();
        while (!flag) {
            MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
            ++polls;
        }
        CHECK(value == 51 && polls >= 1 && MPI_Wtime() > start && request == MPI_REQUEST_NULL);
        // Testall / Testsome over two receives.
        int a = 0, b = 0, outcount = 0, indices[2];
        MPI_Request pair[2];
        MPI_Irecv(&a, 1, MPI_INT, 2, 52, MPI_COMM_WORLD, &pair[0]);
        MPI_Irecv(&b, 1, MPI_INT, 2, 53, MPI_COMM_WORLD, &pair[1]);
        signal_go(0, 2, 997);
        flag = 0;
        while (!flag) MPI_Testall(2, pair, &flag, MPI_STATUSES_IGNORE);
        CHECK(a == 52 && b == 53);
        MPI_Testsome(2, pair, &outcount, indices, MPI_STATUSES_IGNORE);
        CHECK_INT(outcount, MPI_UNDEFINED);
    } else {
        signal_go(0, 3);
        if (rank <= 3) {
            const int value = rank;
            MPI_Send(&value, 1, MPI_INT, 0, 50, MPI_COMM_WORLD);
        }
        if (rank == 1) {
            signal_go(0, 1, 998);
            const int value = 51;
            MPI_Send(&value, 1, MPI_INT, 0, 51, MPI_COMM_WORLD);
        }
        if (rank == 2) {
            signal_go(0, 2, 997);
            const int x = 52, y = 53;
            MPI_Request pair[2];
            MPI_Isend(&y, 1, MPI_INT, 0, 53, MPI_COMM_WORLD, &pair[1]);
            MPI_Isend(&x, 1, MPI_INT, 0, 52, MPI_COMM_WORLD, &pair[0]);
            int outcount = 0, indices[2];
            MPI_Waitsome(2, pair, &outcount, indices, MPI_STATUSES_IGNORE);
            CHECK(outcount >= 1);
            MPI_Waitall(2, pair, MPI_STATUSES_IGNORE);
        }
    }
}

void probes() {
    if (rank == 1) {
        std::vector<int> data(37);
        std::iota(data.begin(), data.end(), 0);
        MPI_Send(data.data(), 37, MPI_INT, 0, 60, MPI_COMM_WORLD);
        MPI_Send(data.data(), 5, MPI_INT, 0, 61, MPI_COMM_WORLD);
        MPI_Send(data.data(), 2, MPI_INT, 0, 62, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Status status;
        MPI_Probe(MPI_ANY_SOURCE, 60, MPI_COMM_WORLD, &status);
        int count = 0;
        MPI_Get_count(&status, MPI_INT, &count);
        CHECK(count == 37 && status.MPI_SOURCE == 1);
        std::vector<int> data(static_cast<std::size_t>(count));
        MPI_Recv(data.data(), count, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(data[36] == 36);
        int flag = 0;
        while (!flag) MPI_Iprobe(1, 61, MPI_COMM_WORLD, &flag, &status);
        MPI_Get_count(&status, MPI_INT, &count);
        CHECK_INT(count, 5);
        // A probe does not receive: the message is still there.
        MPI_Iprobe(1, 61, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(flag == 1);
        MPI_Recv(data.data(), 5, MPI_INT, 1, 61, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        // Matched probe: the message is taken out for MPI_Mrecv.
        MPI_Message message;
        MPI_Mprobe(1, 62, MPI_COMM_WORLD, &message, &status);
        MPI_Iprobe(1, 62, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(flag == 0);
        int pair[2] = {-1, -1};
        MPI_Mrecv(pair, 2, MPI_INT, &message, &status);
        CHECK(pair[0] == 0 && pair[1] == 1 && message == MPI_MESSAGE_NULL);
    }
}

void persistent_and_cancel() {
    if (rank == 0 || rank == 1) {
        const int peer = 1 - rank;
        int out = 0, in = -1;
        MPI_Request requests[2];
        MPI_Send_init(&out, 1, MPI_INT, peer, 70, MPI_COMM_WORLD, &requests[0]);
        MPI_Recv_init(&in, 1, MPI_INT, peer, 70, MPI_COMM_WORLD, &requests[1]);
        for (int round = 0; round < 3; ++round) {
            out = rank * 10 + round;
            MPI_Startall(2, requests);
            MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
            CHECK_INT(in, peer * 10 + round);
            CHECK(requests[0] != MPI_REQUEST_NULL);  // persistent requests stay
        }
        MPI_Request_free(&requests[0]);
        MPI_Request_free(&requests[1]);
        CHECK(requests[0] == MPI_REQUEST_NULL);
    }
    // A receive nobody sends to can be cancelled.
    int never = 0, flag = 0;
    MPI_Request request;
    MPI_Status status;
    MPI_Irecv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 71, MPI_COMM_WORLD, &request);
    MPI_Cancel(&request);
    MPI_Wait(&request, &status);
    MPI_Test_cancelled(&status, &flag);
    CHECK(flag == 1);
    // A send to itself.
    int self = rank + 1000, back = 0;
    MPI_Isend(&self, 1, MPI_INT, rank, 72, MPI_COMM_WORLD, &request);
    MPI_Recv(&back, 1, MPI_INT, rank, 72, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    CHECK_INT(back, rank + 1000);
}

void truncation() {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 1) {
        const int data[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        for (int i = 0; i < 3; ++i) MPI_Send(data, 10, MPI_INT, 0, 80, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int small[5] = {0};
        MPI_Status status;
        CHECK_INT(mpi_error_class(MPI_Recv(small, 5, MPI_INT, 1, 80, MPI_COMM_WORLD, &status)), MPI_ERR_TRUNCATE);
        CHECK(small[4] == 5);
        MPI_Request request;
        MPI_Irecv(small, 5, MPI_INT, 1, 80, MPI_COMM_WORLD, &request);
        CHECK_INT(mpi_error_class(MPI_Wait(&request, &status)), MPI_ERR_TRUNCATE);
        MPI_Request two[2];
        int fine[10];
        MPI_Irecv(small, 5, MPI_INT, 1, 80, MPI_COMM_WORLD, &two[0]);
        MPI_Irecv(fine, 10, MPI_INT, MPI_PROC_NULL, 80, MPI_COMM_WORLD, &two[1]);
        MPI_Status statuses[2];
        CHECK_INT(mpi_error_class(MPI_Waitall(2, two, statuses)), MPI_ERR_IN_STATUS);
        CHECK_INT(statuses[0].MPI_ERROR, MPI_ERR_TRUNCATE);
        CHECK_INT(statuses[1].MPI_ERROR, MPI_SUCCESS);
        MPI_Request bogus = 12345;
        CHECK_INT(mpi_error_class(MPI_Wait(&bogus, MPI_STATUS_IGNORE)), MPI_ERR_REQUEST);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

void isolation_and_large() {
    // The same (source, tag) on two communicators never cross.
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 1) {
        const int on_world = 1, on_dup = 2;
        MPI_Send(&on_dup, 1, MPI_INT, 0, 90, dup);
        MPI_Send(&on_world, 1, MPI_INT, 0, 90, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int value = 0;
        // From rank 1 only: ranks 2 and 3 may already be in many_to_many,
        // whose world messages an ANY_SOURCE receive could rightly take.
        // Rank 1's later messages cannot overtake this one (same source).
        MPI_Recv(&value, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_INT(value, 1);
        MPI_Recv(&value, 1, MPI_INT, 1, 90, dup, MPI_STATUS_IGNORE);
        CHECK_INT(value, 2);
    }
    MPI_Comm_free(&dup);
    // 1 MiB both ways between ranks 0 and 3 (many network packets each).
    if (rank == 0 || rank == 3) {
        const std::size_t n = 1 << 17;
        std::vector<double> out(n), in(n, -1.0);
        for (std::size_t i = 0; i < n; ++i) out[i] = rank * 1e6 + static_cast<double>(i);
        const int peer = 3 - rank;
        MPI_Request requests[2];
        MPI_Irecv(in.data(), static_cast<int>(n), MPI_DOUBLE, peer, 91, MPI_COMM_WORLD, &requests[0]);
        MPI_Isend(out.data(), static_cast<int>(n), MPI_DOUBLE, peer, 91, MPI_COMM_WORLD, &requests[1]);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        bool same = true;
        for (std::size_t i = 0; i < n; ++i) same = same && in[i] == peer * 1e6 + static_cast<double>(i);
        CHECK(same);
    }
}

// Every rank sends 8 messages of different sizes (0 .. ~20 KB, several
// network packets for the large ones) to every rank, itself included; all
// receives are posted first with MPI_ANY_SOURCE per tag, completed by a
// Waitsome loop; contents and statuses are checked.
void many_to_many() {
    const int messages = 8;
    auto length = [](int from, int to, int k) { return ((from * 7 + to * 3 + k * 5) % 11) * 517 * (k % 3); };
    auto value = [](int from, int to, int k, int i) { return from * 1000000 + to * 10000 + k * 1000 + i % 1000; };
    std::vector<std::vector<int>> incoming(static_cast<std::size_t>(size * messages));
    std::vector<MPI_Request> requests;
    for (int from = 0; from < size; ++from)
        for (int k = 0; k < messages; ++k) {
            auto& buffer = incoming[static_cast<std::size_t>(from * messages + k)];
            buffer.assign(static_cast<std::size_t>(length(from, rank, k)) + 1, -1);
            requests.emplace_back();
            MPI_Irecv(buffer.data(), static_cast<int>(buffer.size()), MPI_INT, from, 100 + k, MPI_COMM_WORLD,
                      &requests.back());
        }
    std::vector<std::vector<int>> outgoing;
    for (int to = 0; to < size; ++to)
        for (int k = 0; k < messages; ++k) {
            std::vector<int> data(static_cast<std::size_t>(length(rank, to, k)));
            for (std::size_t i = 0; i < data.size(); ++i) data[i] = value(rank, to, k, static_cast<int>(i));
            outgoing.push_back(std::move(data));
            requests.emplace_back();
            MPI_Isend(outgoing.back().data(), static_cast<int>(outgoing.back().size()), MPI_INT, to, 100 + k,
                      MPI_COMM_WORLD, &requests.back());
        }
    const int total = static_cast<int>(requests.size());
    std::vector<int> indices(requests.size());
    std::vector<MPI_Status> statuses(requests.size());
    int done = 0;
    for (;;) {
        int outcount = 0;
        MPI_Waitsome(total, requests.data(), &outcount, indices.data(), statuses.data());
        if (outcount == MPI_UNDEFINED) break;
        for (int j = 0; j < outcount; ++j) {
            const int index = indices[static_cast<std::size_t>(j)];
            if (index >= size * messages) continue;  // a send
            const int from = index / messages, k = index % messages;
            int count = -1;
            MPI_Get_count(&statuses[static_cast<std::size_t>(j)], MPI_INT, &count);
            CHECK_INT(count, length(from, rank, k));
            CHECK_INT(statuses[static_cast<std::size_t>(j)].MPI_SOURCE, from);
            const auto& buffer = incoming[static_cast<std::size_t>(index)];
            bool same = buffer[static_cast<std::size_t>(count)] == -1;
            for (int i = 0; i < count; ++i)
                same = same && buffer[static_cast<std::size_t>(i)] == value(from, rank, k, i);
            CHECK(same);
            ++done;
        }
    }
    CHECK_INT(done, size * messages);
}

}  // namespace

int main(int argc, char** argv) {
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK_INT(provided, MPI_THREAD_FUNNELED);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 4);
    ring();
    wildcards();
    ordering();
    completion_calls();
    probes();
    persistent_and_cancel();
    truncation();
    isolation_and_large();
    many_to_many();
    MPI_Finalize();
    return mpi_check_done("mpi_point_to_point", rank);
}
