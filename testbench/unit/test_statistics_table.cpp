// accumulate_statistics (isvp/statistics_table.h): a platform's totals from
// its blocks' counters, through the one field list of each struct.
#include <catch2/catch.hpp>

#include <cstdint>

#include "isvp/statistics_table.h"

namespace {

struct Counters {
    std::uint64_t packets = 0;
    std::uint64_t wait_ps = 0;
    std::uint64_t peak_buffer_bytes = 0;
    std::uint64_t unlisted = 0;  // not in the table: neither summed nor exported

    template <class Self, class Visitor>
    static void visit(Self& self, Visitor&& field) {
        field("packets", self.packets);
        field("wait_ps", self.wait_ps);
        field("peak_buffer_bytes", self.peak_buffer_bytes);
    }
};

}  // namespace

TEST_CASE("statistics table: totals sum every listed counter and keep the largest peak") {
    Counters total;
    isvp::accumulate_statistics(total, Counters{3, 100, 4096, 7});
    isvp::accumulate_statistics(total, Counters{5, 20, 1024, 7});
    CHECK(total.packets == 8);
    CHECK(total.wait_ps == 120);
    CHECK(total.peak_buffer_bytes == 4096);
    CHECK(total.unlisted == 0);
    const nlohmann::json json = isvp::statistics_json(total);
    CHECK(json.size() == 3);
    CHECK(json["packets"] == 8);
    CHECK(json["peak_buffer_bytes"] == 4096);
}
