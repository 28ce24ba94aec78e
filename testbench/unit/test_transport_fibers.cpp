// Local ranks as fibers (RankFibers, job.ranks, job.fiber_stack_kib) and a
// LocalChannel in cooperative mode.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "isvp/local_transport.h"
#include "isvp/rank_fibers.h"
#include "isvp/transport_config.h"

using namespace isvp;
using transport::RankFibers;

TEST_CASE("fibers: job.ranks chooses fibers (default) or threads, and refuses anything else") {
    Parameters parameters;
    TransportConfig::declare(parameters);
    CHECK(TransportConfig::from(parameters).local_ranks == LocalRanks::Fibers);
    CHECK(TransportConfig::from(parameters).fiber_stack_kib == 1024);
    parameters.apply_override("job.ranks=threads");
    CHECK(TransportConfig::from(parameters).local_ranks == LocalRanks::Threads);
    CHECK_THROWS_WITH(parameters.apply_override("job.ranks=coroutines"), Catch::Contains("job.ranks") &&
                                                                             Catch::Contains("fibers, threads") &&
                                                                             Catch::Contains("coroutines"));
    CHECK_THROWS_WITH(parameters.apply_override("job.fiber_stack_kib=16"), Catch::Contains("job.fiber_stack_kib"));
    TransportConfig config;
    config.local_ranks = static_cast<LocalRanks>(7);
    CHECK_THROWS_WITH(config.validate(), Catch::Contains("job.ranks must be one of fibers, threads"));
}

TEST_CASE("fibers: a fiber runs until it suspends and resumes only when woken") {
    RankFibers fibers(64 * 1024);
    std::vector<std::string> log;
    for (int rank = 0; rank < 3; ++rank)
        fibers.spawn(rank, [&, rank] {
            log.push_back("start " + std::to_string(rank) + " in " + std::to_string(fibers.current()));
            fibers.suspend();
            log.push_back("resumed " + std::to_string(rank));
        });
    CHECK(fibers.unfinished() == 3);
    CHECK(fibers.run_ready() == 3);
    CHECK(log == std::vector<std::string>{"start 0 in 0", "start 1 in 1", "start 2 in 2"});
    CHECK(fibers.current() == -1);
    CHECK(fibers.run_ready() == 0);  // nobody woken
    fibers.wake(2);
    fibers.wake(2);  // once, however often woken
    fibers.wake(0);
    CHECK(fibers.run_ready() == 2);
    CHECK(log.back() == "resumed 0");
    CHECK(log[log.size() - 2] == "resumed 2");
    CHECK(fibers.unfinished() == 1);
    fibers.wake(2);  // ended: ignored
    fibers.wake(1);
    CHECK(fibers.run_ready() == 1);
    CHECK(fibers.unfinished() == 0);
}

TEST_CASE("fibers: each fiber keeps its own exception state across switches") {
    // Rank 0 blocks inside a catch block while rank 1 throws and handles its
    // own exception; rank 0's `throw;` must rethrow rank 0's exception.
    RankFibers fibers(64 * 1024);
    std::string rethrown, counted;
    fibers.spawn(0, [&] {
        try {
            try {
                throw std::runtime_error("rank 0's");
            } catch (const std::exception&) {
                fibers.suspend();  // a blocking transport call inside a handler
                throw;
            }
        } catch (const std::exception& error) {
            rethrown = error.what();
        }
    });
    fibers.spawn(1, [&] {
        try {
            throw std::logic_error("rank 1's");
        } catch (const std::exception&) {
            counted = std::to_string(std::uncaught_exceptions());
        }
    });
    fibers.run_ready();
    fibers.wake(0);
    fibers.run_ready();
    CHECK(rethrown == "rank 0's");
    CHECK(counted == "0");
    CHECK(std::uncaught_exceptions() == 0);
}

namespace {

/// Recurses `depth` times with a 4 KiB frame each.
int deep(int depth) {
    volatile char frame[4096];
    frame[0] = static_cast<char>(depth);
    return depth == 0 ? frame[0] : deep(depth - 1) + frame[0];
}

}  // namespace

TEST_CASE("fibers: the stack is job.fiber_stack_kib deep, its use is measured, an overflow kills loudly") {
    {
        RankFibers fibers(256 * 1024);
        CHECK(fibers.stack_bytes() == 256 * 1024);
        fibers.spawn(0, [&] {
            deep(32);  // ~128 KiB
            fibers.suspend();
        });
        fibers.run_ready();
        CHECK(fibers.stack_touched(0) >= 128 * 1024);
        CHECK(fibers.stack_touched(0) <= 256 * 1024);
        fibers.wake(0);
        fibers.run_ready();
        CHECK(fibers.stack_touched(0) == 0);  // ended
    }
    // Past the end: the guard region faults; the child dies of SIGSEGV,
    // naming the rank, instead of writing over memory.
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::dup2(pipe_fds[1], STDERR_FILENO);
        std::signal(SIGSEGV, SIG_DFL);  // not Catch2's handler: the default, death
        RankFibers fibers(64 * 1024);
        fibers.spawn(5, [] { deep(64); });  // ~256 KiB on a 64 KiB stack
        fibers.run_ready();
        ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::string said;
    char buffer[512];
    for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
        said.append(buffer, static_cast<std::size_t>(got));
    ::close(pipe_fds[0]);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGSEGV);
    CHECK(said.find("[isvp] rank 5 overflowed its fiber stack (job.fiber_stack_kib = 64)") != std::string::npos);
}

TEST_CASE("fibers: a cooperative channel suspends for its reply and is woken by it, or by its closing") {
    RankFibers fibers(64 * 1024);
    auto channel = std::make_shared<guest::LocalChannel>();
    std::vector<transport::Message> sent;
    guest::LocalChannel::HostHooks hooks;
    hooks.request = [&](const transport::Message& message) { sent.push_back(message); };
    hooks.left = [](const std::string&) {};
    channel->connect_host(hooks);
    channel->make_cooperative([&] { fibers.suspend(); }, [&] { fibers.wake(0); });
    std::vector<std::uint64_t> got;
    std::string ended;
    fibers.spawn(0, [&] {
        transport::Message request;
        request.type = transport::MessageType::MmioRead;
        channel->send(request);
        std::string text;
        got.push_back(channel->receive(text).time_ps);
        try {
            channel->receive(text);
        } catch (const guest::TransportError& error) {
            ended = error.what();
        }
    });
    CHECK(fibers.run_ready() == 1);
    CHECK(sent.size() == 1);  // the request went out, the fiber waits
    CHECK(fibers.run_ready() == 0);
    transport::Message reply;
    reply.type = transport::MessageType::ReadReply;
    reply.time_ps = 42;
    channel->reply(reply);
    CHECK(fibers.run_ready() == 1);
    CHECK(got == std::vector<std::uint64_t>{42});
    channel->close("isvp transport: rank 0: the job ended");
    CHECK(fibers.run_ready() == 1);
    CHECK(ended == "isvp transport: rank 0: the job ended");
    CHECK(fibers.unfinished() == 0);
}

TEST_CASE("fibers: a fiber that runs long without switching back gets stall notices from the watcher") {
    RankFibers fibers(64 * 1024);
    std::mutex mutex;
    std::vector<std::pair<int, double>> notices;  // rank, seconds running
    fibers.watch_stalls(std::chrono::milliseconds(100), [&](int rank, std::chrono::nanoseconds running) {
        const std::lock_guard<std::mutex> lock(mutex);
        notices.emplace_back(rank, std::chrono::duration<double>(running).count());
    });
    fibers.spawn(0, [&] { fibers.suspend(); });  // quick: never noticed
    fibers.spawn(1, [] { std::this_thread::sleep_for(std::chrono::milliseconds(350)); });
    fibers.run_ready();
    fibers.wake(0);
    fibers.run_ready();
    const std::lock_guard<std::mutex> lock(mutex);
    REQUIRE(!notices.empty());  // normally three (100, 200, 300 ms); fewer if the watcher was starved
    for (std::size_t i = 0; i < notices.size(); ++i) {
        CHECK(notices[i].first == 1);
        CHECK(notices[i].second >= 0.1 * static_cast<double>(i + 1));  // at most one per period
    }
}
