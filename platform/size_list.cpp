#include "size_list.h"

#include <cctype>
#include <sstream>

#include "isvp/parameters.h"

namespace isvp::cli {

std::uint64_t parse_size(const std::string& text) {
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    const std::string suffix = text.substr(digits);
    unsigned shift = 0;
    if (suffix == "K" || suffix == "k")
        shift = 10;
    else if (suffix == "M" || suffix == "m")
        shift = 20;
    else if (suffix == "G" || suffix == "g")
        shift = 30;
    else if (!suffix.empty())
        digits = 0;  // unknown suffix
    if (digits == 0)
        throw ConfigError("--sizes: '" + text + "' is not a size (digits with an optional K, M or G)");
    // Far above any message a benchmark can move, and the A:B doubling stays clear of overflow.
    constexpr std::uint64_t kLargest = std::uint64_t{1} << 40;
    const std::uint64_t number = digits > 13 ? kLargest + 1 : std::stoull(text.substr(0, digits));
    if (number > (kLargest >> shift))
        throw ConfigError("--sizes: '" + text + "' is larger than the largest size, 1024G");
    return number << shift;
}

std::vector<std::uint64_t> parse_size_list(const std::string& text) {
    std::vector<std::uint64_t> sizes;
    const auto colon = text.find(':');
    if (colon != std::string::npos) {
        const std::uint64_t low = parse_size(text.substr(0, colon));
        const std::uint64_t high = parse_size(text.substr(colon + 1));
        if (low > high) throw ConfigError("--sizes: range '" + text + "' runs backwards");
        if (low == 0) sizes.push_back(0);
        for (std::uint64_t size = 1; size <= high; size *= 2)
            if (size >= low) sizes.push_back(size);
    } else {
        std::stringstream items(text);
        std::string item;
        while (std::getline(items, item, ',')) sizes.push_back(parse_size(item));
    }
    if (sizes.empty()) throw ConfigError("--sizes: '" + text + "' gives no sizes");
    return sizes;
}

}  // namespace isvp::cli
