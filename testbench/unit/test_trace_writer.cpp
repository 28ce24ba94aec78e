// TraceWriter: Chrome/Perfetto trace-event JSON that parses, names processes
// and threads once, keeps picosecond digits, and stops at max_events.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>
#include <string>

#include "isvp/parameters.h"
#include "isvp/trace_writer.h"

using isvp::TraceWriter;

namespace {

nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

std::string temporary_path(const char* name) {
    return std::string("/tmp/isvp_test_trace_") + name + "_" + std::to_string(::getpid()) + ".json";
}

}  // namespace

TEST_CASE("A trace is valid trace-event JSON with named processes and threads", "[trace]") {
    const std::string path = temporary_path("valid");
    {
        TraceWriter trace(path, 100);
        trace.name_process(1, "switch 0");
        trace.name_process(1, "switch 0 again");  // ignored: named once
        trace.name_thread(1, 3, "out xplus \"quoted\"");
        trace.complete(1, 3, "packet", "allreduce to 5 step 1", 1234567, 89, "\"bytes\":1046");
        trace.complete(1, 3, "packet", "Send to 2", 2000000, 1000000);
    }
    const auto document = read_json(path);
    std::remove(path.c_str());
    REQUIRE(document.contains("traceEvents"));
    const auto& events = document["traceEvents"];
    int process_names = 0, thread_names = 0, completes = 0;
    for (const auto& event : events) {
        if (event["ph"] == "M" && event["name"] == "process_name") {
            ++process_names;
            CHECK(event["args"]["name"] == "switch 0");
        }
        if (event["ph"] == "M" && event["name"] == "thread_name") {
            ++thread_names;
            CHECK(event["args"]["name"] == "out xplus \"quoted\"");
        }
        if (event["ph"] == "X") ++completes;
    }
    CHECK(process_names == 1);
    CHECK(thread_names == 1);
    REQUIRE(completes == 2);
    const auto& first = events[events.size() - 2];
    CHECK(first["name"] == "allreduce to 5 step 1");
    CHECK(first["ts"].get<double>() == Approx(1.234567));  // µs, picosecond digits kept
    CHECK(first["dur"].get<double>() == Approx(0.000089));
    CHECK(first["args"]["bytes"] == 1046);
    CHECK(document["metadata"]["events"] == 2);
    CHECK(document["metadata"]["events_dropped"] == 0);
}

TEST_CASE("A trace stops at max_events and says how many it left out", "[trace]") {
    const std::string path = temporary_path("limit");
    {
        TraceWriter trace(path, 3);
        for (int i = 0; i < 10; ++i) trace.complete(1, 0, "packet", "p", static_cast<std::uint64_t>(i) * 1000, 10);
        CHECK_FALSE(trace.accepting());
        CHECK(trace.written() == 3);
        CHECK(trace.dropped() == 7);
        trace.count_dropped();  // what a model does when it skips formatting
        CHECK(trace.dropped() == 8);
    }
    const auto document = read_json(path);
    std::remove(path.c_str());
    CHECK(document["metadata"]["events"] == 3);
    CHECK(document["metadata"]["events_dropped"] == 8);
}

TEST_CASE("A trace file that cannot be written is a configuration error naming it", "[trace]") {
    try {
        TraceWriter trace("/nonexistent-directory/trace.json", 10);
        FAIL("no error");
    } catch (const isvp::ConfigError& error) {
        CHECK(std::string(error.what()).find("/nonexistent-directory/trace.json") != std::string::npos);
    }
}
