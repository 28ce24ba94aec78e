// Which partition of a distributed simulation died (docs/PARTITIONS.md,
// "End and failures"). `isvp ... --partitions P` started outside mpiexec
// stays alive as the job's supervisor: it runs `mpiexec -n P isvp ...` as
// its child and listens on a Unix socket (ISVP_PARTITION_MONITOR) to which
// every partition says who it is once MPI has started, and says again when it
// ends as planned or has itself reported why it fails (then its MPI_Abort
// ends the others, and nobody died unnoticed). A partition whose
// connection closes without that — killed, crashed — died; mpiexec ends the
// others (and they their guests), and the supervisor then names the
// partition and the switches and hosts it owned. Under the user's own
// mpiexec (no supervisor) nothing of this runs: mpiexec's message names the
// process rank, which is the partition.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "isvp/partition_plan.h"

namespace isvp::cli {

/// Runs `command` (mpiexec and its arguments) as a child process with the
/// monitor's socket in its environment, forwards SIGINT/SIGTERM/SIGHUP to it,
/// and waits for it. Returns the status to exit with: mpiexec's (128 + the
/// signal if a signal ended it), non-zero when a partition died. Prints
/// "[isvp] partition k (switches a..b, hosts c..d) died ..." on stderr for
/// the partition that died first. Throws ConfigError if mpiexec cannot start.
int supervise_partitions(const std::vector<std::string>& command, const PartitionPlan& plan);

/// A partition's side of the monitor; does nothing when ISVP_PARTITION_MONITOR is not set.
class PartitionMonitorClient {
  public:
    PartitionMonitorClient() = default;
    /// Connects and says this process is partition `partition`.
    explicit PartitionMonitorClient(unsigned partition);
    ~PartitionMonitorClient();
    PartitionMonitorClient(const PartitionMonitorClient&) = delete;
    PartitionMonitorClient& operator=(const PartitionMonitorClient&) = delete;
    /// This partition ends as planned, or has reported its own failure:
    /// the supervisor does not report it as died.
    void finished();
    /// This partition has reported why it fails and ends the job: the
    /// supervisor names no partition as died.
    void failing();
    /// A supervisor (the isvp that started mpiexec) listens: it names a
    /// partition that dies. Without one (the user's own mpiexec) nobody does.
    bool supervised() const { return socket_ >= 0; }
    /// A stream for the guests' stdout (`is_stderr`: stderr) that the
    /// supervisor prints, each flush at once: lines of different partitions
    /// never mix, as they may through mpiexec's forwarding (it cuts what it
    /// reads into pieces of its own size). Null without a supervisor.
    std::ostream* guest_output(bool is_stderr);

  private:
    /// Holds what is written until a flush, then sends it (output()).
    class OutputBuffer final : public std::streambuf {
      public:
        OutputBuffer(PartitionMonitorClient& client, bool is_stderr) : client_(client), is_stderr_(is_stderr) {}

      protected:
        int overflow(int c) override;
        std::streamsize xsputn(const char* text, std::streamsize count) override;
        int sync() override;

      private:
        PartitionMonitorClient& client_;  ///< sends what is flushed
        bool is_stderr_;                  ///< the guests' stderr (else stdout)
        std::string pending_;             ///< written since the last flush
    };

    void say(char what);
    /// Sends what the guest-output streams hold (before the end is said).
    void flush_output();
    /// Sends guest output to the supervisor.
    void output(bool is_stderr, const std::string& text);

    int socket_ = -1;  ///< connection to the supervisor, -1 without one
    std::unique_ptr<OutputBuffer> out_buffer_;  ///< behind out_ (made by guest_output)
    std::unique_ptr<OutputBuffer> err_buffer_;  ///< behind err_
    std::unique_ptr<std::ostream> out_;         ///< the guests' stdout, sent to the supervisor
    std::unique_ptr<std::ostream> err_;         ///< the guests' stderr and the launcher's messages
};

}  // namespace isvp::cli
