// Pieces the collective benchmarks share (`isvp bench collectives`,
// `isvp bench fused`): the LogGP inputs of a platform, which passes a run
// measures, a progress line on stderr, a relative difference as text.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "isvp/cluster_platform.h"
#include "isvp/driver.h"
#include "isvp/loggp_model.h"
#include "isvp/transport_config.h"

namespace isvp::cli {

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
