// The Aurora link's SystemC-free core: CRC-32, frame timing (the bandwidth
// curve the reference figures describe), bit-error injection, parameters.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "isvp/aurora_config.h"
#include "isvp/bit_error_injector.h"
#include "isvp/crc32.h"

using namespace isvp;

TEST_CASE("aurora crc32: matches the IEEE 802.3 check value and known vectors") {
    const char* check = "123456789";
    CHECK(crc32(reinterpret_cast<const std::uint8_t*>(check), 9) == 0xCBF43926u);
    CHECK(crc32(nullptr, 0) == 0x00000000u);
    const char* fox = "The quick brown fox jumps over the lazy dog";
    CHECK(crc32(reinterpret_cast<const std::uint8_t*>(fox), std::strlen(fox)) == 0x414FA339u);
}

TEST_CASE("aurora crc32: the 8-byte fast path agrees with the bytewise definition at every length") {
    std::vector<std::uint8_t> data(67);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 37 + 11);
    for (std::size_t length = 0; length <= data.size(); ++length) {
        std::uint32_t reference = 0xFFFFFFFFu;
        for (std::size_t i = 0; i < length; ++i) {
            reference ^= data[i];
            for (int bit = 0; bit < 8; ++bit) reference = (reference >> 1) ^ ((reference & 1u) ? 0xEDB88320u : 0u);
        }
        INFO("length " << length);
        CHECK(crc32(data.data(), length) == (reference ^ 0xFFFFFFFFu));
    }
}

TEST_CASE("aurora crc32: the carry-less-multiply fast path agrees with the tables at every length and alignment") {
    std::vector<std::uint8_t> data(1100);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 151 + (i >> 3) + 7);
    for (std::size_t offset = 0; offset < 3; ++offset)
        for (std::size_t length = 0; length + offset <= data.size(); length += (length < 300 ? 1 : 37)) {
            INFO("offset " << offset << ", length " << length);
            REQUIRE(crc32(data.data() + offset, length) == crc32_portable(data.data() + offset, length));
        }
}

TEST_CASE("aurora crc32: every single-bit error in a 1 KB packet changes the CRC") {
    std::vector<std::uint8_t> data(1024);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 13 + 5);
    const std::uint32_t good = crc32(data.data(), data.size());
    std::size_t undetected = 0;
    for (std::size_t bit = 0; bit < 8 * data.size(); ++bit) {
        data[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
        if (crc32(data.data(), data.size()) == good) ++undetected;
        data[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    }
    CHECK(undetected == 0);
}

TEST_CASE("aurora timing: the data rate is 4 lanes x 25.78125 Gb/s after 64B/66B coding") {
    const AuroraConfig config;
    CHECK(config.data_rate_gbps() == Approx(100.0).epsilon(1e-12));
}

TEST_CASE("aurora timing: the per-frame overhead makes full frames carry exactly the peak payload rate") {
    const AuroraConfig config;
    const AuroraTiming timing(config);
    // 992 x (100 / 95.9 - 1) = 42.41 bytes per frame.
    CHECK(timing.frame_overhead_bytes() == Approx(992.0 * (100.0 / 95.9 - 1.0)));
    CHECK(timing.frame_overhead_bytes() == Approx(42.41).margin(0.01));
    CHECK(timing.serialisation_ns(992) == Approx(992 * 8 / 95.9).epsilon(1e-12));
    CHECK(timing.streamed_bandwidth_gbps(992) == Approx(95.9).epsilon(1e-12));
    CHECK(timing.streamed_bandwidth_gbps(4 * 992) == Approx(95.9).epsilon(1e-12));
}

TEST_CASE("aurora timing: a packet longer than a frame pays one overhead per frame") {
    const AuroraTiming timing{AuroraConfig{}};
    CHECK(timing.frames(1) == 1);
    CHECK(timing.frames(992) == 1);
    CHECK(timing.frames(993) == 2);
    CHECK(timing.frames(65536) == 67);
    CHECK(timing.serialisation_ns(993) == Approx((993 + 2 * timing.frame_overhead_bytes()) * 8 / 100.0));
}

TEST_CASE("aurora timing: bandwidth rises with packet size and saturates just under 1 KB") {
    const AuroraTiming timing{AuroraConfig{}};
    double previous = 0;
    for (std::uint64_t bytes = 16; bytes <= 992; bytes += 16) {
        const double bandwidth = timing.streamed_bandwidth_gbps(bytes);
        CHECK(bandwidth > previous);
        previous = bandwidth;
    }
    CHECK(timing.streamed_bandwidth_gbps(64) < 0.65 * 95.9);
    CHECK(timing.streamed_bandwidth_gbps(512) < 0.97 * 95.9);
    std::uint64_t saturation = 0;  // smallest size within 1 % of the peak
    for (std::uint64_t bytes = 1; saturation == 0; ++bytes)
        if (timing.streamed_bandwidth_gbps(bytes) >= 0.99 * 95.9) saturation = bytes;
    INFO("saturates (>= 99 % of peak) from " << saturation << " bytes");
    CHECK(saturation > 512);
    CHECK(saturation < 1024);
}

TEST_CASE("aurora timing: streams of 64 KB and more reach over 90 % of the peak") {
    const AuroraTiming timing{AuroraConfig{}};
    for (std::uint64_t bytes : {65536ull, 1ull << 20}) CHECK(timing.streamed_bandwidth_gbps(bytes) >= 0.9 * 95.9);
}

TEST_CASE("aurora errors: with a zero bit error rate no transmission is ever corrupted") {
    BitErrorInjector injector(0.0, 1, 0);
    CHECK_FALSE(injector.enabled());
    for (int i = 0; i < 1000; ++i) CHECK_FALSE(injector.corrupted_bit(8 * 1024));
}

TEST_CASE("aurora errors: the hit rate follows 1 - (1 - BER)^bits") {
    const double ber = 1e-5;
    BitErrorInjector injector(ber, 7, 3);
    const std::uint64_t bits = 8 * 1028;
    const double expected = 1.0 - std::pow(1.0 - ber, static_cast<double>(bits));
    CHECK(injector.hit_probability(bits) == Approx(expected));
    const int trials = 20000;
    int hits = 0;
    for (int i = 0; i < trials; ++i) {
        const auto bit = injector.corrupted_bit(bits);
        if (bit) {
            ++hits;
            CHECK(*bit < bits);
        }
    }
    CHECK(hits / double(trials) == Approx(expected).margin(0.01));
}

TEST_CASE("aurora errors: the same seed and stream repeat the same errors, another stream differs") {
    auto pattern = [](std::uint64_t seed, std::uint64_t stream) {
        BitErrorInjector injector(1e-4, seed, stream);
        std::vector<std::int64_t> out;
        for (int i = 0; i < 200; ++i) {
            const auto bit = injector.corrupted_bit(8000);
            out.push_back(bit ? static_cast<std::int64_t>(*bit) : -1);
        }
        return out;
    };
    CHECK(pattern(5, 1) == pattern(5, 1));
    CHECK(pattern(5, 1) != pattern(5, 2));
    CHECK(pattern(5, 1) != pattern(6, 1));
}

TEST_CASE("aurora config: parameters are declared with defaults and bad values are refused by name") {
    Parameters parameters;
    AuroraConfig::declare(parameters);
    const AuroraConfig defaults = AuroraConfig::from(parameters);
    CHECK(defaults.lanes == 4);
    CHECK(defaults.latency_ns == 440.0);
    CHECK(defaults.peak_payload_gbps == 95.9);
    CHECK(defaults.on_crc_error == CrcErrorPolicy::Retry);
    CHECK_THROWS_WITH(parameters.apply_override("aurora.on_crc_error=ignore"),
                      Catch::Contains("aurora.on_crc_error") && Catch::Contains("retry, drop"));
    CHECK_THROWS_WITH(parameters.apply_override("aurora.bit_error_rate=2"), Catch::Contains("aurora.bit_error_rate"));
    parameters.apply_override("aurora.peak_payload_gbps=120");
    CHECK_THROWS_WITH(AuroraConfig::from(parameters),
                      Catch::Contains("aurora.peak_payload_gbps must be positive and below the 64B/66B data rate"));
    parameters.apply_override("aurora.peak_payload_gbps=95.9");
    parameters.apply_override("aurora.on_crc_error=drop");
    CHECK(AuroraConfig::from(parameters).on_crc_error == CrcErrorPolicy::Drop);
}
