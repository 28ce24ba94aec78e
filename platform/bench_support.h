// Pieces the benchmarks share: the LogGP inputs of a platform, which passes
// a run measures, a progress line on stderr, a relative difference as text
// (`isvp bench collectives`, `isvp bench fused`), and the network of the
// two-node benchmarks (`isvp bench pingpong`, `isvp bench smi`).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include <boost/program_options/variables_map.hpp>

#include "isvp/cluster_platform.h"
#include "isvp/driver.h"
#include "isvp/loggp_model.h"
#include "isvp/transport_config.h"

namespace isvp::cli {

/// The platform parameters of `bench pingpong` and `bench smi` (`command`,
/// for messages): --config, then the ring of --nodes or --topology, then
/// --set. The ring's default (2 nodes) is only a default, which a --config
/// file's topology replaces; --topology and a --nodes given on the command
/// line replace the file's. Returns false when --list-parameters asked for
/// the parameter table instead of a run.
bool apply_ring_or_topology(const boost::program_options::variables_map& values, Parameters& parameters,
                            const std::string& command);

/// The LogGP inputs of this platform (models/loggp/isvp/loggp_model.h).
loggp::PlatformFigures loggp_figures(const PlatformConfig& config, const TransportConfig& transport,
                                     const guest::DriverConfig& driver);

/// Which implementations a run measures (--offload on|off|both).
struct Passes {
    bool offload = true;
    bool software = false;
    /// `command` ("bench collectives") names the command in the error.
    static Passes parse(const std::string& text, const std::string& command);
};

/// "what i of n, elapsed, left" on stderr, rewritten in place on a
/// terminal. Rows are weighted, so the estimate of the time left does not
/// assume a large row costs what a small one does.
class Progress {
  public:
    /// `command` ("bench collectives") starts every line.
    Progress(const std::string& command, bool enabled, double total_weight, std::size_t rows);

    /// A bring-up milestone (before the first row ends): wall and CPU
    /// seconds of the whole process so far.
    void phase(const std::string& what);
    void row_done(const std::string& what, double weight);
    /// A row (`what`) still running: the simulated time so far and, when
    /// given, the packet-hops so far (a heartbeat of a long row).
    void running(const std::string& what, std::uint64_t simulated_ps, std::optional<std::uint64_t> hops);

  private:
    std::string command_;
    bool enabled_;
    bool tty_;             ///< rewrite one line instead of printing many
    double total_;         ///< weight of every row
    std::size_t rows_;     ///< rows (collective x size x pass)
    double done_ = 0;      ///< weight done
    std::size_t row_ = 0;  ///< rows done
    std::chrono::steady_clock::time_point start_;
};

/// (simulated - modelled) / modelled as "+12%".
std::string percent(double simulated, double modelled);

}  // namespace isvp::cli
