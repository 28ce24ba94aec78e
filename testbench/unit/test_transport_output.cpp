// Guest output as mpirun passes it on (GuestProcesses, no SystemC):
// unlabelled byte for byte by default, "[rank] " (-l) or Open MPI's
// "[1,rank]<stdout>:" (--tag-output); stdout and stderr apart; whole lines,
// so lines of different ranks never mix.
#include <catch2/catch.hpp>

#include <chrono>
#include <sstream>
#include <string>

#include <boost/asio/io_context.hpp>

#include "isvp/guest_processes.h"

using namespace isvp::transport;

namespace {

void drain(boost::asio::io_context& io, const GuestProcesses& processes) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while ((!processes.all_exited() || !processes.output_closed()) && std::chrono::steady_clock::now() < deadline)
        io.run_one_for(std::chrono::milliseconds(10));
}

/// `out` and `err` of one rank running `script` with `label`.
std::pair<std::string, std::string> run(const std::string& script, OutputLabel label, int rank = 0) {
    boost::asio::io_context io;
    std::ostringstream out;
    std::ostringstream err;
    GuestProcesses processes(io, out, err, {});
    processes.label_output(label);
    processes.start(rank, {"/bin/sh", "-c", script}, {});
    drain(io, processes);
    return {out.str(), err.str()};
}

}  // namespace

TEST_CASE("guest output: unlabelled by default, byte for byte, stdout and stderr apart") {
    boost::asio::io_context io;
    std::ostringstream out;
    std::ostringstream err;
    GuestProcesses processes(io, out, err, {});
    processes.start(0, {"/bin/sh", "-c", "echo one; echo two >&2; printf 'no newline'"}, {});
    drain(io, processes);
    CHECK(out.str() == "one\nno newline");
    CHECK(err.str() == "two\n");
}

TEST_CASE("guest output: -l labels every line [rank], a last line without newline gets one") {
    const auto [out, err] = run("echo one; echo two; echo oops >&2; printf tail", OutputLabel::Rank, 3);
    CHECK(out == "[3] one\n[3] two\n[3] tail\n");
    CHECK(err == "[3] oops\n");
}

TEST_CASE("guest output: --tag-output labels lines [1,rank]<stdout>: and [1,rank]<stderr>:") {
    const auto [out, err] = run("echo one; echo oops >&2; echo two", OutputLabel::Tag, 2);
    CHECK(out == "[1,2]<stdout>:one\n[1,2]<stdout>:two\n");
    CHECK(err == "[1,2]<stderr>:oops\n");
}

TEST_CASE("guest output: a line written in pieces is never split by another rank's line") {
    boost::asio::io_context io;
    std::ostringstream out;
    GuestProcesses processes(io, out, out, {});
    // Rank 0 writes its line in 50 pieces while rank 1 prints whole lines.
    processes.start(0, {"/bin/sh", "-c", "for i in $(seq 50); do printf aaaa; sleep 0.002; done; echo"}, {});
    processes.start(1, {"/bin/sh", "-c", "for i in $(seq 50); do echo b; sleep 0.002; done"}, {});
    drain(io, processes);
    std::istringstream lines(out.str());
    int a = 0;
    int b = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line == std::string(200, 'a'))
            ++a;
        else if (line == "b")
            ++b;
        else
            FAIL("mixed line: " << line);
    }
    CHECK(a == 1);
    CHECK(b == 50);
}

TEST_CASE("guest output: a line longer than kLongestLine is passed on in pieces") {
    const std::string script = "head -c " + std::to_string(kLongestLine * 2 + 10) + " /dev/zero | tr '\\0' x";
    const auto [out, err] = run(script, OutputLabel::Rank);
    CHECK(err.empty());
    // Labelled: each piece is its own line, no more than kLongestLine long.
    std::istringstream lines(out);
    std::size_t total = 0;
    for (std::string line; std::getline(lines, line);) {
        REQUIRE(line.rfind("[0] ", 0) == 0);
        CHECK(line.size() - 4 <= kLongestLine + 4096);
        total += line.size() - 4;
    }
    CHECK(total == kLongestLine * 2 + 10);
}
