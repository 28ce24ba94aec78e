// Every statistics struct exports every field (isvp/statistics_table.h).
//
// Without arguments: for each struct, visit() is walked over one object and
// the byte range of each listed member recorded. The ranges must tile the
// struct exactly, [0, sizeof) with no gap and no overlap, and the keys must be
// unique. A field added to the struct but not to visit() leaves its bytes
// uncovered, a field listed twice overlaps, so both fail here, naming the
// struct and the uncovered bytes. This is a runtime check on purpose: C++17
// cannot count an aggregate's members reliably at compile time (sc_time
// members defeat the brace-initialisation trick). Every statistics field is
// 8 bytes wide (std::uint64_t, std::size_t, sc_time), so the structs have no
// padding; a narrower field would leave padding and fail here too, with a
// message saying so: widen it to 8 bytes rather than loosen the check.
// Each listed field is also set to a distinct value and read back from
// statistics_json, and sc_time fields must have keys ending in "_ns".
//
// With --check-json FILE (an `isvp run --stats` or `bench --json` file):
// every node's pcie/qdma/collective(/reliable) object, every router, router
// port and link carries every key of its struct's table, among them the
// collective engine's cgr_waits and cgr_wait_ps, exported since issue 15.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <systemc>

#include "isvp/aurora_link.h"
#include "isvp/collective_engine.h"
#include "isvp/kernel_unit.h"
#include "isvp/pcie_endpoint.h"
#include "isvp/qdma.h"
#include "isvp/reliable_endpoint.h"
#include "isvp/router.h"
#include "isvp/statistics_table.h"

using namespace isvp;

namespace {

unsigned failures = 0;
std::ostream* failure_log = &std::cerr;  ///< where fail() writes (a string stream for the self-check)

void fail(const std::string& message) {
    *failure_log << "FAIL: " << message << "\n";
    ++failures;
}

// Structs the check must reject, to show it would catch the mistakes it is for.
struct CounterLeftOut {
    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("listed", self.listed);
    }
    std::uint64_t listed = 0;
    std::uint64_t forgotten = 0;
};
struct TimeLeftOut {
    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("listed", self.listed);
    }
    sc_core::sc_time forgotten;
    std::uint64_t listed = 0;
};
struct CounterListedTwice {
    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("first", self.first);
        field("again", self.first);
    }
    std::uint64_t first = 0;
    std::uint64_t second = 0;
};
struct NarrowCounterLeftOut {
    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("listed", self.listed);
    }
    std::uint64_t listed = 0;
    bool forgotten = false;
};

/// One listed member: its key and where it lies in the struct.
struct Entry {
    std::string key;
    std::size_t offset;
    std::size_t size;
};

template <class Statistics>
void check_table_covers_struct(const std::string& name) {
    const unsigned failures_before = failures;
    Statistics statistics{};
    const auto* base = reinterpret_cast<const unsigned char*>(&statistics);
    std::vector<Entry> entries;
    Statistics::visit(statistics, [&](const char* key, auto& value) {
        using Value = std::remove_reference_t<decltype(value)>;
        entries.push_back(
            {key, static_cast<std::size_t>(reinterpret_cast<const unsigned char*>(&value) - base), sizeof(Value)});
        if constexpr (!std::is_arithmetic_v<Value>) {
            const std::string k = key;
            if (k.size() < 3 || k.compare(k.size() - 3, 3, "_ns") != 0)
                fail(name + ": time field '" + k + "' is written in ns, its key must end in _ns");
        }
    });
    std::set<std::string> keys;
    for (const Entry& e : entries)
        if (!keys.insert(e.key).second) fail(name + ": key '" + e.key + "' listed twice in visit()");
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.offset < b.offset; });
    std::size_t covered = 0;
    for (const Entry& e : entries) {
        if (e.offset > covered)
            fail(name + ": bytes [" + std::to_string(covered) + ", " + std::to_string(e.offset) + ") before '" + e.key +
                 "' are in no visit() entry: a field is missing from the table (or is padding: make it 8 bytes wide)");
        else if (e.offset < covered)
            fail(name + ": '" + e.key + "' overlaps the entry before it (a member listed twice?)");
        covered = std::max(covered, e.offset + e.size);
    }
    if (covered != sizeof(Statistics))
        fail(name + ": bytes [" + std::to_string(covered) + ", " + std::to_string(sizeof(Statistics)) +
             ") at the end are in no visit() entry: a field is missing from the table (or is padding)");

    // Distinct values in, the same values out of statistics_json.
    std::uint64_t next = 1;
    Statistics::visit(statistics, [&](const char*, auto& value) {
        using Value = std::remove_reference_t<decltype(value)>;
        if constexpr (std::is_arithmetic_v<Value>)
            value = static_cast<Value>(next++);
        else
            value = sc_core::sc_time(static_cast<double>(next++), sc_core::SC_NS);
    });
    const nlohmann::json json = statistics_json(statistics);
    if (json.size() != entries.size())
        fail(name + ": statistics_json wrote " + std::to_string(json.size()) + " keys, the table has " +
             std::to_string(entries.size()));
    next = 1;
    Statistics::visit(statistics, [&](const char* key, auto&) {
        const std::uint64_t expected = next++;
        if (!json.contains(key) || std::abs(json[key].get<double>() - static_cast<double>(expected)) > 1e-6)
            fail(name + ": statistics_json lost or changed '" + key + "'");
    });
    if (failures == failures_before)
        std::cout << name << ": " << entries.size() << " fields, " << sizeof(Statistics) << " bytes, all exported\n";
}

/// Every key of Statistics' table is in `object` (a JSON object), named by `where`.
template <class Statistics>
void check_has_every_key(const nlohmann::json& object, const std::string& where) {
    if (!object.is_object()) {
        fail(where + " is missing or not an object");
        return;
    }
    const Statistics statistics{};
    Statistics::visit(statistics, [&](const char* key, const auto&) {
        if (!object.contains(key)) fail(where + " has no '" + key + "'");
    });
}

int check_json(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        std::cerr << "cannot read " << path << "\n";
        return 2;
    }
    const nlohmann::json file = nlohmann::json::parse(in);
    const nlohmann::json& platform = file.at("platform");
    bool reliable_seen = false;
    for (const nlohmann::json& node : platform.at("nodes")) {
        const std::string where = "node " + node.at("address").dump();
        check_has_every_key<PcieEndpoint::Statistics>(node.value("pcie", nlohmann::json()), where + " pcie");
        check_has_every_key<Qdma::Statistics>(node.value("qdma", nlohmann::json()), where + " qdma");
        check_has_every_key<CollectiveStatistics>(node.value("collective", nlohmann::json()), where + " collective");
        check_has_every_key<KernelStatistics>(node.value("kernel", nlohmann::json()), where + " kernel");
        for (const char* key : {"cgr_waits", "cgr_wait_ps"})
            if (!node["collective"].contains(key)) fail(where + " collective has no '" + key + "'");
        if (node.contains("reliable")) {
            reliable_seen = true;
            check_has_every_key<ReliableStatistics>(node["reliable"], where + " reliable");
        }
    }
    if (!reliable_seen) fail("no node has 'reliable' statistics (run with --set reliable.mode=on)");
    unsigned ports = 0;
    for (const nlohmann::json& router : platform.at("fabric").at("routers")) {
        check_has_every_key<RouterDropStatistics>(
            router,
            "router " + (router.contains("switch") ? router["switch"] : router.value("node", nlohmann::json())).dump());
        for (const auto& port : router.at("ports").items()) {
            ++ports;
            check_has_every_key<RouterPortStatistics>(port.value(), "router port " + port.key());
        }
    }
    const nlohmann::json& links = platform.at("fabric").at("links");
    for (const nlohmann::json& link : links)
        check_has_every_key<AuroraLinkStatistics>(link, "link from " + link.at("from").dump());
    if (ports == 0 || links.empty()) fail("the statistics have no router port or no link: nothing was checked");
    std::cout << path << ": " << platform.at("nodes").size() << " nodes, " << ports << " router ports, " << links.size()
              << " links checked\n";
    return failures == 0 ? 0 : 1;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
    if (argc == 3 && std::string(argv[1]) == "--check-json") return check_json(argv[2]);
    if (argc != 1) {
        std::cerr << "usage: statistics_tables_tb [--check-json FILE]\n";
        return 2;
    }
    check_table_covers_struct<PcieEndpoint::Statistics>("PcieEndpoint::Statistics");
    check_table_covers_struct<Qdma::Statistics>("Qdma::Statistics");
    check_table_covers_struct<CollectiveStatistics>("CollectiveStatistics");
    check_table_covers_struct<KernelStatistics>("KernelStatistics");
    check_table_covers_struct<ReliableStatistics>("ReliableStatistics");
    check_table_covers_struct<RouterPortStatistics>("RouterPortStatistics");
    check_table_covers_struct<RouterDropStatistics>("RouterDropStatistics");
    check_table_covers_struct<AuroraLinkStatistics>("AuroraLinkStatistics");
    if (failures != 0) return 1;

    // The check itself: each of these must fail it.
    std::ostringstream rejected;
    failure_log = &rejected;
    const auto must_fail = [&](const char* name, auto check) {
        const unsigned before = failures;
        check(name);
        if (failures == before) {
            failure_log = &std::cerr;
            fail(std::string("the check accepted ") + name);
            failure_log = &rejected;
        } else {
            failures = before;
        }
    };
    must_fail("CounterLeftOut", check_table_covers_struct<CounterLeftOut>);
    must_fail("TimeLeftOut", check_table_covers_struct<TimeLeftOut>);
    must_fail("CounterListedTwice", check_table_covers_struct<CounterListedTwice>);
    must_fail("NarrowCounterLeftOut", check_table_covers_struct<NarrowCounterLeftOut>);
    failure_log = &std::cerr;
    std::cout << "and the check rejects a table that leaves a field out or lists one twice:\n"
              << std::regex_replace(rejected.str(), std::regex("FAIL: "), "  rejected as expected: ");
    return failures == 0 ? 0 : 1;
}
