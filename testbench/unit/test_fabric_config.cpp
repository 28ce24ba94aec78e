// Fabric configuration: topology.* parameters, the --topology option, the
// routing each kind gets and what is refused before a run.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "isvp/dimension_order_routing.h"
#include "isvp/fabric_config.h"
#include "isvp/parameters.h"
#include "isvp/table_routing.h"

using namespace isvp;

namespace {

Parameters declared() {
    Parameters parameters;
    FabricConfig::declare(parameters);
    return parameters;
}

/// A topology file in the temporary directory, removed at the end of scope.
class TemporaryFile {
  public:
    explicit TemporaryFile(const std::string& text)
        : path_(std::filesystem::temp_directory_path() /
                ("isvp_fabric_config_" + std::to_string(::getpid()) + "_" + std::to_string(++count_) + ".json")) {
        std::ofstream(path_) << text;
    }
    ~TemporaryFile() { std::filesystem::remove(path_); }
    std::string path() const { return path_.string(); }

  private:
    static inline unsigned count_ = 0;  ///< distinct names within one process
    std::filesystem::path path_;        ///< the file
};

}  // namespace

TEST_CASE("fabric config: defaults are a 4x4x4 torus with dor, fat tree and routing parameters declared") {
    Parameters parameters = declared();
    CHECK(parameters.text("topology.kind") == "torus");
    CHECK(parameters.text("topology.torus") == "4x4x4");
    CHECK(parameters.text("topology.fattree") == "radix=8,hosts=32,oversubscription=3");
    CHECK(parameters.text("topology.file").empty());
    CHECK(parameters.text("topology.routing") == "updown");
    CHECK(parameters.is_declared("router.vcs"));
    CHECK(parameters.is_declared("aurora.latency_ns"));
    const FabricConfig config = FabricConfig::from(parameters);
    CHECK(config.describe() == "torus 4x4x4");
    const NetworkTopology topology = config.topology();
    CHECK(topology.switches() == 64);
    CHECK(config.routing(topology)->name() == "dor");
}

TEST_CASE("fabric config: the torus keeps router.routing's policy, route for route") {
    Parameters parameters = declared();
    apply_topology_option(parameters, "torus:4x3x2");
    const FabricConfig config = FabricConfig::from(parameters);
    const auto routing = config.routing(config.topology());
    const DimensionOrderRouting dor(TorusTopology(TorusShape{4, 3, 2}), 2);
    for (std::uint32_t node = 0; node < 24; ++node)
        for (unsigned in_port = 0; in_port < TorusTopology::kPorts; ++in_port)
            for (unsigned vc = 0; vc < 2; ++vc)
                for (std::uint32_t destination = 0; destination < 25; ++destination)
                    CHECK(routing->route(node, in_port, vc, destination) == dor.route(node, in_port, vc, destination));
}

TEST_CASE("fabric config: a fat tree gets table routing (topology.routing)") {
    Parameters parameters = declared();
    apply_topology_option(parameters, "fattree:radix=28,hosts=128");
    CHECK(parameters.text("topology.kind") == "fattree");
    FabricConfig config = FabricConfig::from(parameters);
    CHECK(config.describe() == "fattree radix=28,hosts=128,oversubscription=3");
    const NetworkTopology topology = config.topology();
    CHECK(topology.hosts() == 128);
    CHECK(topology.switches() == 14);
    const auto routing = config.routing(topology);
    CHECK(routing->name() == "updown");
    CHECK(routing->ports(0) == 28);
    parameters.apply_override("topology.routing=shortest");
    CHECK(FabricConfig::from(parameters).routing(topology)->name() == "shortest");
}

TEST_CASE("fabric config: a topology file is loaded, routed and described") {
    Parameters parameters = declared();
    TemporaryFile file(
        R"({"switches": [{"name": "a", "ports": 3}, {"name": "b", "ports": 3}],
            "links": [{"from": "a", "from_port": 2, "to": "b", "to_port": 2}],
            "hosts": [{"switch": "a", "port": 0}, {"switch": "b", "port": 1}]})");
    apply_topology_option(parameters, "file:" + file.path());
    const FabricConfig config = FabricConfig::from(parameters);
    CHECK(config.describe() == "file " + file.path());
    const NetworkTopology topology = config.topology();
    CHECK(topology.hosts() == 2);
    CHECK(config.routing(topology)->route(0, 0, 0, 1) == RouteDecision{2, 0});
}

TEST_CASE("fabric config: a cyclic shortest-path routing is refused before the run") {
    Parameters parameters = declared();
    // Five switches in a ring, one host each: the unique minimal routes
    // (two hops at most, each way round) form a cycle.
    std::string switches, links, hosts;
    for (unsigned s = 0; s < 5; ++s) {
        const std::string name = "\"r" + std::to_string(s) + "\"";
        const std::string next = "\"r" + std::to_string((s + 1) % 5) + "\"";
        switches += std::string(s ? "," : "") + "{\"name\": " + name + ", \"ports\": 3}";
        links += std::string(s ? "," : "") + "{\"from\": " + name + ", \"from_port\": 0, \"to\": " + next +
                 ", \"to_port\": 1}";
        hosts += std::string(s ? "," : "") + "{\"switch\": " + name + ", \"port\": 2}";
    }
    TemporaryFile file("{\"switches\": [" + switches + "], \"links\": [" + links + "], \"hosts\": [" + hosts + "]}");
    apply_topology_option(parameters, "file:" + file.path());
    CHECK_NOTHROW(FabricConfig::from(parameters));  // updown
    parameters.apply_override("topology.routing=shortest");
    CHECK_THROWS_WITH(FabricConfig::from(parameters), Catch::Contains("topology.routing=shortest can deadlock") &&
                                                          Catch::Contains("dependency cycle: r"));
}

TEST_CASE("fabric config: a radix over the router's ports x VCs limit is refused naming the switch") {
    Parameters parameters = declared();
    apply_topology_option(parameters, "fattree:radix=129,hosts=64");
    CHECK_THROWS_WITH(FabricConfig::from(parameters),
                      "config: topology fattree:radix=129,hosts=64,oversubscription=3: switch leaf0 has 129 ports; "
                      "with router.vcs 2 a router supports at most 128 (ports x VCs <= 256)");
    parameters.apply_override("router.vcs=1");
    CHECK_NOTHROW(FabricConfig::from(parameters));
    TemporaryFile file(
        R"({"switches": [{"name": "small", "ports": 3}, {"name": "huge", "ports": 300}],
            "links": [{"from": "small", "from_port": 2, "to": "huge", "to_port": 299}],
            "hosts": [{"switch": "small", "port": 0}]})");
    apply_topology_option(parameters, "file:" + file.path());
    CHECK_THROWS_WITH(FabricConfig::from(parameters), Catch::Contains("switch huge has 300 ports"));
}

TEST_CASE("fabric config: a bad file, an empty file name or a bad fat tree is refused by from()") {
    Parameters parameters = declared();
    parameters.apply_override("topology.kind=file");
    CHECK_THROWS_WITH(FabricConfig::from(parameters),
                      "config: topology.file must name a JSON topology file when topology.kind=file");
    apply_topology_option(parameters, "file:/nonexistent.json");
    CHECK_THROWS_WITH(FabricConfig::from(parameters), Catch::Contains("file:/nonexistent.json: cannot open"));
    parameters.apply_override("topology.kind=fattree");
    parameters.apply_override("topology.fattree=radix=8");
    CHECK_THROWS_WITH(FabricConfig::from(parameters), Catch::Contains("topology.fattree must be"));
}

TEST_CASE("fabric config: --topology accepts torus:, fattree: and file: and sets topology.*") {
    Parameters parameters = declared();
    apply_topology_option(parameters, "torus:4x4x2");
    CHECK(parameters.text("topology.kind") == "torus");
    CHECK(parameters.text("topology.torus") == "4x4x2");
    apply_topology_option(parameters, "fattree:radix=16,hosts=64,oversubscription=1");
    CHECK(parameters.text("topology.kind") == "fattree");
    CHECK(parameters.text("topology.fattree") == "radix=16,hosts=64,oversubscription=1");
    CHECK(FabricConfig::from(parameters).fat_tree.leaf_downlinks() == 8);
    apply_topology_option(parameters, "file:docs/topologies/irregular.json");
    CHECK(parameters.text("topology.kind") == "file");
    CHECK(parameters.text("topology.file") == "docs/topologies/irregular.json");
}

TEST_CASE("fabric config: other --topology forms are refused naming the option and the accepted forms") {
    Parameters parameters = declared();
    for (const char* bad : {"4x4x4", "mesh:4x4", "torus", "torus:", "file:", "fattree"}) {
        INFO(bad);
        CHECK_THROWS_WITH(apply_topology_option(parameters, bad),
                          "config: --topology must be torus:XxYxZ, fattree:radix=R,hosts=N[,oversubscription=S] or "
                          "file:PATH, got '" +
                              std::string(bad) + "'");
    }
    CHECK_THROWS_WITH(apply_topology_option(parameters, "torus:4x0x4", "bench --topology"),
                      Catch::StartsWith("config: bench --topology 'torus:4x0x4': topology.torus must be"));
    CHECK_THROWS_WITH(apply_topology_option(parameters, "fattree:radix=8"),
                      Catch::Contains("--topology 'fattree:radix=8'") && Catch::Contains("hosts is missing"));
    CHECK(parameters.text("topology.kind") == "torus");  // nothing applied
}

TEST_CASE("fabric config: a cable's own latency and bandwidth override aurora.*, framing overhead kept") {
    Parameters parameters = declared();
    const FabricConfig config = FabricConfig::from(parameters);
    const AuroraConfig same = config.link_config(TopologyCable{0, 0, 1, 1});
    CHECK(same.latency_ns == config.aurora.latency_ns);
    CHECK(same.lane_rate_gbps == config.aurora.lane_rate_gbps);
    CHECK(same.peak_payload_gbps == config.aurora.peak_payload_gbps);
    const AuroraConfig half = config.link_config(TopologyCable{0, 0, 1, 1, 880, 51.5625});
    CHECK(half.latency_ns == 880);
    CHECK(half.lanes * half.lane_rate_gbps == Approx(51.5625));
    CHECK(half.peak_payload_gbps == Approx(95.9 / 2));
    CHECK(AuroraTiming(half).frame_overhead_bytes() == Approx(AuroraTiming(config.aurora).frame_overhead_bytes()));
}

TEST_CASE("fabric config: a cable bandwidth the Aurora model cannot take is refused naming the cable") {
    Parameters parameters = declared();
    TemporaryFile file(
        R"({"switches": [{"name": "a", "ports": 3}, {"name": "b", "ports": 3}],
            "links": [{"from": "a", "from_port": 2, "to": "b", "to_port": 1, "bandwidth_gbps": 0.001}],
            "hosts": [{"switch": "a", "port": 0}]})");
    apply_topology_option(parameters, "file:" + file.path());
    CHECK_THROWS_WITH(FabricConfig::from(parameters),
                      Catch::Contains(": cable 0 (a port 2 - b port 1) has a latency or bandwidth the Aurora model "
                                      "refuses: aurora.lane_rate_gbps must be"));
}
