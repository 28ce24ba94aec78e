// The driver's side of collective offload, against a fake device (one rank):
// the bring-up probe, forwarding table and CT rows through the accelerator
// window, the request packet and envelope of docs/COLLECTIVES.md, and result
// assembly — including error results (datatype field 0xF). The switch's
// collective engine is not in the platform yet; this is the contract the
// integration must meet.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "isvp/collectives.h"
#include "isvp/communicator.h"
#include "isvp/driver.h"

using namespace isvp;
using namespace isvp::guest;
namespace rm = isvp::regmap;

namespace {

/// A processor packet the driver posted, and what the fake switch answers.
struct Packet {
    ProcessorHeader header;
    std::vector<std::uint8_t> payload;
};

/// One rank's device: the QDMA registers bring-up reads, an accelerator
/// window answering `capabilities` and `max_buffer_bytes`, H2C descriptors parsed into packets and
/// answered by `respond` with completions written into the C2H/CMPT rings.
class FakeDevice : public DeviceTransport {
  public:
    explicit FakeDevice(std::uint32_t capabilities, std::uint32_t packet_bytes = 64,
                        std::uint32_t max_buffer_bytes = 64u << 20)
        : capabilities_(capabilities),
          packet_bytes_(packet_bytes),
          max_buffer_bytes_(max_buffer_bytes),
          memory_(1u << 20) {}

    static DriverConfig config() {
        DriverConfig config;
        // The fake device parses H2C descriptors and raises MSI-X: the
        // descriptor-fetch path with interrupts (no PIO window, no standing
        // descriptors, no polled host-memory updates).
        config.send_path = SendPath::Fetch;
        config.completion = CompletionMode::Msi;
        config.h2c_ring_entries = 64;
        config.c2h_ring_entries = 64;
        config.cmpt_ring_entries = 64;
        config.staging_bytes = 1u << 16;
        return config;
    }

    std::function<std::optional<Packet>(const Packet&)> respond;  ///< the switch's answer to a request
    /// Instead of `respond`: several answers in a row, each cut after
    /// `packets` of its packets when that is not 0 (a result the switch
    /// began and then ended with an error).
    struct Answer {
        Packet packet;
        std::size_t packets = 0;
    };
    std::function<std::vector<Answer>(const Packet&)> respond_many;
    std::vector<Packet> requests;                                 ///< every packet posted
    std::vector<std::pair<std::uint32_t, std::uint32_t>> writes;  ///< every MMIO write
    std::vector<std::uint32_t> reads;                             ///< every MMIO read offset

    bool touched_accelerator_after_probe() const {
        for (const auto& [offset, value] : writes)
            if (offset >= rm::ACCELERATOR_BASE && offset < rm::ACCELERATOR_END) return true;
        int window_reads = 0;
        for (const std::uint32_t offset : reads)
            if (offset >= rm::ACCELERATOR_BASE && offset < rm::ACCELERATOR_END) ++window_reads;
        return window_reads > 1;
    }
    bool read_accelerator() const {
        for (const std::uint32_t offset : reads)
            if (offset >= rm::ACCELERATOR_BASE && offset < rm::ACCELERATOR_END) return true;
        return false;
    }
    std::vector<std::uint32_t> written(std::uint32_t offset) const {
        std::vector<std::uint32_t> values;
        for (const auto& [at, value] : writes)
            if (at == offset) values.push_back(value);
        return values;
    }

    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::uint8_t* host_memory() override { return memory_.data(); }
    std::size_t host_memory_bytes() const override { return memory_.size(); }

    std::uint32_t mmio_read32(std::uint32_t offset) override {
        reads.push_back(offset);
        switch (offset) {
            case rm::ID:
                return rm::kIdValue;
            case rm::VERSION:
                return rm::kVersionValue;
            case rm::NODE_COUNT:
                return 1;
            case rm::PACKET_BYTES:
                return packet_bytes_;
            case rm::QUEUE_COUNT:
                return 1;
            case rm::ERROR_STATUS:
                return unmapped_ ? rm::error_status::UNMAPPED_ACCESS : 0;
            case rm::ACCEL_CAPABILITIES:
                if (capabilities_ == 0xFFFFFFFFu) unmapped_ = true;
                return capabilities_;
            case rm::CT_VALID:
                return ct_valid_;
            case rm::ACCEL_MAX_BUFFER_BYTES:
                return max_buffer_bytes_;
            default:
                return 0;
        }
    }

    void mmio_write32(std::uint32_t offset, std::uint32_t value) override {
        writes.emplace_back(offset, value);
        const std::uint32_t q = rm::QUEUE(0);
        if (offset == rm::ERROR_STATUS) unmapped_ = unmapped_ && !(value & rm::error_status::UNMAPPED_ACCESS);
        if (offset == q + rm::H2C_BASE_LO) h2c_ring_ = value;
        if (offset == q + rm::C2H_BASE_LO) c2h_ring_ = value;
        if (offset == q + rm::CMPT_BASE_LO) cmpt_ring_ = value;
        if (offset == rm::DOORBELL(0) + rm::H2C_PIDX) consume_h2c(rm::doorbell::INDEX.get(value));
        if (offset == rm::CT_SELECT) ct_select_ = value & 0x1F;
        if (offset == rm::CT_COMMAND && rm::ct_command::LOAD.get(value)) ct_valid_ |= 1u << ct_select_;
        if (offset == rm::CT_COMMAND && rm::ct_command::RELEASE.get(value)) ct_valid_ &= ~(1u << ct_select_);
    }

    unsigned wait_interrupt(std::uint64_t mask) override {
        for (unsigned vector = 0; vector < 64; ++vector)
            if ((pending_ & mask) >> vector & 1u) {
                pending_ &= ~(1ull << vector);
                return vector;
            }
        throw TransportError("fake device: the driver waits for an interrupt that can never come");
    }
    std::uint64_t now_ps() override { return 0; }
    void compute(std::uint64_t) override {}
    void finish(int) override {}

  private:
    static constexpr unsigned kEntries = 64;      ///< every ring (config())
    std::uint32_t ct_select_ = 0, ct_valid_ = 0;  ///< CT_SELECT, CT_VALID (every LOAD fits)

    void consume_h2c(std::uint32_t pidx) {
        while (h2c_cidx_ != pidx) {
            rm::H2cDescriptor descriptor;
            std::memcpy(&descriptor, memory_.data() + h2c_ring_ + h2c_cidx_ * sizeof descriptor, sizeof descriptor);
            if (descriptor.flags & rm::H2C_SOP) building_.clear();
            building_.insert(building_.end(), memory_.data() + descriptor.address,
                             memory_.data() + descriptor.address + descriptor.length);
            h2c_cidx_ = (h2c_cidx_ + 1) % (kEntries - 1);
            if (descriptor.flags & rm::H2C_EOP) deliver_request();
        }
        const rm::StatusWriteback status{static_cast<std::uint16_t>(pidx), static_cast<std::uint16_t>(h2c_cidx_), 0};
        std::memcpy(memory_.data() + h2c_ring_ + (kEntries - 1) * sizeof(rm::H2cDescriptor), &status, sizeof status);
        pending_ |= 1u << 1;
    }

    void deliver_request() {
        Packet request;
        request.header = *ProcessorHeader::read(building_.data());
        request.payload.assign(building_.begin() + ProcessorHeader::kBytes, building_.end());
        requests.push_back(request);
        if (respond_many) {
            for (const Answer& answer : respond_many(request)) complete(answer.packet, answer.packets);
            return;
        }
        if (!respond) return;
        if (const std::optional<Packet> result = respond(request)) complete(*result, 0);
    }

    /// Writes `result`'s completions, one per network packet of at most
    /// packet_bytes_ payload (only the first `packets` when not 0).
    void complete(const Packet& result, std::size_t packets) {
        const Packet* const answer = &result;
        const std::uint32_t total = static_cast<std::uint32_t>(answer->payload.size());
        std::uint32_t offset = 0;
        std::size_t written = 0;
        do {
            const std::uint32_t length = std::min(packet_bytes_, total - offset);
            rm::C2hDescriptor buffer;
            std::memcpy(&buffer, memory_.data() + c2h_ring_ + c2h_next_ * sizeof buffer, sizeof buffer);
            if (length) std::memcpy(memory_.data() + buffer.address, answer->payload.data() + offset, length);
            ProcessorHeader header = answer->header;
            header.message_bytes = total;
            const rm::CompletionEntry entry{header.encode(), offset, static_cast<std::uint16_t>(length),
                                            static_cast<std::uint16_t>((offset + length == total ? rm::CMPT_LAST : 0) |
                                                                       (cmpt_color_ ? rm::CMPT_COLOR : 0))};
            std::memcpy(memory_.data() + cmpt_ring_ + cmpt_pidx_ * sizeof entry, &entry, sizeof entry);
            c2h_next_ = (c2h_next_ + 1) % (kEntries - 1);
            if (++cmpt_pidx_ == kEntries - 1) {
                cmpt_pidx_ = 0;
                cmpt_color_ = !cmpt_color_;
            }
            offset += length;
        } while (offset < total && (packets == 0 || ++written < packets));
        pending_ |= 1u << 0;
    }

    std::uint32_t capabilities_;
    std::uint32_t packet_bytes_;
    std::uint32_t max_buffer_bytes_;  ///< ACCEL_MAX_BUFFER_BYTES
    std::vector<std::uint8_t> memory_;
    bool unmapped_ = false;
    std::uint64_t h2c_ring_ = 0, c2h_ring_ = 0, cmpt_ring_ = 0;
    std::uint32_t h2c_cidx_ = 0, c2h_next_ = 0, cmpt_pidx_ = 0;
    bool cmpt_color_ = true;
    std::vector<std::uint8_t> building_;
    std::uint64_t pending_ = 0;
};

/// 32 CT rows, the given algorithms (bit a: Algorithm a).
std::uint32_t accelerator(unsigned algorithms = 0b0111) {
    return rm::accel_capabilities::CT_ROWS.make(32) | rm::accel_capabilities::CGR_UNITS.make(4) |
           rm::accel_capabilities::RADIX.make(7) | rm::accel_capabilities::ALGORITHMS.make(algorithms);
}

template <typename T>
T field(const std::vector<std::uint8_t>& bytes, std::size_t at) {
    T value;
    std::memcpy(&value, bytes.data() + at, sizeof value);
    return value;
}

/// The switch's answer: the collective's opcode, rank = own comm rank, the
/// given payload.
Packet result_of(const Packet& request, std::vector<std::uint8_t> payload) {
    Packet result;
    result.header = request.header;
    result.header.rank = 0;
    result.payload = std::move(payload);
    return result;
}

}  // namespace

TEST_CASE("Without an accelerator the driver reads its window once and clears the unmapped access",
          "[driver][offload]") {
    FakeDevice device(0xFFFFFFFFu);
    Driver driver(device, FakeDevice::config());
    CHECK_FALSE(driver.accelerator().present);
    Collectives collectives(driver);
    std::int32_t one = 1, sum = 0;
    collectives.allreduce(collectives.world(), &one, &sum, 1, Datatype::Int32, Operation::Sum);
    CHECK(sum == 1);
    CHECK(collectives.offloaded_calls() == 0);
    CHECK_FALSE(collectives.world().offloadable);
    CHECK_FALSE(device.touched_accelerator_after_probe());
    CHECK(device.written(rm::ERROR_STATUS) == std::vector<std::uint32_t>{rm::error_status::UNMAPPED_ACCESS});
}

TEST_CASE("With offload off the driver never touches the accelerator window", "[driver][offload]") {
    FakeDevice device(accelerator());
    DriverConfig config = FakeDevice::config();
    config.offload = false;
    Driver driver(device, config);
    Collectives collectives(driver, false);
    collectives.barrier(collectives.world());
    CHECK_FALSE(device.read_accelerator());
    CHECK_FALSE(device.touched_accelerator_after_probe());
    CHECK(collectives.offloaded_calls() == 0);
}

TEST_CASE("Bring-up with an accelerator writes the forwarding table and world's CT row", "[driver][offload]") {
    FakeDevice device(accelerator());
    Driver driver(device, FakeDevice::config());
    REQUIRE(driver.accelerator().present);
    CHECK(driver.accelerator().ct_rows == 32);
    CHECK(device.written(rm::FORWARD_INDEX) == std::vector<std::uint32_t>{0});
    CHECK(device.written(rm::FORWARD_FILL) ==
          std::vector<std::uint32_t>{rm::forward_fill::COUNT.make(1) | rm::forward_fill::FIRST_NODE.make(0)});
    CHECK(device.written(rm::FORWARD_NODE).empty());
    Collectives collectives(driver);
    CHECK(collectives.world().offloadable);
    CHECK(device.written(rm::CT_SELECT) == std::vector<std::uint32_t>{0});
    const auto row = ct_row({0}, 0);
    for (unsigned i = 0; i < rm::kCtStagingDwords; ++i)
        CHECK(device.written(rm::CT_STAGING(i)) == std::vector<std::uint32_t>{row[i]});
    CHECK(device.written(rm::CT_COMMAND) == std::vector<std::uint32_t>{rm::ct_command::LOAD.make(1)});
}

TEST_CASE("An offloaded allreduce posts one request with the envelope and returns the switch's result",
          "[driver][offload]") {
    FakeDevice device(accelerator());
    device.respond = [](const Packet& request) { return result_of(request, {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}); };
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    Communicator& world = collectives.world();
    const std::uint32_t sequence = world.sequence;
    const std::int32_t send[3] = {7, 8, 9};
    std::int32_t recv[3] = {};
    collectives.allreduce(world, send, recv, 3, Datatype::Int32, Operation::Max);
    CHECK(collectives.offloaded_calls() == 1);
    CHECK(recv[0] == 1);
    CHECK(recv[2] == 3);
    REQUIRE(device.requests.size() == 1);
    const Packet& request = device.requests[0];
    CHECK(request.header.opcode == Opcode::Allreduce);
    CHECK(request.header.context_id == 0);
    CHECK(request.header.operation == static_cast<std::uint8_t>(Operation::Max));
    CHECK(request.header.datatype == static_cast<std::uint8_t>(Datatype::Int32));
    CHECK(request.header.algorithm == static_cast<std::uint8_t>(Algorithm::RecursiveDoubling));
    CHECK(request.header.rank == 0);
    CHECK(request.header.message_bytes == 16 + 12);
    REQUIRE(request.payload.size() == 28);
    CHECK(field<std::uint32_t>(request.payload, 0) == 3);   // elements per block
    CHECK(field<std::uint16_t>(request.payload, 4) == 1);   // communicator size
    CHECK(field<std::uint16_t>(request.payload, 6) == 0);   // root comm rank
    CHECK(field<std::uint16_t>(request.payload, 8) == 0);   // global rank of comm rank 0
    CHECK(field<std::uint16_t>(request.payload, 10) == 0);  // global rank of the root
    CHECK(field<std::uint32_t>(request.payload, 12) == sequence);
    CHECK(field<std::int32_t>(request.payload, 16) == 7);  // the contribution
    CHECK(world.sequence == sequence + 1);
}

TEST_CASE("A result longer than a packet is assembled from several completions", "[driver][offload]") {
    FakeDevice device(accelerator(), 64);
    std::vector<std::uint8_t> result(40 * 4);
    for (std::size_t i = 0; i < result.size(); ++i) result[i] = static_cast<std::uint8_t>(i * 7);
    device.respond = [&](const Packet& request) { return result_of(request, result); };
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    std::vector<std::uint8_t> send(160, 1), recv(160, 0);
    collectives.gather(collectives.world(), send.data(), recv.data(), 40, Datatype::Int32, 0);
    CHECK(recv == result);
    CHECK(device.requests.at(0).header.opcode == Opcode::Gather);
}

TEST_CASE("A barrier's result is a single empty completion", "[driver][offload]") {
    FakeDevice device(accelerator());
    device.respond = [](const Packet& request) { return result_of(request, {}); };
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    collectives.barrier(collectives.world());
    CHECK(collectives.offloaded_calls() == 1);
    CHECK(device.requests.at(0).header.message_bytes == 16);
    CHECK(field<std::uint32_t>(device.requests.at(0).payload, 0) == 0);
}

TEST_CASE("An error result (datatype field 0xF) raises a DriverError naming the code", "[driver][offload]") {
    FakeDevice device(accelerator());
    device.respond = [](const Packet& request) {
        Packet error = result_of(request, {2, 0, 0, 0});
        error.header.datatype = kErrorResultDatatype;
        return error;
    };
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    std::int32_t x = 0;
    CHECK_THROWS_WITH(collectives.allreduce(collectives.world(), &x, &x, 1, Datatype::Int32, Operation::Sum),
                      Catch::Contains("allreduce on context 0 failed in the switch: error code 2 (unsupported"));
}

TEST_CASE("An error result ends a result the switch had begun, and the context goes on", "[driver][offload]") {
    // A collective that fails while its result streams up (packets lost for
    // good after part of an Alltoall's result had gone to the host): the
    // error result follows the first packets of the data result.
    FakeDevice device(accelerator(), 64);
    bool fail = true;
    device.respond_many = [&](const Packet& request) {
        std::vector<FakeDevice::Answer> answers;
        if (!fail) {
            answers.push_back({result_of(request, std::vector<std::uint8_t>(160, 3)), 0});
            return answers;
        }
        answers.push_back({result_of(request, std::vector<std::uint8_t>(160, 9)), 1});  // 64 of 160 bytes
        Packet error = result_of(request, {2, 0, 0, 0});
        error.header.datatype = kErrorResultDatatype;
        answers.push_back({error, 0});
        return answers;
    };
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    std::vector<std::uint8_t> send(160, 1), recv(160, 0);
    CHECK_THROWS_WITH(collectives.gather(collectives.world(), send.data(), recv.data(), 40, Datatype::Int32, 0),
                      Catch::Contains("gather on context 0 failed in the switch: error code 2"));
    fail = false;
    collectives.gather(collectives.world(), send.data(), recv.data(), 40, Datatype::Int32, 0);
    CHECK(recv == std::vector<std::uint8_t>(160, 3));
}

TEST_CASE("Collectives whose algorithm the switch lacks stay in software", "[driver][offload]") {
    FakeDevice device(accelerator(0b0001));  // binomial tree only
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    const Communicator& world = collectives.world();
    CHECK(collectives.would_offload(world, Opcode::Bcast, std::nullopt, Datatype::Int32, 4));
    CHECK_FALSE(collectives.would_offload(world, Opcode::Allreduce, Operation::Sum, Datatype::Int32, 4));
    CHECK_FALSE(collectives.would_offload(world, Opcode::Allgather, std::nullopt, Datatype::Int32, 4));
    CHECK_FALSE(collectives.would_offload(world, Opcode::Reduce, Operation::Bxor, Datatype::Float64, 8));
    Collectives baseline(driver, false);
    CHECK_FALSE(baseline.would_offload(baseline.world(), Opcode::Bcast, std::nullopt, Datatype::Int32, 4));
}

TEST_CASE("With REDUCTIONS_ONLY (SHArP mode) only Allreduce, Reduce and Barrier are offloaded", "[driver][offload]") {
    FakeDevice device(accelerator() | rm::accel_capabilities::REDUCTIONS_ONLY.make(1));
    Driver driver(device, FakeDevice::config());
    REQUIRE(driver.accelerator().reductions_only);
    Collectives collectives(driver);
    const Communicator& world = collectives.world();
    CHECK(collectives.would_offload(world, Opcode::Allreduce, Operation::Sum, Datatype::Int32, 4));
    CHECK(collectives.would_offload(world, Opcode::Reduce, Operation::Max, Datatype::Float64, 8));
    CHECK(collectives.would_offload(world, Opcode::Barrier, std::nullopt, Datatype::UInt8, 0));
    for (const Opcode other : {Opcode::Bcast, Opcode::Scatter, Opcode::Gather, Opcode::Allgather})
        CHECK_FALSE(collectives.would_offload(world, other, std::nullopt, Datatype::Int32, 4));
    CHECK_FALSE(collectives.would_offload(world, Opcode::ReduceScatter, Operation::Sum, Datatype::Int32, 4));
}

TEST_CASE("A collective whose buffer exceeds ACCEL_MAX_BUFFER_BYTES runs in software", "[driver][offload]") {
    FakeDevice device(accelerator(), 64, 64);     // the switch holds 64-byte buffers
    device.respond = [](const Packet& request) {  // the contribution back, without the envelope
        return result_of(request, std::vector<std::uint8_t>(request.payload.begin() + 16, request.payload.end()));
    };
    Driver driver(device, FakeDevice::config());
    REQUIRE(driver.accelerator().max_buffer_bytes == 64);
    Collectives collectives(driver);
    const Communicator& world = collectives.world();
    CHECK(collectives.would_offload(world, Opcode::Allreduce, Operation::Sum, Datatype::Int32, 64));
    CHECK_FALSE(collectives.would_offload(world, Opcode::Allreduce, Operation::Sum, Datatype::Int32, 65));
    CHECK(collectives.would_offload(world, Opcode::Barrier, std::nullopt, Datatype::UInt8, 0));
    std::vector<std::int32_t> send(17, 5), recv(17, 0);
    const std::uint64_t software_before = collectives.software_calls();  // the CT row's barrier
    collectives.allreduce(collectives.world(), send.data(), recv.data(), 17, Datatype::Int32, Operation::Sum);
    CHECK(collectives.offloaded_calls() == 0);
    CHECK(collectives.software_calls() == software_before + 1);
    CHECK(device.requests.empty());
    CHECK(recv == send);                                                          // one rank: the sum is its own vector
    collectives.bcast(collectives.world(), send.data(), 16, Datatype::Int32, 0);  // 64 bytes: the switch's
    CHECK(collectives.offloaded_calls() == 1);
}

TEST_CASE("dup loads a CT row for the new context and free releases it", "[driver][offload]") {
    FakeDevice device(accelerator());
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    Communicator comm = collectives.dup(collectives.world());
    CHECK(comm.id == 1);
    CHECK(comm.offloadable);
    CHECK(device.written(rm::CT_SELECT) == std::vector<std::uint32_t>{0, 1});
    collectives.free(comm);
    CHECK(device.written(rm::CT_SELECT) == std::vector<std::uint32_t>{0, 1, 1});
    CHECK(device.written(rm::CT_COMMAND).back() == rm::ct_command::RELEASE.make(1));
}

TEST_CASE("retire releases the CT row at once but holds the ID while users remain", "[driver][offload]") {
    FakeDevice device(accelerator());
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    Communicator comm = collectives.dup(collectives.world());
    REQUIRE(comm.id == 1);
    auto users = std::make_shared<int>(0);  // stands for a pending request holding the communicator
    collectives.retire(comm, users);
    CHECK(device.written(rm::CT_COMMAND).back() == rm::ct_command::RELEASE.make(1));
    CHECK(comm.retired);
    CHECK_FALSE(comm.offloadable);
    CHECK(comm.members == std::vector<int>{0});  // pending matching still maps comm ranks
    CHECK_THROWS_WITH(collectives.barrier(comm), Catch::Contains("barrier on a freed communicator"));
    CHECK_THROWS_WITH(collectives.dup(comm), Catch::Contains("dup of a freed communicator"));
    CHECK_THROWS_WITH(collectives.free(comm), Catch::Contains("already freed"));
    Communicator second = collectives.dup(collectives.world());
    CHECK(second.id == 2);  // 1 is still in use
    users.reset();
    Communicator third = collectives.dup(collectives.world());
    CHECK(third.id == 1);  // given back once nobody uses it
    CHECK(third.offloadable);
}

TEST_CASE("Bring-up refuses MSI-X vectors outside the table or shared between uses", "[driver]") {
    FakeDevice device(0xFFFFFFFFu);
    DriverConfig beyond;
    beyond.error_vector = 64;
    CHECK_THROWS_WITH(Driver(device, beyond), Catch::Contains("MSI-X vector 64 outside the table's 0..63"));
    DriverConfig shared;
    shared.h2c_vector = shared.cmpt_vector;
    CHECK_THROWS_WITH(Driver(device, shared), Catch::Contains("must differ"));
}

TEST_CASE("free_ids lists the IDs no communicator holds and adopt takes an agreed one", "[driver][offload]") {
    FakeDevice device(accelerator());
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    CHECK(collectives.free_ids()[0] == 0xFFFFFFFEu);  // the world holds ID 0
    // An inter-communicator's ID: marked used, no CT row, never offloaded.
    Communicator inter = collectives.adopt(40, {0}, 0, false);
    CHECK(inter.id == 40);
    CHECK_FALSE(inter.offloadable);
    CHECK(collectives.free_ids()[1] == 0xFFFFFEFFu);
    CHECK(device.written(rm::CT_SELECT) == std::vector<std::uint32_t>{0});
    CHECK_THROWS_WITH(collectives.adopt(40, {0}, 0, false), Catch::Contains("ID 40 is not free on this rank"));
    CHECK_THROWS_WITH(collectives.adopt(41, {0}, 1, false), Catch::Contains("rank 1 outside a communicator of 1"));
    // An intra-communicator (MPI_Intercomm_merge): its CT row goes to the switch.
    Communicator merged = collectives.adopt(5, {0}, 0, true);
    CHECK(merged.offloadable);
    CHECK(device.written(rm::CT_SELECT) == std::vector<std::uint32_t>{0, 5});
    Communicator next = collectives.dup(collectives.world());
    CHECK(next.id == 1);  // dup still takes the lowest free ID
}

TEST_CASE("An offloaded result goes straight into the receive buffer, with no staging copy in the driver",
          "[driver][offload]") {
    FakeDevice device(accelerator(), 64);
    std::vector<std::uint8_t> result(40 * 4);
    for (std::size_t i = 0; i < result.size(); ++i) result[i] = static_cast<std::uint8_t>(i * 7);
    device.respond = [&](const Packet& request) { return result_of(request, result); };
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    const std::uint64_t before = driver.largest_payload_buffer();
    std::vector<std::uint8_t> send(160, 1), recv(160, 0);
    collectives.allgather(collectives.world(), send.data(), recv.data(), 40, Datatype::Int32);
    CHECK(recv == result);                             // three completions, each copied into recv
    CHECK(driver.largest_payload_buffer() == before);  // none staged
    CHECK(driver.largest_payload_buffer() < result.size());
    // In place (send and receive buffers overlap): posted once the
    // contribution has gone, the result still lands in the buffer.
    std::vector<std::uint8_t> both(160, 1);
    collectives.allreduce(collectives.world(), both.data(), both.data(), 40, Datatype::Int32, Operation::Sum);
    CHECK(both == result);
    CHECK(driver.largest_payload_buffer() == before);
}

TEST_CASE("An error result is staged, not written into the posted receive buffer", "[driver][offload]") {
    FakeDevice device(accelerator());
    device.respond = [](const Packet& request) {
        Packet error = result_of(request, {3, 0, 0, 0, 9, 0, 0, 0});
        error.header.datatype = kErrorResultDatatype;
        return error;
    };
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    const std::int32_t send[2] = {1, 2};
    std::int32_t recv[2] = {-1, -1};
    CHECK_THROWS_WITH(collectives.allreduce(collectives.world(), send, recv, 2, Datatype::Int32, Operation::Sum),
                      Catch::Contains("error code 3"));
    CHECK(recv[0] == -1);  // the error's words are its code and detail, not a result
    CHECK(recv[1] == -1);
    CHECK(driver.largest_payload_buffer() == 8);
}

TEST_CASE("A destination is refused while a result waits on its context, and cleared by a null post",
          "[driver][offload]") {
    FakeDevice device(accelerator());
    device.respond = [](const Packet& request) { return result_of(request, {5, 0, 0, 0}); };
    Driver driver(device, FakeDevice::config());
    Collectives collectives(driver);
    std::int32_t value = 0;
    CHECK_FALSE(driver.post_collective_destination(0, &value, 0));  // nothing to write into
    CHECK_THROWS_WITH(driver.post_collective_destination(32, &value, 4), Catch::Contains("outside 0..31"));
    // A request whose result arrives and is not taken yet.
    ProcessorHeader header;
    header.opcode = Opcode::Bcast;
    const std::uint8_t envelope[16] = {1, 0, 0, 0, 1};  // one element, size 1
    std::int32_t staged = 0, direct = 0;
    CHECK(driver.post_collective_destination(0, &direct, 4));
    CHECK_FALSE(driver.post_collective_destination(0, nullptr, 4));  // cleared: the result is staged
    driver.send_collective(header, envelope, &value, 4);
    while (!driver.collective_result_ready(0)) driver.wait();
    CHECK_FALSE(driver.post_collective_destination(0, &direct, 4));  // too late for this result
    const CollectiveResult out = driver.receive_collective(0, &staged, 4);
    CHECK_FALSE(out.error);
    CHECK(staged == 5);
    CHECK(direct == 0);
    CHECK(driver.largest_payload_buffer() == 4);
}

TEST_CASE("A message whose receive is waiting goes into its buffer and an unexpected one is buffered", "[driver][p2p]") {
    FakeDevice device(accelerator(), 64);
    // The device loops every message back to this rank (one node).
    device.respond = [](const Packet& request) {
        if (request.header.opcode != Opcode::Send) return std::optional<Packet>();
        return std::optional<Packet>(result_of(request, request.payload));
    };
    Driver driver(device, FakeDevice::config());
    std::vector<std::uint8_t> sent(300);
    for (std::size_t i = 0; i < sent.size(); ++i) sent[i] = static_cast<std::uint8_t>(i * 3 + 1);
    const std::uint64_t before = driver.largest_payload_buffer();

    // The receive waits before the completions are handled: no driver copy.
    driver.send(0, 7, sent.data(), sent.size());
    std::vector<std::uint8_t> got(300, 0);
    ReceiveStatus status = driver.receive(0, 7, got.data(), got.size());
    CHECK(status.bytes == 300);
    CHECK(got == sent);
    CHECK(driver.largest_payload_buffer() == before);

    // Handled before any receive waits for it: buffered whole, then copied.
    driver.send(0, 8, sent.data(), sent.size());
    driver.poll();
    CHECK(driver.largest_payload_buffer() == 300);
    std::vector<std::uint8_t> again(300, 0);
    status = driver.receive(0, 8, again.data(), again.size());
    CHECK(again == sent);

    // A receive too small for the message: buffered, truncated to the buffer.
    driver.send(0, 9, sent.data(), sent.size());
    std::vector<std::uint8_t> small(100, 0);
    status = driver.receive(0, 9, small.data(), small.size());
    CHECK(status.truncated);
    CHECK(std::equal(small.begin(), small.end(), sent.begin()));
}
