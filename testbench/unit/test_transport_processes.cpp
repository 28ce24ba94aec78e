// Guest processes and shared memory: output, statuses, termination,
// environment, cleanup (no SystemC). Output labels: test_transport_output.cpp.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "isvp/guest_processes.h"
#include "isvp/shared_memory.h"

using namespace isvp::transport;

namespace {

struct Exit {
    int rank;                 ///< who
    int status;               ///< exit code or 128 + signal
    std::string description;  ///< as reported
};

/// Runs the event loop until every child exited and its output closed.
void drain(boost::asio::io_context& io, const GuestProcesses& processes) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((!processes.all_exited() || !processes.output_closed()) && std::chrono::steady_clock::now() < deadline)
        io.run_one_for(std::chrono::milliseconds(10));
}

}  // namespace

TEST_CASE("guest processes: output lines labelled with the rank, statuses reported") {
    boost::asio::io_context io;
    std::ostringstream out;
    std::ostringstream err;
    std::vector<Exit> exits;
    GuestProcesses processes(io, out, err, [&](int rank, int status, const std::string& description) {
        exits.push_back({rank, status, description});
    });
    processes.label_output(OutputLabel::Rank);
    processes.start(0, {"/bin/sh", "-c", "echo one; echo two; printf tail"}, {});
    processes.start(1, {"/bin/sh", "-c", "echo oops >&2; exit 3"}, {});
    drain(io, processes);
    CHECK(out.str() == "[0] one\n[0] two\n[0] tail\n");
    CHECK(err.str() == "[1] oops\n");
    CHECK(processes.status(0) == 0);
    CHECK(processes.status(1) == 3);
    REQUIRE(exits.size() == 2);
    for (const Exit& exit : exits)
        if (exit.rank == 1) CHECK(exit.description == "exited with status 3");
}

TEST_CASE("guest processes: a crash is 128 + signal, described by name") {
    boost::asio::io_context io;
    std::ostringstream out;
    std::vector<Exit> exits;
    GuestProcesses processes(io, out, out, [&](int rank, int status, const std::string& description) {
        exits.push_back({rank, status, description});
    });
    processes.start(0, {"/bin/sh", "-c", "kill -ABRT $$"}, {});
    drain(io, processes);
    CHECK(processes.status(0) == 128 + SIGABRT);
    REQUIRE(exits.size() == 1);
    CHECK_THAT(exits[0].description, Catch::StartsWith("killed by signal 6 (Aborted"));
}

TEST_CASE("guest processes: exactly the given environment, and a missing program exits 127") {
    boost::asio::io_context io;
    std::ostringstream out;
    std::ostringstream err;
    GuestProcesses processes(io, out, err, {});
    processes.start(0, {"/bin/sh", "-c", "echo $ISVP_RANK-$HOME-"}, {"ISVP_RANK=7"});
    processes.start(1, {"/nonexistent/program"}, {});
    drain(io, processes);
    CHECK(out.str() == "7--\n");
    CHECK(processes.status(1) == 127);
    CHECK_THAT(err.str(), Catch::Contains("isvp: cannot run '/nonexistent/program'"));
}

TEST_CASE("guest processes: terminate sends SIGTERM, then SIGKILL after the grace period") {
    boost::asio::io_context io;
    std::ostringstream out;
    GuestProcesses processes(io, out, out, {});
    processes.start(0, {"/bin/sh", "-c", "echo ready; exec sleep 30"}, {});
    processes.start(1, {"/bin/sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"}, {});
    const auto start = std::chrono::steady_clock::now();
    while (out.str().size() < 2 * std::string("ready\n").size()) io.run_one_for(std::chrono::milliseconds(10));
    processes.terminate(std::chrono::milliseconds(200));
    drain(io, processes);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(processes.status(0) == 128 + SIGTERM);
    CHECK(processes.status(1) == 128 + SIGKILL);
    CHECK(seconds < 5.0);
}

TEST_CASE("guest processes: what a guest forks is ended with its process group, also after the guest exited") {
    boost::asio::io_context io;
    std::ostringstream out;
    GuestProcesses processes(io, out, out, {});
    // The guest starts a background process (in its group) and exits at once.
    processes.start(0, {"/bin/sh", "-c", "sleep 30 & echo child=$!; exit 0"}, {});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((processes.running(0) || out.str().find('\n') == std::string::npos) &&
           std::chrono::steady_clock::now() < deadline)
        io.run_one_for(std::chrono::milliseconds(10));
    REQUIRE(processes.status(0) == 0);
    const pid_t child = static_cast<pid_t>(std::stoi(out.str().substr(out.str().find('=') + 1)));
    CHECK(processes.lingering() == std::vector<int>{0});
    processes.terminate(std::chrono::milliseconds(200));
    // The background process is not our child: it ends (reaped by init or a
    // subreaper, or a zombie until then), and the group empties.
    while (!processes.lingering().empty() && std::chrono::steady_clock::now() < deadline)
        io.run_one_for(std::chrono::milliseconds(10));
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string line;
    std::getline(stat, line);
    const bool ended = line.empty() || line.substr(line.rfind(')') + 2, 1) == "Z";
    CHECK(ended);
    if (!ended) ::kill(child, SIGKILL);
}

TEST_CASE("guest processes: the destructor kills and reaps what still runs") {
    pid_t pid = -1;
    {
        boost::asio::io_context io;
        std::ostringstream out;
        GuestProcesses processes(io, out, out, {});
        processes.start(0, {"/bin/sh", "-c", "trap '' TERM; exec sleep 30"}, {});
        pid = processes.pid(0);
        REQUIRE(processes.running(0));
    }
    CHECK(::kill(pid, 0) != 0);  // gone and reaped
}

TEST_CASE("shared memory: a created segment is shared, zero-filled, and removed with its creator") {
    const std::string name = "isvp-unit-" + std::to_string(::getpid()) + "-segment";
    {
        SharedMemorySegment created = SharedMemorySegment::create(name, 8192);
        CHECK(SharedMemorySegment::exists(name));
        CHECK(created.data()[8191] == 0);
        SharedMemorySegment opened = SharedMemorySegment::open(name, 8192);
        opened.data()[17] = 42;
        CHECK(created.data()[17] == 42);
        CHECK_THROWS_WITH(SharedMemorySegment::open(name, 16384), Catch::Contains("holds 8192 bytes"));
        CHECK_THROWS_WITH(SharedMemorySegment::create(name, 4096), Catch::Contains("cannot create segment"));
    }
    CHECK_FALSE(SharedMemorySegment::exists(name));
    CHECK_THROWS_WITH(SharedMemorySegment::open(name, 4096), Catch::Contains("cannot open segment"));
    CHECK_THROWS_WITH(SharedMemorySegment::create("a/b", 4096), Catch::Contains("bad segment name"));
}
