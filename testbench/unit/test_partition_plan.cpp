// PartitionPlan: how a distributed simulation cuts a network into processes
// (docs/PARTITIONS.md): contiguous blocks of switches, hosts with their
// switch, cut channels, the lookahead, and what is refused.
#include <catch2/catch.hpp>

#include <set>

#include "isvp/fabric_config.h"
#include "isvp/parameters.h"
#include "isvp/partition_plan.h"

using namespace isvp;

namespace {

FabricConfig fabric(const std::string& topology, const std::vector<std::string>& overrides = {}) {
    Parameters parameters;
    FabricConfig::declare(parameters);
    apply_topology_option(parameters, topology);
    for (const std::string& setting : overrides) parameters.apply_override(setting);
    return FabricConfig::from(parameters);
}

}  // namespace

TEST_CASE("partition plan: contiguous blocks of switches, hosts with their switch") {
    const FabricConfig config = fabric("torus:4x4x2");
    const PartitionPlan plan(config, 3);
    CHECK(plan.partitions() == 3);
    // 32 switches into 3: 0..10, 11..21, 22..31.
    CHECK(plan.switch_owner(0) == 0);
    CHECK(plan.switch_owner(10) == 0);
    CHECK(plan.switch_owner(11) == 1);
    CHECK(plan.switch_owner(21) == 1);
    CHECK(plan.switch_owner(22) == 2);
    CHECK(plan.switch_owner(31) == 2);
    for (unsigned h = 0; h < 32; ++h) CHECK(plan.host_owner(h) == plan.switch_owner(h));  // torus: host n on switch n
    CHECK(plan.describe(1) == "partition 1 (switches 11..21, hosts 11..21)");
}

TEST_CASE("partition plan: every cable direction is a channel, cut where its ends are in two partitions") {
    const FabricConfig config = fabric("torus:4x4x2");
    const NetworkTopology topology = config.topology();
    const PartitionPlan plan(config, 2);
    REQUIRE(plan.channels().size() == 2 * topology.cables().size());
    std::size_t cut = 0;
    for (std::size_t id = 0; id < plan.channels().size(); ++id) {
        const CutChannel& channel = plan.channels()[id];
        CHECK(channel.cut == (plan.switch_owner(channel.from) != plan.switch_owner(channel.to)));
        CHECK(plan.channel_from(topology, channel.from, channel.from_port) == id);
        CHECK(channel.latency_ps == 440000);
        cut += channel.cut;
    }
    CHECK(cut == plan.cut_channels());
    CHECK(cut > 0);
    CHECK(plan.lookahead_ps() == 440000);
}

TEST_CASE("partition plan: the lookahead is the smallest latency of a cut cable") {
    const PartitionPlan plan(fabric("torus:4x2x1", {"aurora.latency_ns=250.5"}), 2);
    CHECK(plan.lookahead_ps() == 250500);
}

TEST_CASE("partition plan: a fat tree puts its spines with the last partition") {
    const FabricConfig config = fabric("fattree:radix=8,hosts=32");
    const NetworkTopology topology = config.topology();
    const PartitionPlan plan(config, 2);
    std::set<unsigned> owners;
    for (unsigned h = 0; h < topology.hosts(); ++h) owners.insert(plan.host_owner(h));
    CHECK(owners == std::set<unsigned>{0, 1});
    CHECK(plan.switch_owner(topology.switches() - 1) == 1);
}

TEST_CASE("partition plan: more partitions than switches, or none, are refused") {
    const FabricConfig config = fabric("torus:2x2x1");
    CHECK_THROWS_WITH(PartitionPlan(config, 5), Catch::Contains("each partition needs at least one switch"));
    CHECK_THROWS_WITH(PartitionPlan(config, 0), Catch::Contains("at least 1 partition"));
    const PartitionPlan one(config, 1);
    CHECK(one.cut_channels() == 0);
    CHECK(one.lookahead_ps() == 0);
}

TEST_CASE("partition plan: a cut cable without latency is refused, naming it (no lookahead)") {
    const FabricConfig config = fabric("torus:4x2x1", {"aurora.latency_ns=0"});
    CHECK_THROWS_WITH(PartitionPlan(config, 2), Catch::Contains("with zero latency"));
    CHECK_NOTHROW(PartitionPlan(config, 1));  // nothing is cut
}
