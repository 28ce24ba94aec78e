// The PCIe transaction log (trace.pcie) and the register names it uses:
// registers named from the one register map with their queue or index,
// fields decoded; QDMA formats described field by field; lines in time
// order whatever order the models record them in; node and register
// filters; the cap and its note; the Perfetto "pcie" track.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "isvp/packet_format.h"
#include "isvp/parameters.h"
#include "isvp/pcie_transaction_log.h"
#include "isvp/qdma_formats.h"
#include "isvp/register_map.h"
#include "isvp/register_names.h"
#include "isvp/trace_writer.h"

using isvp::DmaPurpose;
using isvp::DmaTag;
using isvp::PcieLogFilter;
using isvp::PcieTransactionLog;
namespace regmap = isvp::regmap;

namespace {

std::string temporary_path(const char* name) {
    return std::string("/tmp/isvp_test_pcie_log_") + name + "_" + std::to_string(::getpid()) + ".log";
}

/// The transaction lines of a log (comment lines left out), and the file removed.
std::vector<std::string> transaction_lines(const std::string& path, std::vector<std::string>* comments = nullptr) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("#", 0) == 0) {
            if (comments) comments->push_back(line);
        } else {
            lines.push_back(line);
        }
    }
    std::remove(path.c_str());
    return lines;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("Registers are named from the register map with their queue, vector or index", "[pcie_log]") {
    CHECK(regmap::register_name(regmap::ID) == "ID");
    CHECK(regmap::register_name(regmap::ERROR_STATUS) == "ERROR_STATUS");
    CHECK(regmap::register_name(regmap::DOORBELL(1) + regmap::H2C_PIDX) == "H2C_PIDX[q1]");
    CHECK(regmap::register_name(regmap::DOORBELL(63) + regmap::CMPT_CIDX) == "CMPT_CIDX[q63]");
    CHECK(regmap::register_name(regmap::QUEUE(2) + regmap::CMPT_CONTROL) == "CMPT_CONTROL[q2]");
    CHECK(regmap::register_name(regmap::QUEUE(0) + regmap::C2H_BUFFER_BYTES) == "C2H_BUFFER_BYTES[q0]");
    CHECK(regmap::register_name(regmap::RING_SIZE(3)) == "RING_SIZE[3]");
    CHECK(regmap::register_name(regmap::CONTEXT_QUEUE(31)) == "CONTEXT_QUEUE[31]");
    CHECK(regmap::register_name(regmap::MSIX_ENTRY(2) + regmap::MSIX_DATA) == "MSIX_DATA[v2]");
    CHECK(regmap::register_name(regmap::MSIX_PBA + 4) == "MSIX_PBA[1]");
    CHECK(regmap::register_name(regmap::CT_STAGING(9)) == "CT_STAGING[9]");
    CHECK(regmap::register_name(regmap::FORWARD_FILL) == "FORWARD_FILL");
    CHECK(regmap::register_name(regmap::DOORBELL(1) + 0xC) == "unmapped");
    CHECK(regmap::register_name(0x3000) == "unmapped");
}

TEST_CASE("Register fields are decoded where the map declares them", "[pcie_log]") {
    CHECK(regmap::register_fields(regmap::DOORBELL(0) + regmap::H2C_PIDX, 0x00010005) == "index=5 irq_arm=1");
    CHECK(regmap::register_fields(regmap::DOORBELL(0) + regmap::C2H_PIDX, 7) == "index=7");
    const std::uint32_t control = regmap::control::ENABLE.make(1) | regmap::control::MSIX_VECTOR.make(2) |
                                  regmap::control::RING_SIZE_INDEX.make(4);
    CHECK(regmap::register_fields(regmap::QUEUE(1) + regmap::H2C_CONTROL, control) ==
          "ring_size_index=4 enable=1 status_enable=0 irq_enable=0 msix_vector=2");
    CHECK(regmap::register_fields(regmap::ERROR_STATUS, regmap::error_status::BAD_DOORBELL |
                                                            regmap::error_status::DMA) == "BAD_DOORBELL|DMA");
    CHECK(regmap::register_fields(regmap::QUEUE(0) + regmap::CMPT_STATUS, regmap::status::COLOR.make(1) | 3) ==
          "index=3 error=0 colour=1");
    CHECK(regmap::register_fields(regmap::SCRATCH, 0x1234).empty());
}

TEST_CASE("QDMA descriptors, completion entries and writebacks are described field by field", "[pcie_log]") {
    CHECK(isvp::describe(regmap::H2cDescriptor{0x12340, 24, regmap::H2C_SOP | regmap::H2C_EOP | regmap::H2C_SDI}) ==
          "addr=0x12340 len=24 flags=SOP|EOP|SDI");
    CHECK(isvp::describe(regmap::C2hDescriptor{0x1c400}) == "buffer=0x1c400");
    isvp::ProcessorHeader header;
    header.message_bytes = 24;
    header.rank = 0;
    regmap::CompletionEntry entry{header.encode(), 0, 24,
                                  static_cast<std::uint16_t>(regmap::CMPT_LAST | regmap::CMPT_COLOR)};
    CHECK(isvp::describe(entry) == "{send 24 B rank 0 ctx 0} offset=0 len=24 flags=LAST colour=1");
    CHECK(isvp::describe(regmap::StatusWriteback{5, 4, isvp::kWritebackColour}, true) ==
          "pidx=5 cidx=4 colour=1 error=0");
    CHECK(isvp::describe(regmap::StatusWriteback{5, 5, 0}, false) == "pidx=5 cidx=5 error=0");
}

TEST_CASE("Transactions are written in time order whatever order they are recorded in", "[pcie_log]") {
    const std::string path = temporary_path("order");
    {
        PcieTransactionLog log(path, PcieLogFilter{}, 100, 2, nullptr);
        const std::uint32_t doorbell[1] = {0x00010005};
        // An MSI-X raised with a delay is recorded before a later doorbell
        // that happens earlier.
        log.msix(0, 1000000, 3000000, 3900000, 1, 0xFEE00000, 1);
        log.mmio(1, 1000000, 2000000, 2000000, true, regmap::DOORBELL(0) + regmap::H2C_PIDX, doorbell, 1);
        std::uint8_t bytes[16];
        isvp::encode_h2c_descriptor(regmap::H2cDescriptor{0x41c000, 24, regmap::H2C_SOP | regmap::H2C_EOP}, bytes);
        log.dma(1, 2000000, 2000000, 3804515, false, 0x40, 16, DmaTag{DmaPurpose::H2cDescriptorFetch, 0, 4}, bytes,
                true);
    }
    const auto lines = transaction_lines(path);
    REQUIRE(lines.size() == 3);
    CHECK(lines[0] == "      2.000000 us node 1 MMIO W  0x08000 H2C_PIDX[q0] = 0x00010005 (index=5 irq_arm=1)");
    CHECK(lines[1] ==
          "      2.000000 us node 1 DMA  RD 0x0000000000000040 +16 h2c q0 descriptor[4]: addr=0x41c000 "
          "len=24 flags=SOP|EOP (done 3.804515 us)");
    CHECK(lines[2] ==
          "      3.000000 us node 0 MSIX vector 1 address 0xfee00000 data 0x00000001 (at host 3.900000 us)");
}

TEST_CASE("A refused MMIO access is logged with the reason", "[pcie_log]") {
    const std::string path = temporary_path("refused");
    {
        PcieTransactionLog log(path, PcieLogFilter{}, 100, 1, nullptr);
        log.mmio_refused(0, 0, 900000, true, 0x8002, 4,
                         "BAR0 write of 4 bytes at 0x8002 refused: only aligned 4- or 8-byte accesses");
    }
    const auto lines = transaction_lines(path);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] ==
          "      0.900000 us node 0 MMIO W  0x08002 4 B REFUSED: BAR0 write of 4 bytes at 0x8002 refused: "
          "only aligned 4- or 8-byte accesses");
}

TEST_CASE("A DMA the host refused is marked, its bytes not decoded", "[pcie_log]") {
    const std::string path = temporary_path("dma_refused");
    {
        PcieTransactionLog log(path, PcieLogFilter{}, 100, 1, nullptr);
        log.dma(0, 0, 0, 1800000, false, 0x7fff0000, 16, DmaTag{DmaPurpose::H2cDescriptorFetch, 3, 0}, nullptr, false);
        std::uint8_t entry[16] = {};
        log.dma(0, 0, 0, 900000, true, 0xc000, 16, DmaTag{DmaPurpose::CmptEntry, 3, 7}, entry, true);
    }
    const auto lines = transaction_lines(path);
    REQUIRE(lines.size() == 2);
    CHECK(contains(lines[0], "DMA  RD 0x000000007fff0000 +16 h2c q3 descriptor[0] (REFUSED by the host"));
    CHECK(contains(lines[1],
                   "DMA  WR 0x000000000000c000 +16 cmpt q3 entry[7]: {send 0 B rank 0 ctx 0} offset=0 len=0 "
                   "flags=- colour=0"));
}

TEST_CASE("The node filter leaves other nodes out and the register range filters MMIO only", "[pcie_log]") {
    const std::string path = temporary_path("filters");
    {
        PcieLogFilter filter;
        filter.nodes = PcieLogFilter::parse_nodes("1", "trace.pcie_nodes");
        filter.registers = PcieLogFilter::parse_registers("0x8000-0x83ff", "trace.pcie_registers");
        PcieTransactionLog log(path, filter, 100, 2, nullptr);
        CHECK_FALSE(log.logs_node(0));
        CHECK(log.logs_node(1));
        const std::uint32_t value[1] = {1};
        log.mmio(0, 0, 10, 10, true, regmap::DOORBELL(0) + regmap::H2C_PIDX, value, 1);  // other node
        log.mmio(1, 0, 20, 20, true, regmap::DOORBELL(0) + regmap::H2C_PIDX, value, 1);  // logged
        log.mmio(1, 0, 30, 30, true, regmap::SCRATCH, value, 1);                         // outside the range
        log.msix(1, 0, 40, 50, 0, 0xFEE00000, 0);                                        // not MMIO: logged
    }
    const auto lines = transaction_lines(path);
    REQUIRE(lines.size() == 2);
    CHECK(contains(lines[0], "node 1 MMIO W  0x08000 H2C_PIDX[q0]"));
    CHECK(contains(lines[1], "node 1 MSIX vector 0"));
}

TEST_CASE("Filter numbers are decimal or 0x hexadecimal, never octal", "[pcie_log]") {
    const auto nodes = PcieLogFilter::parse_nodes("010,0x10", "trace.pcie_nodes");
    REQUIRE(nodes.size() == 2);
    CHECK(nodes[0].first == 10);  // stoull's base 0 read it as octal: node 8
    CHECK(nodes[1].first == 16);
    CHECK(PcieLogFilter::parse_registers("32768-0x83ff", "trace.pcie_registers").first == 0x8000);
}

TEST_CASE("Bad filters are refused naming the parameter", "[pcie_log]") {
    CHECK_THROWS_WITH(PcieLogFilter::parse_nodes("0,x", "trace.pcie_nodes"),
                      Catch::Contains("trace.pcie_nodes='0,x': 'x' is not a number"));
    CHECK_THROWS_WITH(PcieLogFilter::parse_nodes("3-1", "trace.pcie_nodes"), Catch::Contains("ends before it starts"));
    CHECK_THROWS_WITH(PcieLogFilter::parse_nodes("0,,1", "trace.pcie_nodes"), Catch::Contains("separated by commas"));
    CHECK_THROWS_WITH(PcieLogFilter::parse_registers("0x8000-", "trace.pcie_registers"),
                      Catch::Contains("trace.pcie_registers"));
    CHECK_THROWS_WITH(PcieLogFilter::parse_nodes("-1", "trace.pcie_nodes"),
                      Catch::Contains("trace.pcie_nodes='-1': '-1' is not a number or a range A-B"));
    CHECK(PcieLogFilter::parse_nodes("all", "trace.pcie_nodes").empty());
    const auto range = PcieLogFilter::parse_registers("0x1000-0x1fff", "trace.pcie_registers");
    CHECK(range.first == 0x1000);
    CHECK(range.last == 0x1fff);
    const std::string path = temporary_path("bad_node");
    PcieLogFilter filter;
    filter.nodes = PcieLogFilter::parse_nodes("0-2", "trace.pcie_nodes");
    CHECK_THROWS_WITH(PcieTransactionLog(path, filter, 10, 2, nullptr),
                      Catch::Contains("trace.pcie_nodes names node 2, but the platform has 2 nodes"));
    CHECK_THROWS_WITH(PcieTransactionLog("/nonexistent-dir/x.log", PcieLogFilter{}, 10, 2, nullptr),
                      Catch::Contains("cannot write the PCIe transaction log '/nonexistent-dir/x.log'"));
}

TEST_CASE("The log stops at max_events and ends with a note of how many more there were", "[pcie_log]") {
    const std::string path = temporary_path("cap");
    {
        PcieTransactionLog log(path, PcieLogFilter{}, 3, 1, nullptr);
        for (unsigned i = 0; i < 10; ++i) log.msix(0, i, i, i + 1, 0, 0xFEE00000, 0);
        CHECK(log.written() == 3);
        CHECK(log.dropped() == 7);
    }
    std::vector<std::string> comments;
    const auto lines = transaction_lines(path, &comments);
    CHECK(lines.size() == 3);
    REQUIRE_FALSE(comments.empty());
    CHECK(comments.back() == "# TRUNCATED: 7 more transactions were not written (trace.pcie_max_events=3)");
}

TEST_CASE("With a Perfetto trace each node gets a 'pcie' track whose slices do not overlap", "[pcie_log]") {
    const std::string path = temporary_path("perfetto");
    const std::string json_path = path + ".json";
    {
        isvp::TraceWriter trace(json_path, 100);
        PcieTransactionLog log(path, PcieLogFilter{}, 100, 2, &trace);
        std::uint8_t data[8] = {};
        // Two DMAs issued together, done at different times.
        log.dma(1, 1000, 1000, 5000, false, 0x1000, 8, DmaTag{DmaPurpose::H2cData, 0, 0}, data, true);
        log.dma(1, 1000, 2000, 6000, false, 0x2000, 8, DmaTag{DmaPurpose::H2cData, 0, 1}, data, true);
        log.finish();
    }
    std::ifstream in(json_path);
    const auto document = nlohmann::json::parse(in);
    std::remove(json_path.c_str());
    std::remove(path.c_str());
    std::vector<nlohmann::json> slices;
    bool named = false;
    for (const auto& event : document["traceEvents"]) {
        if (event["ph"] == "M" && event["name"] == "thread_name" && event["pid"] == 2 &&
            event["tid"] == isvp::kPcieTraceTid && event["args"]["name"] == "pcie")
            named = true;
        if (event["ph"] == "X" && event["cat"] == "pcie") slices.push_back(event);
    }
    CHECK(named);
    REQUIRE(slices.size() == 2);
    CHECK(slices[0]["pid"] == 2);
    CHECK(slices[0]["ts"].get<double>() == Approx(0.001));
    CHECK(slices[0]["dur"].get<double>() == Approx(0.001));  // cut where the next one starts
    CHECK(slices[1]["dur"].get<double>() == Approx(0.004));  // the last one: until done
    CHECK(contains(slices[1]["args"]["transaction"].get<std::string>(), "h2c q0 data of descriptor[1]"));
}
