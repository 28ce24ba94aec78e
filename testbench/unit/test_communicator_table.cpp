// CommunicatorTable: the CT rows, the forwarding table and the accelerator
// CSR window that programs them, without SystemC.
#include <catch2/catch.hpp>

#include <vector>

#include "isvp/communicator_table.h"

using namespace isvp;

namespace {
const auto kNeverBusy = [](unsigned) { return false; };

CommunicatorTable make_table(std::uint64_t early_buffer_bytes = 1 << 20) {
    return CommunicatorTable(16, early_buffer_bytes, 32 * 1024, AcceleratorCapabilities{4, 7, 0x7, 64ull << 20});
}

std::uint32_t write(CommunicatorTable& t, std::uint32_t offset, std::uint32_t value,
                    CsrOutcome::Command expect = CsrOutcome::Command::None) {
    const CsrOutcome out = t.access(offset, true, value, kNeverBusy, {});
    CHECK(out.mapped);
    CHECK(out.command == expect);
    return out.read;
}

std::uint32_t read(CommunicatorTable& t, std::uint32_t offset) {
    return t.access(offset, false, 0, kNeverBusy, AcceleratorCounters{3, 5}).read;
}

/// Writes `row` into CT_STAGING and selects `context`.
void stage(CommunicatorTable& t, unsigned context, const CtRow& row) {
    const CtRow::Dwords dwords = row.encode();
    for (unsigned i = 0; i < dwords.size(); ++i) write(t, regmap::CT_STAGING(i), dwords[i]);
    write(t, regmap::CT_SELECT, context);
}
}  // namespace

TEST_CASE("accelerator CSRs report capabilities, sizes and the owner's counters", "[collective][table]") {
    CommunicatorTable t = make_table();
    namespace cap = regmap::accel_capabilities;
    const std::uint32_t caps = read(t, regmap::ACCEL_CAPABILITIES);
    CHECK(cap::CT_ROWS.get(caps) == 32);
    CHECK(cap::CGR_UNITS.get(caps) == 4);
    CHECK(cap::RADIX.get(caps) == 7);
    CHECK(cap::ALGORITHMS.get(caps) == 0x7);
    CHECK(read(t, regmap::CT_SIZE_BITS) == 32 * regmap::kCtRowBits);
    CHECK(read(t, regmap::ACCEL_MAX_BUFFER_BYTES) == 64u << 20);
    CHECK(read(t, regmap::ACCEL_DROPPED) == 3);
    CHECK(read(t, regmap::ACCEL_ERRORS) == 5);
    const CsrOutcome unmapped = t.access(0x7F00, true, 1, kNeverBusy, {});
    CHECK_FALSE(unmapped.mapped);
    CHECK(unmapped.read == 0xFFFFFFFFu);
}

TEST_CASE("a staged CT row is loaded into the selected row and released again", "[collective][table]") {
    CommunicatorTable t = make_table();
    const CtRow row = make_ct_row(1, {10, 11, 12, 13});  // comm rank 1 of 4: peers 0 and 3
    stage(t, 5, row);
    CHECK(read(t, regmap::CT_SELECT) == 5);
    CHECK(read(t, regmap::CT_VALID) == 0);
    write(t, regmap::CT_COMMAND, regmap::ct_command::LOAD.make(1), CsrOutcome::Command::Load);
    const CommunicatorTable::LoadResult load = t.load(5);
    CHECK(load.loaded);
    CHECK(load.present == 2);
    CHECK(load.need == 3 * 32 * 1024);
    CHECK(t.valid(5));
    CHECK(t.row(5).global == row.global);
    CHECK(t.reserved(5) == load.need);
    CHECK(read(t, regmap::CT_VALID) == 1u << 5);
    namespace st = regmap::ct_command_status;
    CHECK(st::RESULT.get(read(t, regmap::CT_COMMAND_STATUS)) == st::kDone);
    CHECK(st::ROW.get(read(t, regmap::CT_COMMAND_STATUS)) == 5);

    write(t, regmap::CT_COMMAND, regmap::ct_command::RELEASE.make(1), CsrOutcome::Command::Release);
    t.release(5, true);
    CHECK_FALSE(t.valid(5));
    CHECK(t.reserved_total() == 0);
    CHECK(st::RESULT.get(read(t, regmap::CT_COMMAND_STATUS)) == st::kReleasedAborting);
}

TEST_CASE("a LOAD whose receive windows do not fit the early buffer is refused", "[collective][table]") {
    CommunicatorTable t = make_table(4 * 32 * 1024);  // room for 4 windows
    stage(t, 0, make_ct_row(0, {0, 1, 2, 3}));        // 2 peers: 3 windows
    REQUIRE(t.load(0).loaded);
    stage(t, 1, make_ct_row(0, {4, 5}));  // 1 peer: 2 windows, 1 free
    const CommunicatorTable::LoadResult refused = t.load(1);
    CHECK_FALSE(refused.loaded);
    CHECK(refused.need == 2 * 32 * 1024);
    CHECK(refused.free == 32 * 1024);
    CHECK_FALSE(t.valid(1));
    namespace st = regmap::ct_command_status;
    CHECK(st::RESULT.get(t.command_status()) == st::kLoadRefusedMemory);
    CHECK(st::ROW.get(t.command_status()) == 1);
    // Reloading row 0 with a smaller row frees its old reservation first.
    stage(t, 0, make_ct_row(0, {0, 1}));
    CHECK(t.load(0).loaded);
    CHECK(t.reserved_total() == 2 * 32 * 1024);
    CHECK(t.load(1).loaded);  // staging still holds the 2-member row
    CHECK(t.reserved_total() == 4 * 32 * 1024);
}

TEST_CASE("a LOAD of a busy row is refused and CT_BUSY reads the owner's busy rows", "[collective][table]") {
    CommunicatorTable t = make_table();
    const auto busy = [](unsigned row) { return row == 2 || row == 7; };
    CHECK(t.access(regmap::CT_BUSY, false, 0, busy, {}).read == ((1u << 2) | (1u << 7)));
    t.access(regmap::CT_SELECT, true, 7, busy, {});
    const CsrOutcome out = t.access(regmap::CT_COMMAND, true, regmap::ct_command::LOAD.make(1), busy, {});
    CHECK(out.command == CsrOutcome::Command::LoadRefusedBusy);
    CHECK(out.row == 7);
    namespace st = regmap::ct_command_status;
    CHECK(st::RESULT.get(t.command_status()) == st::kLoadRefusedBusy);
    CHECK_FALSE(t.valid(7));
}

TEST_CASE("the forwarding table maps global ranks to nodes, identity at reset", "[collective][table]") {
    CommunicatorTable t = make_table();  // 16 nodes
    CHECK(t.node_of_global(3) == 3);
    CHECK_FALSE(t.node_of_global(16));  // no such node
    write(t, regmap::FORWARD_INDEX, 100);
    const CsrOutcome one = t.access(regmap::FORWARD_NODE, true, 9, kNeverBusy, {});
    CHECK(one.forwarding_changed);
    CHECK(t.node_of_global(100) == 9);
    CHECK(read(t, regmap::FORWARD_INDEX) == 101);
    // FORWARD_FILL: ranks 200..203 on nodes 4..7.
    write(t, regmap::FORWARD_INDEX, 200);
    write(t, regmap::FORWARD_FILL, regmap::forward_fill::COUNT.make(4) | regmap::forward_fill::FIRST_NODE.make(4));
    for (std::uint16_t k = 0; k < 4; ++k) CHECK(t.node_of_global(static_cast<std::uint16_t>(200 + k)) == 4 + k);
    CHECK(read(t, regmap::FORWARD_INDEX) == 204);
}

TEST_CASE("the forwarding table keeps only written entries, the rest stay at the identity", "[collective][table]") {
    CommunicatorTable t = make_table();  // 16 nodes
    // An identity fill of the whole table (COUNT 0 = 65536) changes nothing.
    write(t, regmap::FORWARD_INDEX, 0);
    write(t, regmap::FORWARD_FILL, regmap::forward_fill::COUNT.make(0) | regmap::forward_fill::FIRST_NODE.make(0));
    for (std::uint16_t g : {0, 5, 15}) CHECK(t.node_of_global(g) == g);
    CHECK_FALSE(t.node_of_global(65535));
    // One entry far up: those below it and above it keep their reset value.
    write(t, regmap::FORWARD_INDEX, 40000);
    write(t, regmap::FORWARD_NODE, 2);
    CHECK(t.node_of_global(40000) == 2);
    CHECK(t.node_of_global(7) == 7);
    CHECK_FALSE(t.node_of_global(39999));
    CHECK_FALSE(t.node_of_global(40001));
    // A fill that wraps past the last entry: 65534, 65535, 0, 1 on nodes 8..11.
    write(t, regmap::FORWARD_INDEX, 65534);
    write(t, regmap::FORWARD_FILL, regmap::forward_fill::COUNT.make(4) | regmap::forward_fill::FIRST_NODE.make(8));
    CHECK(t.node_of_global(65534) == 8);
    CHECK(t.node_of_global(65535) == 9);
    CHECK(t.node_of_global(0) == 10);
    CHECK(t.node_of_global(1) == 11);
    CHECK(t.node_of_global(2) == 2);
    CHECK(read(t, regmap::FORWARD_INDEX) == 2);
}

TEST_CASE("peer nodes come from the row, else from comm rank 0 and the root", "[collective][table]") {
    CommunicatorTable t = make_table();
    const CtRow row = make_ct_row(2, {10, 11, 12, 13, 14});  // rank 2 of 5: peers 3, 0 (and 6 absent)
    CollectiveEnvelope e;
    e.size = 5;
    e.root = 4;
    e.global_rank0 = 10;
    e.global_root = 14;
    write(t, regmap::FORWARD_INDEX, 10);
    write(t, regmap::FORWARD_FILL, regmap::forward_fill::COUNT.make(5) | regmap::forward_fill::FIRST_NODE.make(1));
    CHECK(t.peer_node(row, 2, e, 3) == 4);  // neighbour: global 13 -> node 4
    CHECK(t.peer_node(row, 2, e, 0) == 1);
    CHECK(t.peer_node(row, 2, e, 4) == 5);  // the root, not a neighbour
    CHECK_FALSE(t.peer_node(row, 2, e, 1));
}
