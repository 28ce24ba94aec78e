// Guest processes: fork/exec, output, exits, termination.
#include "isvp/guest_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>
#include <stdexcept>

namespace isvp::transport {

namespace asio = boost::asio;

namespace {

void write_all(int fd, const char* text) {
    std::size_t length = std::strlen(text);
    while (length > 0) {
        const ssize_t written = ::write(fd, text, length);
        if (written <= 0) return;
        text += written;
        length -= static_cast<std::size_t>(written);
    }
}

// In the child between fork and exec: only async-signal-safe calls.
// null_fd < 0: the child keeps the launcher's stdin, stdout and stderr (on
// the terminal); `foreground`: its new process group becomes the terminal's
// foreground group (done here, before exec, so that a debugger finds itself
// in the foreground from its first instruction; SIGTTOU is still blocked).
// `ttou_ignored` >= 0: SIGTTOU's disposition for the program, the launcher's
// own from before it ignored the signal (while a child has the terminal,
// see start()); -1: left as inherited.
[[noreturn]] void exec_child(pid_t parent, int null_fd, int out_fd, int err_fd, int memory_fd, bool foreground,
                             int ttou_ignored, char* const* argv, char* const* envp) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the launcher died before prctl took effect
    if (foreground) ::tcsetpgrp(STDIN_FILENO, ::getpid());
    if (null_fd >= 0) {
        ::dup2(null_fd, STDIN_FILENO);
        ::dup2(out_fd, STDOUT_FILENO);
        ::dup2(err_fd, STDERR_FILENO);
    }
    // The rank's own host memory (and nothing of other ranks') survives exec
    // as descriptor kGuestMemoryFd; dup2 clears its close-on-exec flag
    // (unless it is that descriptor already: dup2 onto itself does nothing).
    if (memory_fd == kGuestMemoryFd)
        ::fcntl(memory_fd, F_SETFD, 0);
    else if (memory_fd >= 0)
        ::dup2(memory_fd, kGuestMemoryFd);
    ::close_range(memory_fd >= 0 ? kGuestMemoryFd + 1 : 3, ~0u, 0);
    // Signals stay blocked (start() blocked them across fork) until the
    // launcher's handlers are gone: a SIGTERM for the new rank must not run
    // the launcher's handler here, which would report it to the launcher.
    for (int signal_number : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) ::signal(signal_number, SIG_DFL);
    if (ttou_ignored >= 0) ::signal(SIGTTOU, ttou_ignored ? SIG_IGN : SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execvpe(argv[0], argv, envp);
    const int error = errno;
    write_all(STDERR_FILENO, "isvp: cannot run '");
    write_all(STDERR_FILENO, argv[0]);
    write_all(STDERR_FILENO, "': ");
    write_all(STDERR_FILENO, std::strerror(error));
    write_all(STDERR_FILENO, "\n");
    ::_exit(127);
}

std::string system_error(const std::string& what) {
    return what + ": " + std::strerror(errno);
}

}  // namespace

GuestProcesses::GuestProcesses(asio::io_context& io, std::ostream& out, std::ostream& err, ExitHandler on_exit)
    : io_(io), out_(out), err_(err), on_exit_(std::move(on_exit)), sigchld_(io, SIGCHLD) {
    wait_for_sigchld();
}

GuestProcesses::~GuestProcesses() {
    boost::system::error_code ignored;
    sigchld_.cancel(ignored);
    for (auto& entry : children_) {
        if (!entry) continue;
        entry->kill_timer->cancel(ignored);
        signal_group(*entry, SIGKILL);
        if (!entry->running) continue;
        ::kill(entry->pid, SIGKILL);
        int wait_status = 0;
        while (::waitpid(entry->pid, &wait_status, 0) < 0 && errno == EINTR) {
        }
        entry->running = false;
    }
    take_back_terminal();
}

void GuestProcesses::take_back_terminal() {
    if (terminal_owner_ < 0) return;
    // SIGTTOU is ignored (start()): tcsetpgrp from the background works.
    ::tcsetpgrp(STDIN_FILENO, terminal_owner_);
    ::sigaction(SIGTTOU, &saved_ttou_, nullptr);
    terminal_owner_ = -1;
}

void GuestProcesses::signal_group(Child& entry, int signal_number) {
    // The guest itself too, in case it left its group (an unreaped child's
    // pid cannot have been reused).
    if (entry.running && signal_number != 0) ::kill(entry.pid, signal_number);
    if (!entry.group) return;
    if (::kill(-entry.pid, signal_number) != 0 && errno == ESRCH && !entry.running) entry.group = false;
}

GuestProcesses::Child& GuestProcesses::child(int rank) {
    return *children_.at(static_cast<std::size_t>(rank));
}

void GuestProcesses::start(int rank, const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                           int memory_fd, bool on_terminal) {
    if (argv.empty()) throw std::runtime_error("rank " + std::to_string(rank) + ": no program to run");
    if (children_.size() <= static_cast<std::size_t>(rank)) children_.resize(static_cast<std::size_t>(rank) + 1);
    if (children_[static_cast<std::size_t>(rank)])
        throw std::runtime_error("rank " + std::to_string(rank) + " started twice");
    if (on_terminal && terminal_rank_ >= 0)
        throw std::runtime_error("rank " + std::to_string(rank) + " cannot run on the terminal: rank " +
                                 std::to_string(terminal_rank_) + " does");
    // The terminal's foreground goes to the child only if the launcher has
    // it (not when started in the background, `isvp run ... &`).
    const bool foreground = on_terminal && ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();

    // Everything the child needs is prepared before fork().
    std::vector<char*> arguments;
    for (const std::string& argument : argv) arguments.push_back(const_cast<char*>(argument.c_str()));
    arguments.push_back(nullptr);
    std::vector<char*> variables;
    for (const std::string& variable : environment) variables.push_back(const_cast<char*>(variable.c_str()));
    variables.push_back(nullptr);

    int out_pipe[2] = {-1, -1};
    int err_pipe[2] = {-1, -1};
    const int null_fd = on_terminal ? -1 : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (!on_terminal && (null_fd < 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0)) {
        const std::string message = system_error("cannot create pipes for rank " + std::to_string(rank));
        for (int fd : {null_fd, out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            if (fd >= 0) ::close(fd);
        throw std::runtime_error(message);
    }
    const pid_t parent = ::getpid();
    sigset_t all;
    sigset_t before;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &before);  // until the child has reset its handlers
    const pid_t launcher_group = ::getpgrp();
    // The program gets SIGTTOU as the launcher had it, also while the
    // launcher ignores it.
    const int ttou_ignored = terminal_owner_ < 0 ? -1 : saved_ttou_.sa_handler == SIG_IGN ? 1 : 0;
    const pid_t pid = ::fork();
    if (pid == 0)
        exec_child(parent, null_fd, out_pipe[1], err_pipe[1], memory_fd, foreground, ttou_ignored, arguments.data(),
                   variables.data());
    const int fork_errno = errno;
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
    for (int fd : {null_fd, out_pipe[1], err_pipe[1]})
        if (fd >= 0) ::close(fd);
    if (pid < 0) {
        for (int fd : {out_pipe[0], err_pipe[0]})
            if (fd >= 0) ::close(fd);
        errno = fork_errno;
        throw std::runtime_error(system_error("cannot fork rank " + std::to_string(rank)));
    }
    ::setpgid(pid, pid);  // also in the child: whichever runs first
    if (on_terminal) terminal_rank_ = rank;
    if (foreground) {
        // The child takes the terminal (exec_child). The launcher, in the
        // background until it takes the terminal back, ignores SIGTTOU: its
        // writes (other ranks' output, its messages) must not stop it if
        // the terminal has `stty tostop`, nor tcsetpgrp at the end.
        terminal_owner_ = launcher_group;
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        ::sigaction(SIGTTOU, &ignore, &saved_ttou_);
    }

    auto entry = std::make_unique<Child>();
    entry->pid = pid;
    entry->running = true;
    entry->group = true;
    entry->kill_timer = std::make_unique<asio::steady_timer>(io_);
    children_[static_cast<std::size_t>(rank)] = std::move(entry);
    if (on_terminal) return;  // its output goes straight to the launcher's stdout and stderr
    Child& started = child(rank);
    started.out.pipe = std::make_unique<asio::posix::stream_descriptor>(io_, out_pipe[0]);
    started.err.pipe = std::make_unique<asio::posix::stream_descriptor>(io_, err_pipe[0]);
    started.out.open = true;
    started.err.open = true;
    read(rank, false);
    read(rank, true);
}

void GuestProcesses::read(int rank, bool is_stderr) {
    Output& output = is_stderr ? child(rank).err : child(rank).out;
    output.pipe->async_read_some(asio::buffer(output.buffer),
                                 [this, rank, is_stderr](const boost::system::error_code& error, std::size_t bytes) {
                                     if (error != asio::error::operation_aborted)
                                         received(rank, is_stderr, error, bytes);
                                 });
}

void GuestProcesses::received(int rank, bool is_stderr, const boost::system::error_code& error, std::size_t bytes) {
    Output& output = is_stderr ? child(rank).err : child(rank).out;
    output.partial.append(output.buffer.data(), bytes);
    // Whole lines go out at once; a line without its end is held back, up
    // to kLongestLine, so lines of different ranks never mix.
    const std::size_t last = output.partial.rfind('\n');
    if (last != std::string::npos) {
        print(rank, is_stderr, output.partial.substr(0, last + 1));
        output.partial.erase(0, last + 1);
    }
    if (output.partial.size() >= kLongestLine || (error && !output.partial.empty())) {
        print(rank, is_stderr, output.partial);
        output.partial.clear();
    }
    if (error) {
        output.open = false;
        boost::system::error_code ignored;
        output.pipe->close(ignored);
        return;
    }
    read(rank, is_stderr);
}

void GuestProcesses::print(int rank, bool is_stderr, const std::string& text) {
    std::ostream& stream = is_stderr ? err_ : out_;
    if (label_ == OutputLabel::None) {
        stream << text;  // byte for byte, as mpirun
    } else {
        const std::string label = label_ == OutputLabel::Rank
                                      ? "[" + std::to_string(rank) + "] "
                                      : "[1," + std::to_string(rank) + (is_stderr ? "]<stderr>:" : "]<stdout>:");
        for (std::size_t start = 0; start < text.size();) {
            std::size_t end = text.find('\n', start);
            end = end == std::string::npos ? text.size() : end + 1;
            stream << label;
            stream.write(text.data() + start, static_cast<std::streamsize>(end - start));
            if (text[end - 1] != '\n') stream << '\n';  // a labelled piece is a line of its own
            start = end;
        }
    }
    stream.flush();
}

void GuestProcesses::wait_for_sigchld() {
    sigchld_.async_wait([this](const boost::system::error_code& error, int) {
        if (error) return;
        reap();
        wait_for_sigchld();
    });
}

void GuestProcesses::reap() {
    for (std::size_t rank = 0; rank < children_.size(); ++rank) {
        Child* entry = children_[rank].get();
        if (entry == nullptr || !entry->running) continue;
        int wait_status = 0;
        pid_t result;
        // The child on the terminal is also watched for stops: Ctrl-Z stops
        // the foreground debugger, and no one else would resume it (the
        // shell's job is the launcher), so the terminal would hang.
        const bool on_terminal = static_cast<int>(rank) == terminal_rank_;
        while ((result = ::waitpid(entry->pid, &wait_status, WNOHANG | (on_terminal ? WUNTRACED : 0))) < 0 &&
               errno == EINTR) {
        }
        if (result != entry->pid) continue;
        if (WIFSTOPPED(wait_status)) {
            if (WSTOPSIG(wait_status) == SIGTSTP) {
                err_ << "[isvp] rank " << rank
                     << " (on the terminal) was stopped by Ctrl-Z (SIGTSTP): continued; a debugging session "
                        "cannot be suspended, quit the debugger to end it\n";
                err_.flush();
                signal_group(*entry, SIGCONT);
            }
            continue;
        }
        entry->running = false;
        entry->status = exit_status(wait_status);
        // The group id stays reserved while members remain; once it is
        // empty the id may be reused, so it is never signalled again.
        signal_group(*entry, 0);
        if (static_cast<int>(rank) == terminal_rank_) take_back_terminal();
        if (on_exit_) on_exit_(static_cast<int>(rank), entry->status, describe(wait_status));
    }
}

void GuestProcesses::terminate(std::chrono::milliseconds grace) {
    for (std::size_t rank = 0; rank < children_.size(); ++rank)
        if (children_[rank]) terminate(static_cast<int>(rank), grace);
}

void GuestProcesses::terminate(int rank, std::chrono::milliseconds grace) {
    Child& entry = child(rank);
    if (grace.count() <= 0) {
        entry.kill_timer->cancel();
        entry.kill_due = false;
        signal_group(entry, SIGKILL);
        return;
    }
    if (entry.kill_due) return;  // SIGTERM sent, SIGKILL already due: not postponed
    signal_group(entry, SIGTERM);
    if (!entry.group && !entry.running) return;
    entry.kill_due = true;
    entry.kill_timer->expires_after(grace);
    entry.kill_timer->async_wait([this, rank](const boost::system::error_code& error) {
        if (error) return;
        Child& target = child(rank);
        target.kill_due = false;
        signal_group(target, SIGKILL);
    });
}

std::vector<int> GuestProcesses::lingering() const {
    std::vector<int> result;
    for (std::size_t rank = 0; rank < children_.size(); ++rank) {
        const Child* entry = children_[rank].get();
        if (entry != nullptr && !entry->running && entry->group && ::kill(-entry->pid, 0) == 0)
            result.push_back(static_cast<int>(rank));
    }
    return result;
}

bool GuestProcesses::running(int rank) const {
    return static_cast<std::size_t>(rank) < children_.size() && children_[static_cast<std::size_t>(rank)] &&
           children_[static_cast<std::size_t>(rank)]->running;
}

bool GuestProcesses::all_exited() const {
    for (const auto& entry : children_)
        if (entry && entry->running) return false;
    return true;
}

bool GuestProcesses::output_closed() const {
    for (const auto& entry : children_)
        if (entry && (entry->out.open || entry->err.open)) return false;
    return true;
}

int GuestProcesses::status(int rank) const {
    if (static_cast<std::size_t>(rank) >= children_.size() || !children_[static_cast<std::size_t>(rank)]) return -1;
    return children_[static_cast<std::size_t>(rank)]->status;
}

pid_t GuestProcesses::pid(int rank) const {
    if (static_cast<std::size_t>(rank) >= children_.size() || !children_[static_cast<std::size_t>(rank)]) return -1;
    return children_[static_cast<std::size_t>(rank)]->pid;
}

int GuestProcesses::exit_status(int wait_status) {
    if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
    return 255;
}

std::string GuestProcesses::describe(int wait_status) {
    if (WIFEXITED(wait_status)) return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
    if (WIFSIGNALED(wait_status)) {
        const int signal_number = WTERMSIG(wait_status);
        const char* name = ::strsignal(signal_number);
        return "killed by signal " + std::to_string(signal_number) + " (" + (name ? name : "unknown") + ")" +
               (WCOREDUMP(wait_status) ? ", core dumped" : "");
    }
    return "ended with wait status " + std::to_string(wait_status);
}

}  // namespace isvp::transport
