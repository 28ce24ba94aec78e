// Topology files: the JSON form of a network graph and its errors.
#include <catch2/catch.hpp>

#include <filesystem>

#include "isvp/network_topology.h"
#include "isvp/parameters.h"
#include "isvp/table_routing.h"

using namespace isvp;

namespace {

const std::string kExample = std::string(ISVP_SOURCE_DIR) + "/docs/topologies/irregular.json";

/// Two switches joined by one cable, one host each; `edit` changes the text.
std::string two_switches(const std::string& switches = R"([{"name": "a", "ports": 3}, {"name": "b", "ports": 3}])",
                         const std::string& links = R"([{"from": "a", "from_port": 2, "to": "b", "to_port": 2}])",
                         const std::string& hosts = R"([{"switch": "a", "port": 0}, {"switch": "b", "port": 0}])") {
    return R"({"switches": )" + switches + R"(, "links": )" + links + R"(, "hosts": )" + hosts + "}";
}

}  // namespace

TEST_CASE("topology file: the irregular example loads with its radices, hosts, cables and BFS levels") {
    const NetworkTopology graph = load_network_file(kExample);
    CHECK(graph.kind() == "file");
    CHECK(graph.description() == "file:" + kExample);
    REQUIRE(graph.switches() == 5);
    CHECK(graph.hosts() == 8);
    CHECK(graph.cables().size() == 6);
    const std::vector<unsigned> radix = {6, 5, 4, 6, 5};
    // No levels given: s0 is the root; s1, s2, s4 are one cable below, s3 two.
    const std::vector<unsigned> level = {2, 1, 1, 0, 1};
    for (unsigned s = 0; s < 5; ++s) {
        CHECK(graph.switch_at(s).name == "s" + std::to_string(s));
        CHECK(graph.switch_at(s).ports == radix[s]);
        CHECK(graph.switch_at(s).level == level[s]);
    }
    CHECK(graph.host(4).switch_index == 2);
    CHECK(graph.host(7).port == 0);
    const TopologyCable& chord = graph.cables().back();
    CHECK(chord.latency_ns == 880);
    CHECK(chord.bandwidth_gbps == 51.5625);
    CHECK(graph.cables().front().latency_ns < 0);  // aurora.latency_ns
    CHECK(graph.distance(0, 5) == 2);              // s0 -> s2 -> s3 over the chord
}

TEST_CASE("topology file: up*/down* on the irregular example reaches every pair without a cycle") {
    const NetworkTopology graph = load_network_file(kExample);
    for (unsigned vcs : {1u, 2u}) {
        const TableRouting routing(graph, "updown", vcs);
        CHECK(check_routes(graph, routing, vcs).empty());
    }
    // The chord breaks the ring's cyclic minimal routes: shortest is accepted too.
    CHECK_NOTHROW(TableRouting(graph, "shortest", 2));
}

TEST_CASE("topology file: given levels are used as they are") {
    const NetworkTopology graph = network_from_json(
        two_switches(R"([{"name": "a", "ports": 3, "level": 0}, {"name": "b", "ports": 3, "level": 5}])"), "t");
    CHECK(graph.switch_at(0).level == 0);
    CHECK(graph.switch_at(1).level == 5);
}

TEST_CASE("topology file: malformed JSON and missing or mistyped keys are refused naming the JSON path") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"{\"switches\": [", "config: topology t: not valid JSON: "},
        {R"({"links": [], "hosts": []})", "config: topology t: missing key 'switches' (an array)"},
        {R"({"switches": {}, "links": [], "hosts": []})", "config: topology t: switches must be an array, got {}"},
        {R"({"switches": [], "links": [], "hosts": [], "extra": 1})",
         "config: topology t: the document: unknown key 'extra' (accepted: comment, switches, links, hosts)"},
        {two_switches(R"([{"name": "a", "ports": "3"}, {"name": "b", "ports": 3}])"),
         "config: topology t: switches[0].ports must be an integer in [1, 65534], got \"3\""},
        {two_switches(R"([{"name": "a", "ports": 3}, {"name": "b", "radix": 3}])"),
         "config: topology t: switches[1]: unknown key 'radix' (accepted: name, ports, level)"},
        {two_switches(R"([{"name": "a", "ports": 3}, {"ports": 3}])"),
         "config: topology t: switches[1]: missing key 'name'"},
        {two_switches(R"([{"name": "a", "ports": 3}, {"name": "a", "ports": 3}])"),
         "config: topology t: switches[1] ('a'): switch name 'a' is used twice"},
        {two_switches(R"([{"name": "a", "ports": 3}, {"name": "b.1", "ports": 3}])",
                      R"([{"from": "a", "from_port": 2, "to": "b.1", "to_port": 2}])",
                      R"([{"switch": "a", "port": 0}])"),
         "config: topology t: switch 1 is named 'b.1': use letters, digits, '_' and '-' only"},
        {two_switches(R"([{"name": "a", "ports": 3, "level": 1}, {"name": "b", "ports": 3}])"),
         "config: topology t: switches[1] ('b') has no level but switches[0] ('a') has one: give a level to every "
         "switch or to none"},
        {two_switches(R"([{"name": "a", "ports": 3}, {"name": "b", "ports": 3}])",
                      R"([{"from": "a", "from_port": 2, "to": "c", "to_port": 2}])"),
         "config: topology t: links[0].to: no switch is named 'c'"},
        {two_switches(R"([{"name": "a", "ports": 3}, {"name": "b", "ports": 3}])",
                      R"([{"from": "a", "from_port": 2, "to": "b", "to_port": 2, "latency_ns": -4}])"),
         "config: topology t: links[0].latency_ns must be a non-negative number, got -4"},
        {two_switches(R"([{"name": "a", "ports": 3}, {"name": "b", "ports": 3}])",
                      R"([{"from": "a", "from_port": 2, "to": "b", "to_port": 2, "bandwidth_gbps": 0}])"),
         "config: topology t: links[0].bandwidth_gbps must be a positive number, got 0"},
        {two_switches(R"([{"name": "a", "ports": 3}, {"name": "b", "ports": 3}])",
                      R"([{"from": "a", "from_port": 2, "to": "b", "to_port": 2}])", R"([{"switch": "a"}])"),
         "config: topology t: hosts[0]: missing key 'port'"},
    };
    for (const auto& [text, message] : cases) {
        INFO(text);
        CHECK_THROWS_AS(network_from_json(text, "t"), ConfigError);
        CHECK_THROWS_WITH(network_from_json(text, "t"), Catch::StartsWith(message));
    }
}

TEST_CASE("topology file: graph errors name the switch and port") {
    const std::string switches = R"([{"name": "a", "ports": 3}, {"name": "b", "ports": 3}])";
    const std::string link = R"([{"from": "a", "from_port": 2, "to": "b", "to_port": 2}])";
    // A host on a port beyond the radix.
    CHECK_THROWS_WITH(network_from_json(two_switches(switches, link, R"([{"switch": "b", "port": 3}])"), "t"),
                      "config: topology t: host 0: switch b has no port 3 (radix 3, ports 0..2)");
    // A port used twice.
    CHECK_THROWS_WITH(network_from_json(two_switches(switches, link, R"([{"switch": "b", "port": 2}])"), "t"),
                      "config: topology t: b port 2 is used twice: by cable 0 and by host 0");
    // A disconnected switch.
    CHECK_THROWS_WITH(network_from_json(two_switches(switches, "[]"), "t"),
                      "config: topology t: switch b is not connected to switch a (no path of cables)");
}

TEST_CASE("topology file: deep nesting, long values and JSON errors give short messages") {
    // 100,000 nested arrays used to overflow the stack (the bad value was
    // written into the message); they are refused as they are read.
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    CHECK_THROWS_WITH(network_from_json(deep, "t"), "config: topology t: nests objects or arrays more than 32 levels "
                                                    "deep (a topology file has three: links[i].from)");
    // A long bad value is quoted cut short.
    std::string ports = "[";
    for (int i = 0; i < 1000; ++i) ports += (i ? "," : "") + std::to_string(i);
    ports += "]";
    try {
        network_from_json(R"({"switches": [{"name": "a", "ports": )" + ports + "}]}", "t");
        FAIL("a list of ports was taken as a port count");
    } catch (const ConfigError& error) {
        const std::string message = error.what();
        CHECK_THAT(message, Catch::StartsWith("config: topology t: switches[0].ports must be an integer in"));
        CHECK_THAT(message, Catch::EndsWith("..."));
        CHECK(message.size() < 200);
    }
    // A key given twice (the parser would keep the last).
    CHECK_THROWS_WITH(network_from_json(R"({"switches": [{"name": "a", "ports": 2, "ports": 3}]})", "t"),
                      "config: topology t: the key 'ports' is given twice in one object");
    // The JSON library's own prefix is not shown.
    CHECK_THROWS_WITH(network_from_json("{", "t"), Catch::StartsWith("config: topology t: not valid JSON: parse error "
                                                                     "at line 1, column 2"));
}

TEST_CASE("topology file: an unreadable file or a directory is refused naming it") {
    CHECK_THROWS_WITH(load_network_file("/nonexistent/topology.json"),
                      "config: topology file:/nonexistent/topology.json: cannot open the file");
    const std::string directory = std::filesystem::temp_directory_path().string();
    CHECK_THROWS_WITH(load_network_file(directory), Catch::Contains("is a directory"));
}

TEST_CASE("topology file: a generated fat tree written as a file reads back as the same graph") {
    const NetworkTopology tree = fat_tree_network(FatTreeShape{8, 64, 3});
    const NetworkTopology copy = network_from_json(network_to_json(tree), "copy");
    REQUIRE(copy.switches() == tree.switches());
    REQUIRE(copy.hosts() == tree.hosts());
    REQUIRE(copy.cables().size() == tree.cables().size());
    for (unsigned s = 0; s < tree.switches(); ++s) {
        CHECK(copy.switch_at(s).name == tree.switch_at(s).name);
        CHECK(copy.switch_at(s).level == tree.switch_at(s).level);
        CHECK(copy.hosts_on(s) == tree.hosts_on(s));
        for (unsigned port = 0; port < tree.switch_at(s).ports; ++port) {
            CHECK(copy.peer(s, port).kind == tree.peer(s, port).kind);
            CHECK(copy.peer(s, port).index == tree.peer(s, port).index);
            CHECK(copy.peer(s, port).port == tree.peer(s, port).port);
        }
    }
    const NetworkTopology example = load_network_file(kExample);
    const NetworkTopology example_copy = network_from_json(network_to_json(example), "copy");
    CHECK(example_copy.cables().back().latency_ns == 880);
    CHECK(example_copy.cables().back().bandwidth_gbps == 51.5625);
    CHECK(example_copy.cables().front().latency_ns < 0);
}
