// Parameters: declaration, JSON platform files, --set overrides, errors.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "isvp/parameters.h"

using namespace isvp;

namespace {

Parameters example() {
    Parameters parameters;
    parameters.declare_integer("router.vcs", "VCs", 2, 1, 16, "virtual channels per port");
    parameters.declare_real("link.latency_ns", "ns", 440.0, 0.0, 1e6, "link latency");
    parameters.declare_choice("topology.kind", "torus", {"torus", "fattree"}, "network topology");
    parameters.declare_flag("stats.enable", false, "collect statistics");
    return parameters;
}

}  // namespace

TEST_CASE("parameters: defaults hold until a value is set") {
    const Parameters parameters = example();
    CHECK(parameters.integer("router.vcs") == 2);
    CHECK(parameters.real("link.latency_ns") == 440.0);
    CHECK(parameters.text("topology.kind") == "torus");
    CHECK_FALSE(parameters.flag("stats.enable"));
}

TEST_CASE("parameters: --set overrides parse each kind") {
    Parameters parameters = example();
    parameters.apply_override("router.vcs=4");
    parameters.apply_override("link.latency_ns=12.5");
    parameters.apply_override("topology.kind=fattree");
    parameters.apply_override("stats.enable=on");
    CHECK(parameters.integer("router.vcs") == 4);
    CHECK(parameters.real("link.latency_ns") == 12.5);
    CHECK(parameters.text("topology.kind") == "fattree");
    CHECK(parameters.flag("stats.enable"));
}

TEST_CASE("parameters: an unknown name is refused with a near miss and its block's parameters") {
    Parameters parameters = example();
    CHECK_THROWS_WITH(parameters.apply_override("router.vc=4"),
                      Catch::Contains("unknown parameter 'router.vc' (--set); did you mean router.vcs?") &&
                          Catch::Contains("the router.* parameters: ") && !Catch::Contains("link.latency_ns"));
    CHECK_THROWS_WITH(
        parameters.apply_override("routr.vcs=4"),
        Catch::Contains("did you mean router.vcs?") && Catch::Contains("no block 'routr': the blocks are "));
    CHECK_THROWS_WITH(parameters.apply_override("router.vcs"), Catch::Contains("--set expects key=value"));
}

TEST_CASE("parameters: a JSON platform file nests names and is type-checked") {
    Parameters parameters = example();
    parameters.load_json(nlohmann::json::parse(R"({"router": {"vcs": 8}, "topology": {"kind": "fattree"}})"), "test");
    CHECK(parameters.integer("router.vcs") == 8);
    CHECK_THROWS_WITH(parameters.load_json(nlohmann::json::parse(R"({"router": {"vcs": "8"}})"), "p.json"),
                      Catch::Contains("router.vcs must be an integer in [1, 16] VCs, got \"8\" (p.json)"));
    CHECK_THROWS_WITH(parameters.load_json(nlohmann::json::parse(R"({"router": {"vcs": 2.5}})"), "p.json"),
                      Catch::Contains("router.vcs"));
    CHECK_THROWS_WITH(parameters.load_json(nlohmann::json::parse("[1, 2]"), "p.json"), Catch::Contains("JSON object"));
}

TEST_CASE("parameters: a name given twice in a file is refused, not the last one taken") {
    const std::string path = "isvp_test_parameters_twice.json";
    Parameters parameters = example();
    std::ofstream(path) << R"({"router": {"vcs": 3, "vcs": 4}})";
    CHECK_THROWS_WITH(parameters.load_file(path),
                      Catch::Contains(path) && Catch::Contains("gives the key 'vcs' twice"));
    std::ofstream(path) << R"({"router": {"vcs": 3}, "router.vcs": 4})";
    CHECK_THROWS_WITH(parameters.load_file(path),
                      Catch::Contains(path) && Catch::Contains("gives router.vcs twice (nested and as a dotted name)"));
    std::remove(path.c_str());
    CHECK(parameters.integer("router.vcs") == 2);  // the default: neither value was assigned
}

TEST_CASE("parameters: a file that is not JSON is refused with its name") {
    const std::string path = "isvp_test_parameters_bad.json";
    std::ofstream(path) << "{ router: ";
    Parameters parameters = example();
    CHECK_THROWS_WITH(parameters.load_file(path), Catch::Contains(path) && Catch::Contains("not valid JSON"));
    std::remove(path.c_str());
    CHECK_THROWS_WITH(parameters.load_file("/nonexistent/platform.json"), Catch::Contains("cannot open"));
}

TEST_CASE("parameters: trailing content, out-of-range numbers and directories are refused with the file's name") {
    const std::string path = "isvp_test_parameters_trailing.json";
    Parameters parameters = example();
    std::ofstream(path) << R"({"router": {"vcs": 2}} {"router": {"vcs": 99}})";
    CHECK_THROWS_WITH(parameters.load_file(path), Catch::Contains(path) && Catch::Contains("not valid JSON"));
    std::ofstream(path) << R"({"router": {"vcs": 1e400}})";
    CHECK_THROWS_WITH(parameters.load_file(path), Catch::Contains(path) && Catch::Contains("not valid JSON"));
    std::remove(path.c_str());
    CHECK_THROWS_WITH(parameters.load_file("/tmp"), Catch::Contains("/tmp is a directory"));
}

TEST_CASE("parameters: current values export as nested JSON") {
    Parameters parameters = example();
    parameters.apply_override("router.vcs=3");
    const auto document = parameters.to_json();
    CHECK(document["router"]["vcs"] == 3);
    CHECK(document["topology"]["kind"] == "torus");
}

TEST_CASE("parameters: --set integers are decimal or 0x hexadecimal, never octal, reals must be finite") {
    Parameters parameters = example();
    parameters.apply_override("router.vcs=010");
    CHECK(parameters.integer("router.vcs") == 10);
    parameters.apply_override("router.vcs=0x4");
    CHECK(parameters.integer("router.vcs") == 4);
    CHECK_THROWS_WITH(parameters.apply_override("router.vcs=0x"), Catch::Contains("router.vcs"));
    CHECK_THROWS_WITH(parameters.apply_override("link.latency_ns=nan"), Catch::Contains("'nan'"));
    CHECK_THROWS_WITH(parameters.apply_override("link.latency_ns=inf"), Catch::Contains("'inf'"));
}
