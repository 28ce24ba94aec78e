// GuestEnvironment: what the launcher tells a remote guest process through
// its environment — where the simulator listens, which shared-memory segment
// is its host memory, its rank, the host parameters its clock needs and how
// long it polls for a reply before sleeping.
// The launcher writes it (variables()), RemoteTransport reads it (parse()).
// Plain C++17, no SystemC.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace isvp::guest {

/// Names of the environment variables, one place.
namespace environment {
inline constexpr const char* kSocket = "ISVP_SOCKET";               ///< Unix-domain socket path ('@': abstract)
inline constexpr const char* kShmName = "ISVP_SHM_NAME";            ///< POSIX shared-memory name
inline constexpr const char* kShmFd = "ISVP_SHM_FD";                ///< inherited sealed memfd (instead of a name)
inline constexpr const char* kShmBytes = "ISVP_SHM_BYTES";          ///< its size, bytes
inline constexpr const char* kRank = "ISVP_RANK";                   ///< this rank
inline constexpr const char* kSize = "ISVP_SIZE";                   ///< ranks in the job
inline constexpr const char* kComputeScale = "ISVP_COMPUTE_SCALE";  ///< host.compute_scale
inline constexpr const char* kMmioWriteNs = "ISVP_MMIO_WRITE_NS";   ///< host.mmio_write_ns
inline constexpr const char* kSpinWaitUs = "ISVP_SPIN_WAIT_US";     ///< job.spin_wait_us
inline constexpr const char* kRankNodes = "ISVP_RANK_NODES";        ///< node of each rank, "3,0,1,2"; unset: rank r on node r
}  // namespace environment

/// The address of a Unix-domain socket named as ISVP_SOCKET names it: a
/// file path, or '@' then a name in Linux's abstract namespace (no file,
/// nothing left behind). Fills `address`, returns its length for
/// bind()/connect(); throws TransportError (no "isvp transport:" prefix:
/// the caller names the rank) if the name is empty or too long.
socklen_t socket_address(const std::string& path, sockaddr_un& address);

struct GuestEnvironment {
    std::string socket_path;      ///< where the simulator listens for this rank
    std::string shm_name;         ///< this rank's host-memory segment (when shm_fd < 0)
    int shm_fd = -1;              ///< inherited sealed host memory; -1: open shm_name
    std::uint64_t shm_bytes = 0;  ///< its size, bytes
    int rank = 0;                 ///< this rank
    int size = 0;                 ///< ranks in the job
    double compute_scale = 0;     ///< host.compute_scale
    double mmio_write_ns = 0;     ///< host.mmio_write_ns
    double spin_wait_us = 0;      ///< job.spin_wait_us
    /// Node (network address) of each rank (`isvp run --map-by/--rankfile`);
    /// empty: rank r runs on node r.
    std::vector<std::uint16_t> rank_nodes;

    /// Reads the variables through `lookup` (getenv by default); throws
    /// TransportError saying how to start a guest when ISVP_SOCKET is unset,
    /// or naming the variable whose value is malformed.
    static GuestEnvironment parse(const std::function<const char*(const char*)>& lookup);
    static GuestEnvironment from_process();

    /// NAME=value pairs for the launcher to put in the guest's environment.
    std::vector<std::pair<std::string, std::string>> variables() const;
};

}  // namespace isvp::guest
