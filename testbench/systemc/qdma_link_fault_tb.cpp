// The QDMA's link-fault report (register_map.h LINK_FAULT, models/qdma/README.md
// Errors): Qdma::link_fault, as the platform calls it when the reliable layer
// gives packets up, sets ERROR_STATUS.LINK_FAULT, raises the error MSI-X
// vector when enabled, and queues one LINK_FAULT entry per (peer, direction)
// that reads take off oldest first; a further loss of a queued pair adds to
// its LOST count (saturating at 4095); an empty queue reads 0; the register
// is read-only. Each read latches the entry's cable (LINK_FAULT_FROM/TO:
// switch and port at both ends, further links counted when merged).
#include "qdma_tb_harness.h"

using namespace isvp;
using namespace isvp::tb;

int sc_main(int, char**) {
    Checker check;
    Platform platform(PcieConfig{}, QdmaConfig{}, 1u << 20, 2, 8);
    Host& host = platform.host;

    return run(platform, check, [&] {
        using namespace regmap;
        namespace lf = regmap::link_fault;
        check.section("no fault");
        check.expect(host.read32(LINK_FAULT) == 0 && host.read32(ERROR_STATUS) == 0,
                     "LINK_FAULT reads 0 and ERROR_STATUS is clear before any fault");

        check.section("faults are queued and interrupt");
        platform.program_msix(5);
        host.write32(ERROR_MSIX, 5);
        host.write32(ERROR_IRQ_ENABLE, error_status::LINK_FAULT);
        host.read32(ID);  // the posted writes have landed
        platform.qdma.link_fault(7, true, 1);
        platform.qdma.link_fault(3, false, 2);
        platform.qdma.link_fault(7, true, 4);      // merged into the first entry
        platform.qdma.link_fault(3, true, 10000);  // another direction: its own entry, saturated
        host.read32(ID);                           // lets the interrupt land
        check.expect(platform.msi.with_data(5).size() == 4, "each fault raises the error vector (ERROR_IRQ_ENABLE)");
        check.expect(host.read32(ERROR_STATUS) == error_status::LINK_FAULT, "ERROR_STATUS.LINK_FAULT is set");
        host.write32(LINK_FAULT, 0);  // read-only: ignored
        const std::uint32_t first = host.read32(LINK_FAULT);
        check.expect(lf::VALID.get(first) == 1 && lf::PEER.get(first) == 7 && lf::SENDING.get(first) == 1 &&
                         lf::LOST.get(first) == 5,
                     "the oldest entry first: peer 7, this node's packets, 1 + 4 lost (merged)");
        const std::uint32_t second = host.read32(LINK_FAULT);
        check.expect(lf::VALID.get(second) == 1 && lf::PEER.get(second) == 3 && lf::SENDING.get(second) == 0 &&
                         lf::LOST.get(second) == 2,
                     "then peer 3's packets to this node: 2 lost");
        const std::uint32_t third = host.read32(LINK_FAULT);
        check.expect(lf::VALID.get(third) == 1 && lf::PEER.get(third) == 3 && lf::SENDING.get(third) == 1 &&
                         lf::LOST.get(third) == 4095,
                     "the other direction to peer 3 is its own entry, its count saturated at 4095");
        check.expect(host.read32(LINK_FAULT) == 0, "then the queue is empty (VALID 0)");
        host.write32(ERROR_STATUS, error_status::LINK_FAULT);
        check.expect(host.read32(ERROR_STATUS) == 0, "LINK_FAULT clears by writing 1 (RW1C)");
        platform.qdma.link_fault(1, false, 1);
        check.expect(host.read32(ERROR_STATUS) == error_status::LINK_FAULT && host.read32(LINK_FAULT) != 0,
                     "a later fault sets the bit and queues again");

        check.section("the cable of each entry");
        namespace ll = regmap::link_fault_link;
        const std::uint32_t from = ll::SWITCH.make(5) | ll::PORT.make(2) | ll::NAMED.make(1);
        const std::uint32_t to = ll::SWITCH.make(7) | ll::PORT.make(3) | ll::NAMED.make(1);
        const std::uint32_t elsewhere = ll::SWITCH.make(6) | ll::PORT.make(1) | ll::NAMED.make(1);
        platform.qdma.link_fault(5, false, 1, from, to);
        platform.qdma.link_fault(5, false, 1, elsewhere, to);  // merged: another cable
        platform.qdma.link_fault(6, false, 1);                 // no link reported the drops
        host.write32(LINK_FAULT_FROM, 0);                      // read-only: ignored
        check.expect(host.read32(LINK_FAULT_FROM) == 0 && host.read32(LINK_FAULT_TO) == 0,
                     "LINK_FAULT_FROM/TO read 0 before LINK_FAULT is read");
        const std::uint32_t fifth = host.read32(LINK_FAULT);
        const std::uint32_t fifth_from = host.read32(LINK_FAULT_FROM);
        check.expect(lf::PEER.get(fifth) == 5 && lf::LOST.get(fifth) == 2 && ll::NAMED.get(fifth_from) == 1 &&
                         ll::SWITCH.get(fifth_from) == 5 && ll::PORT.get(fifth_from) == 2 &&
                         ll::OTHER_LINKS.get(fifth_from) == 1,
                     "LINK_FAULT_FROM names where the entry's packets left (switch 5 port 2) and 1 other link");
        check.expect(host.read32(LINK_FAULT_TO) == to, "LINK_FAULT_TO names where they should have entered");
        const std::uint32_t sixth = host.read32(LINK_FAULT);
        check.expect(lf::PEER.get(sixth) == 6 && host.read32(LINK_FAULT_FROM) == 0 && host.read32(LINK_FAULT_TO) == 0,
                     "the next read latches the next entry's cable: none named (NAMED 0)");
        check.expect(host.read32(LINK_FAULT) == 0 && host.read32(LINK_FAULT_FROM) == 0,
                     "an empty queue latches nothing");
    });
}
