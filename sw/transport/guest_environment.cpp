// Reading and writing the environment the launcher gives a guest process.
#include "isvp/guest_environment.h"

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "isvp/device_transport.h"

namespace isvp::guest {

namespace {

std::string required(const std::function<const char*(const char*)>& lookup, const char* name) {
    const char* value = lookup(name);
    if (value == nullptr || *value == '\0')
        throw TransportError(std::string("isvp transport: ") + name +
                             " is not set although ISVP_SOCKET is: the guest environment is incomplete "
                             "(start guests with `isvp run`)");
    return value;
}

std::uint64_t unsigned_value(const char* name, const std::string& text) {
    errno = 0;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (errno != 0 || end == text.c_str() || *end != '\0' || text[0] == '-')
        throw TransportError(std::string("isvp transport: ") + name + "='" + text + "' is not an unsigned integer");
    return value;
}

double real_value(const char* name, const std::string& text) {
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (errno != 0 || end == text.c_str() || *end != '\0' || !std::isfinite(value) || value < 0)
        throw TransportError(std::string("isvp transport: ") + name + "='" + text + "' is not a non-negative number");
    return value;
}

std::string exact(double value) {
    std::ostringstream text;
    text.precision(17);
    text << value;
    return text.str();
}

/// ISVP_RANK_NODES: one node address per rank, comma-separated (the driver
/// checks the map against the network: Driver::place_ranks).
std::vector<std::uint16_t> parse_rank_nodes(const std::string& text, int size) {
    std::vector<std::uint16_t> nodes;
    std::istringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const std::uint64_t node = unsigned_value(environment::kRankNodes, item);
        if (node > 65535)
            throw TransportError("isvp transport: ISVP_RANK_NODES names node " + item +
                                 ", beyond the 16-bit network addresses");
        nodes.push_back(static_cast<std::uint16_t>(node));
    }
    if (nodes.size() != static_cast<std::size_t>(size))
        throw TransportError("isvp transport: ISVP_RANK_NODES lists " + std::to_string(nodes.size()) +
                             " nodes for ISVP_SIZE=" + std::to_string(size) + " ranks");
    return nodes;
}

}  // namespace

socklen_t socket_address(const std::string& path, sockaddr_un& address) {
    address = sockaddr_un{};
    address.sun_family = AF_UNIX;
    const bool abstract = !path.empty() && path[0] == '@';
    // A file path needs its terminating NUL; an abstract name is exactly
    // its bytes after the leading NUL that stands for '@'.
    if (path.empty() || path.size() + (abstract ? 0 : 1) > sizeof address.sun_path)
        throw TransportError("socket path '" + path + "' is empty or too long for a Unix-domain socket");
    std::memcpy(address.sun_path, path.data(), path.size());
    if (abstract) address.sun_path[0] = '\0';
    return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + (abstract ? 0 : 1));
}

GuestEnvironment GuestEnvironment::parse(const std::function<const char*(const char*)>& lookup) {
    const char* socket = lookup(environment::kSocket);
    if (socket == nullptr || *socket == '\0')
        throw TransportError(
            "isvp transport: ISVP_SOCKET is not set. This program is an isvp guest: the simulator starts it "
            "and connects it to the modelled device, e.g. `isvp run -n 2 -- ./program args...`");
    GuestEnvironment result;
    result.socket_path = socket;
    // Host memory: an inherited sealed descriptor (what `isvp run` passes) or a name.
    const char* fd = lookup(environment::kShmFd);
    if (fd != nullptr && *fd != '\0') {
        const std::uint64_t number = unsigned_value(environment::kShmFd, fd);
        if (number > 1024)
            throw TransportError("isvp transport: ISVP_SHM_FD=" + std::string(fd) + " is not a descriptor");
        result.shm_fd = static_cast<int>(number);
    } else {
        result.shm_name = required(lookup, environment::kShmName);
    }
    result.shm_bytes = unsigned_value(environment::kShmBytes, required(lookup, environment::kShmBytes));
    const std::uint64_t size = unsigned_value(environment::kSize, required(lookup, environment::kSize));
    const std::uint64_t rank = unsigned_value(environment::kRank, required(lookup, environment::kRank));
    if (size < 1 || size > 65536)
        throw TransportError("isvp transport: ISVP_SIZE=" + std::to_string(size) + " is not in 1..65536");
    if (rank >= size)
        throw TransportError("isvp transport: ISVP_RANK=" + std::to_string(rank) +
                             " is not below ISVP_SIZE=" + std::to_string(size));
    result.size = static_cast<int>(size);
    result.rank = static_cast<int>(rank);
    result.compute_scale = real_value(environment::kComputeScale, required(lookup, environment::kComputeScale));
    result.mmio_write_ns = real_value(environment::kMmioWriteNs, required(lookup, environment::kMmioWriteNs));
    result.spin_wait_us = real_value(environment::kSpinWaitUs, required(lookup, environment::kSpinWaitUs));
    if (const char* nodes = lookup(environment::kRankNodes); nodes != nullptr && *nodes != '\0')
        result.rank_nodes = parse_rank_nodes(nodes, result.size);
    return result;
}

GuestEnvironment GuestEnvironment::from_process() {
    return parse([](const char* name) { return std::getenv(name); });
}

std::vector<std::pair<std::string, std::string>> GuestEnvironment::variables() const {
    std::vector<std::pair<std::string, std::string>> variables = {{environment::kSocket, socket_path}};
    if (shm_fd >= 0)
        variables.emplace_back(environment::kShmFd, std::to_string(shm_fd));
    else
        variables.emplace_back(environment::kShmName, shm_name);
    variables.insert(variables.end(), {{environment::kShmBytes, std::to_string(shm_bytes)},
                                       {environment::kRank, std::to_string(rank)},
                                       {environment::kSize, std::to_string(size)},
                                       {environment::kComputeScale, exact(compute_scale)},
                                       {environment::kMmioWriteNs, exact(mmio_write_ns)},
                                       {environment::kSpinWaitUs, exact(spin_wait_us)}});
    if (!rank_nodes.empty()) {
        std::string nodes;
        for (const std::uint16_t node : rank_nodes) nodes += (nodes.empty() ? "" : ",") + std::to_string(node);
        variables.emplace_back(environment::kRankNodes, nodes);
    }
    return variables;
}

}  // namespace isvp::guest
