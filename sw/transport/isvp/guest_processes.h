// GuestProcesses: the remote ranks' OS processes, on the scheduler's
// Boost.Asio event loop.
//
// start() forks and execs one guest with its environment; each child runs in
// its own process group (so a terminal's Ctrl-C reaches only the launcher,
// which then ends the children deliberately; and whatever a guest forks
// stays in its group, so it can be ended with it) and dies with the launcher
// (PR_SET_PDEATHSIG) even if the launcher is killed outright. stdin is
// /dev/null; stdout and stderr come back through pipes and go to the
// launcher's stdout and stderr, whole lines at a time, so lines of different
// ranks never mix (a line longer than kLongestLine is passed on in pieces);
// as mpirun, unlabelled by default, or labelled (label_output()). Exits are
// noticed through SIGCHLD (waitpid on our own children only) and reported as
// exit code, or 128 + signal number.
// A guest started on the terminal (a rank under a debugger, `isvp run
// --debug-rank`) instead keeps the launcher's stdin, stdout and stderr, and
// if the launcher has the terminal (its process group is the foreground
// one) the guest's group becomes the foreground group until the guest exits
// (then the launcher takes the terminal back): the debugger reads the
// keyboard, and Ctrl-C reaches the debugger, not the launcher.
// terminate() sends SIGTERM to the process groups, then SIGKILL after a
// grace period — also to a group whose guest has already exited, so
// processes a guest forked do not survive it (unless they left the group
// with setsid/setpgid). The destructor SIGKILLs every group and reaps the
// guests. SystemC-free, POSIX (Linux).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

namespace isvp::transport {

/// The descriptor a guest finds its host memory on (ISVP_SHM_FD).
inline constexpr int kGuestMemoryFd = 3;

/// How guest output lines are labelled (mpirun's options).
enum class OutputLabel {
    None,  ///< as the guest wrote it (the default, like mpirun)
    Rank,  ///< "[rank] line" (MPICH's -l / --prepend-rank)
    Tag,   ///< "[1,rank]<stdout>:line", "<stderr>:" (Open MPI's --tag-output; job id 1)
};

/// A guest line without a newline is held back until this many bytes, then
/// passed on as it is (a program printing without newlines cannot grow the
/// launcher's memory).
inline constexpr std::size_t kLongestLine = 64 * 1024;

class GuestProcesses {
  public:
    /// Called on the event loop when a child has exited: its rank, its
    /// status (exit code, or 128 + signal) and a description
    /// ("exited with status 3", "killed by signal 6 (Aborted)").
    using ExitHandler = std::function<void(int rank, int status, const std::string& description)>;

    GuestProcesses(boost::asio::io_context& io, std::ostream& out, std::ostream& err, ExitHandler on_exit);
    /// SIGKILLs and reaps every child still running.
    ~GuestProcesses();
    GuestProcesses(const GuestProcesses&) = delete;
    GuestProcesses& operator=(const GuestProcesses&) = delete;

    /// Starts `argv` (argv[0] looked up in PATH) as rank `rank` with exactly
    /// `environment` (NAME=value strings). Throws std::runtime_error if the
    /// pipes or the fork fail; a program that cannot be executed exits 127
    /// with the reason on its stderr.
    /// `memory_fd` >= 0: the rank's sealed host memory, which the child
    /// receives as descriptor kGuestMemoryFd. `on_terminal`: the child keeps
    /// the launcher's stdin, stdout and stderr (its output is not labelled)
    /// and takes the terminal's foreground while it runs (see above); at
    /// most one child.
    void start(int rank, const std::vector<std::string>& argv, const std::vector<std::string>& environment,
               int memory_fd = -1, bool on_terminal = false);

    /// How output lines are labelled from now on (OutputLabel::None before).
    void label_output(OutputLabel label) { label_ = label; }

    /// SIGTERM to every child's process group now (whether the child itself
    /// still runs or not), SIGKILL to those left after `grace` (0: SIGKILL
    /// at once).
    void terminate(std::chrono::milliseconds grace);
    /// The same for one rank's process group.
    void terminate(int rank, std::chrono::milliseconds grace);

    bool running(int rank) const;
    bool all_exited() const;
    /// Ranks whose guest has exited but whose process group still has
    /// members (processes the guest forked).
    std::vector<int> lingering() const;
    /// Every child's stdout and stderr reached end of file.
    bool output_closed() const;
    /// Exit code or 128 + signal; -1 while running or never started.
    int status(int rank) const;
    pid_t pid(int rank) const;

    /// Exit code, or 128 + signal, of a waitpid() status.
    static int exit_status(int wait_status);
    /// "exited with status 3", "killed by signal 6 (Aborted)".
    static std::string describe(int wait_status);

  private:
    struct Output {
        std::unique_ptr<boost::asio::posix::stream_descriptor> pipe;  ///< read end
        std::array<char, 4096> buffer{};                              ///< last read
        std::string partial;                                          ///< text after the last newline
        bool open = false;                                            ///< not at end of file yet
    };
    struct Child {
        pid_t pid = -1;        ///< process id (= its process group id)
        bool running = false;  ///< not reaped yet
        /// The process group may still have members: true until a check
        /// after the guest was reaped finds it empty (its id may then be
        /// reused, so it is never signalled again).
        bool group = false;
        int status = -1;                                        ///< exit code or 128 + signal, once reaped
        Output out;                                             ///< its stdout
        Output err;                                             ///< its stderr
        std::unique_ptr<boost::asio::steady_timer> kill_timer;  ///< grace period before SIGKILL
        bool kill_due = false;                                  ///< SIGTERM sent, kill_timer armed
    };

    void wait_for_sigchld();
    void reap();
    void read(int rank, bool is_stderr);
    /// `bytes` more output (or end of file, `error`) read from a child.
    void received(int rank, bool is_stderr, const boost::system::error_code& error, std::size_t bytes);
    /// Writes `text` (whole lines, or the last piece of a line) unlabelled
    /// as it is, or each line labelled and ended with a newline.
    void print(int rank, bool is_stderr, const std::string& text);
    Child& child(int rank);
    /// Sends `signal_number` to the child's process group if it may have
    /// members; notes when it has none left.
    void signal_group(Child& entry, int signal_number);
    /// Makes the launcher's process group the terminal's foreground group
    /// again if a child on the terminal took it.
    void take_back_terminal();

    boost::asio::io_context& io_;                   ///< the event loop
    std::ostream& out_;                             ///< where the guests' stdout lines go
    std::ostream& err_;                             ///< where the guests' stderr lines go
    OutputLabel label_ = OutputLabel::None;         ///< how they are labelled
    ExitHandler on_exit_;                           ///< exit notifications
    boost::asio::signal_set sigchld_;               ///< SIGCHLD, delivered on the event loop
    std::vector<std::unique_ptr<Child>> children_;  ///< by rank (null: not started)
    int terminal_rank_ = -1;                        ///< the child started on the terminal, if any
    pid_t terminal_owner_ = -1;                     ///< foreground group to give the terminal back to; -1: not taken
    struct sigaction saved_ttou_ {};                ///< SIGTTOU's action before the terminal was given away
};

}  // namespace isvp::transport
