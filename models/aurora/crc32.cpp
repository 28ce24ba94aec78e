#include "isvp/crc32.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ISVP_CRC32_CLMUL 1
#endif

namespace isvp {

namespace {

constexpr std::uint32_t kReflectedPolynomial = 0xEDB88320u;

using CrcTables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr CrcTables make_tables() {
    CrcTables tables{};
    for (std::uint32_t byte = 0; byte < 256; ++byte) {
        std::uint32_t crc = byte;
        for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? kReflectedPolynomial : 0u);
        tables[0][byte] = crc;
    }
    for (std::size_t slice = 1; slice < 8; ++slice)
        for (std::size_t byte = 0; byte < 256; ++byte)
            tables[slice][byte] = (tables[slice - 1][byte] >> 8) ^ tables[0][tables[slice - 1][byte] & 0xFF];
    return tables;
}

constexpr CrcTables kTables = make_tables();

/// Advances the (uninverted) CRC state over `length` bytes, 8 at a time.
std::uint32_t crc32_tables(std::uint32_t crc, const std::uint8_t* data, std::size_t length) {
    while (length >= 8) {
        // Little-endian load of two 32-bit words (x86 and every host we build on).
        std::uint32_t low;
        std::uint32_t high;
        std::memcpy(&low, data, 4);
        std::memcpy(&high, data + 4, 4);
        low ^= crc;
        crc = kTables[7][low & 0xFF] ^ kTables[6][(low >> 8) & 0xFF] ^ kTables[5][(low >> 16) & 0xFF] ^
              kTables[4][low >> 24] ^ kTables[3][high & 0xFF] ^ kTables[2][(high >> 8) & 0xFF] ^
              kTables[1][(high >> 16) & 0xFF] ^ kTables[0][high >> 24];
        data += 8;
        length -= 8;
    }
    while (length--) crc = (crc >> 8) ^ kTables[0][(crc ^ *data++) & 0xFF];
    return crc;
}

#ifdef ISVP_CRC32_CLMUL
#define ISVP_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

ISVP_CLMUL_TARGET inline __m128i load16(const std::uint8_t* at) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
}

/// value x constants (both halves, carry-less) folded onto `next`.
ISVP_CLMUL_TARGET inline __m128i fold16(__m128i value, __m128i constants, __m128i next) {
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(value, constants, 0x11), next),
                         _mm_clmulepi64_si128(value, constants, 0x00));
}

/// The same CRC by carry-less multiplication: 64-byte blocks folded four
/// lanes at a time, then 16-byte folds, then a Barrett reduction (Gopal et
/// al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ",
/// Intel 2009; constants for the bit-reflected IEEE polynomial). `length`
/// is at least 64 and a multiple of 16.
ISVP_CLMUL_TARGET std::uint32_t crc32_clmul(std::uint32_t crc, const std::uint8_t* data, std::size_t length) {
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
    const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124);
    const __m128i polynomial = _mm_set_epi64x(0x01f7011641, 0x01db710641);
    const __m128i low32 = _mm_setr_epi32(~0, 0, ~0, 0);
    __m128i x1 = _mm_xor_si128(load16(data), _mm_cvtsi32_si128(static_cast<int>(crc)));
    __m128i x2 = load16(data + 16);
    __m128i x3 = load16(data + 32);
    __m128i x4 = load16(data + 48);
    data += 64;
    length -= 64;
    while (length >= 64) {
        x1 = fold16(x1, k1k2, load16(data));
        x2 = fold16(x2, k1k2, load16(data + 16));
        x3 = fold16(x3, k1k2, load16(data + 32));
        x4 = fold16(x4, k1k2, load16(data + 48));
        data += 64;
        length -= 64;
    }
    x1 = fold16(x1, k3k4, x2);
    x1 = fold16(x1, k3k4, x3);
    x1 = fold16(x1, k3k4, x4);
    while (length >= 16) {
        x1 = fold16(x1, k3k4, load16(data));
        data += 16;
        length -= 16;
    }
    // 128 -> 64 bits, then 64 -> 32 by Barrett reduction.
    __m128i x2b = _mm_clmulepi64_si128(x1, k3k4, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2b);
    x2b = _mm_srli_si128(x1, 4);
    x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, low32), k5, 0x00), x2b);
    __m128i reduction = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), polynomial, 0x10);
    reduction = _mm_clmulepi64_si128(_mm_and_si128(reduction, low32), polynomial, 0x00);
    x1 = _mm_xor_si128(x1, reduction);
    return static_cast<std::uint32_t>(_mm_extract_epi32(x1, 1));
}

bool cpu_has_clmul() {
    // Decided once; constant for the life of the process.
    static const bool available = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    return available;
}
#endif

}  // namespace

std::uint32_t crc32(const std::uint8_t* data, std::size_t length) {
    std::uint32_t crc = 0xFFFFFFFFu;
#ifdef ISVP_CRC32_CLMUL
    if (length >= 64 && cpu_has_clmul()) {
        const std::size_t folded = length & ~std::size_t{15};
        crc = crc32_clmul(crc, data, folded);
        data += folded;
        length -= folded;
    }
#endif
    return crc32_tables(crc, data, length) ^ 0xFFFFFFFFu;
}

std::uint32_t crc32_portable(const std::uint8_t* data, std::size_t length) {
    return crc32_tables(0xFFFFFFFFu, data, length) ^ 0xFFFFFFFFu;
}

}  // namespace isvp
