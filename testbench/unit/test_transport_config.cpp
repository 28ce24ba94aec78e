// Transport parameters (host.*, job.*) and the guest environment.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "isvp/device_transport.h"
#include "isvp/guest_environment.h"
#include "isvp/transport_config.h"

using namespace isvp;

TEST_CASE("transport config: every parameter is declared with its default") {
    Parameters parameters;
    TransportConfig::declare(parameters);
    const TransportConfig config = TransportConfig::from(parameters);
    CHECK(config.memory_bytes == 256u << 20);
    CHECK(config.mmio_write_ns == 50.0);
    CHECK(config.compute_scale == 0.0);
    CHECK(config.mmio_write_ps() == 50000);
    CHECK(config.stall_notice_s == 10.0);
    CHECK(config.timeout_s == 0.0);
    CHECK(config.max_simulated_us == 0.0);
    for (const char* name : {"host.memory_bytes", "host.mmio_write_ns", "host.compute_scale", "job.kill_grace_ms",
                             "job.deadlock_horizon_us", "job.event_slice_ns", "job.stall_notice_s", "job.timeout_s",
                             "job.max_simulated_us"})
        CHECK(parameters.is_declared(name));
}

TEST_CASE("transport config: the job limits and the stall notice are read and checked") {
    Parameters parameters;
    TransportConfig::declare(parameters);
    parameters.apply_override("job.stall_notice_s=0");
    parameters.apply_override("job.timeout_s=2.5");
    parameters.apply_override("job.max_simulated_us=1000");
    const TransportConfig config = TransportConfig::from(parameters);
    CHECK(config.stall_notice_s == 0.0);
    CHECK(config.timeout_s == 2.5);
    CHECK(config.max_simulated_us == 1000.0);
    CHECK_THROWS_WITH(parameters.apply_override("job.timeout_s=-1"), Catch::Contains("job.timeout_s"));
    TransportConfig bad;
    bad.max_simulated_us = 1e13;  // beyond the scheduler's 2^62 ps
    CHECK_THROWS_WITH(bad.validate(), Catch::Contains("job.max_simulated_us"));
    bad = TransportConfig();
    bad.stall_notice_s = -0.5;
    CHECK_THROWS_WITH(bad.validate(), Catch::Contains("job.stall_notice_s"));
}

TEST_CASE("transport config: overrides are read and rounded to picoseconds") {
    Parameters parameters;
    TransportConfig::declare(parameters);
    parameters.apply_override("host.mmio_write_ns=123.4567");
    parameters.apply_override("host.memory_bytes=65536");
    const TransportConfig config = TransportConfig::from(parameters);
    CHECK(config.mmio_write_ps() == 123457);
    CHECK(config.memory_bytes == 65536);
}

TEST_CASE("transport config: bad values are refused naming the parameter") {
    Parameters parameters;
    TransportConfig::declare(parameters);
    CHECK_THROWS_WITH(parameters.apply_override("host.mmio_write_ns=-1"), Catch::Contains("host.mmio_write_ns"));
    TransportConfig config;
    config.memory_bytes = 5000;
    CHECK_THROWS_WITH(config.validate(), Catch::Contains("host.memory_bytes must be a multiple of 4096"));
    config = TransportConfig();
    config.event_slice_ns = 0;
    CHECK_THROWS_WITH(config.validate(), Catch::Contains("job.event_slice_ns"));
}

namespace {

guest::GuestEnvironment parse(const std::map<std::string, std::string>& variables) {
    return guest::GuestEnvironment::parse([&](const char* name) -> const char* {
        const auto found = variables.find(name);
        return found == variables.end() ? nullptr : found->second.c_str();
    });
}

std::map<std::string, std::string> complete() {
    guest::GuestEnvironment environment;
    environment.socket_path = "/tmp/x/rank1.sock";
    environment.shm_name = "isvp-1-abc-r1";
    environment.shm_bytes = 1u << 20;
    environment.rank = 1;
    environment.size = 4;
    environment.compute_scale = 0.5;
    environment.mmio_write_ns = 123.457;
    std::map<std::string, std::string> variables;
    for (const auto& [name, value] : environment.variables()) variables[name] = value;
    return variables;
}

}  // namespace

TEST_CASE("guest environment: what the launcher writes the guest reads back") {
    const guest::GuestEnvironment environment = parse(complete());
    CHECK(environment.socket_path == "/tmp/x/rank1.sock");
    CHECK(environment.shm_name == "isvp-1-abc-r1");
    CHECK(environment.shm_bytes == 1u << 20);
    CHECK(environment.rank == 1);
    CHECK(environment.size == 4);
    CHECK(environment.compute_scale == 0.5);
    CHECK(environment.mmio_write_ns == 123.457);
}

TEST_CASE("guest environment: outside a job the error says how to start a guest") {
    CHECK_THROWS_AS(parse({}), guest::TransportError);
    CHECK_THROWS_WITH(parse({}), Catch::Contains("ISVP_SOCKET is not set") && Catch::Contains("isvp run"));
}

TEST_CASE("guest environment: a malformed variable is named") {
    auto variables = complete();
    variables["ISVP_RANK"] = "4";
    CHECK_THROWS_WITH(parse(variables), Catch::Contains("ISVP_RANK=4 is not below ISVP_SIZE=4"));
    variables = complete();
    variables["ISVP_SHM_BYTES"] = "lots";
    CHECK_THROWS_WITH(parse(variables), Catch::Contains("ISVP_SHM_BYTES='lots'"));
    variables = complete();
    variables.erase("ISVP_SHM_NAME");
    CHECK_THROWS_WITH(parse(variables), Catch::Contains("ISVP_SHM_NAME is not set"));
}
