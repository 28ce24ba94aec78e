// Local ranks as fibers on the simulator's thread.
#include "isvp/rank_fibers.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cxxabi.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>

#if defined(__GLIBCXX__)
// The C++ runtime's per-thread exception state (libstdc++/libsupc++ ABI, as
// in GCC's unwind-cxx.h): kept per fiber, see RankFibers::resume.
namespace __cxxabiv1 {
struct __cxa_eh_globals {
    void* caughtExceptions;           ///< exceptions being handled, innermost first
    unsigned int uncaughtExceptions;  ///< thrown and not yet caught
};
}  // namespace __cxxabiv1
#endif

namespace isvp::transport {

namespace ctx = boost::context;

namespace {

std::size_t page_bytes() {
    const long size = ::sysconf(_SC_PAGESIZE);
    return size > 0 ? static_cast<std::size_t>(size) : 4096;
}

std::size_t round_to_pages(std::size_t bytes) {
    const std::size_t page = page_bytes();
    return (bytes + page - 1) / page * page;
}

/// A fiber's stack: `usable` bytes with RankFibers::kGuardBytes of
/// PROT_NONE below them, committed only as touched (MAP_NORESERVE).
struct GuardedStack {
    std::size_t usable;  ///< stack bytes above the guard

    ctx::stack_context allocate() {
        const std::size_t total = usable + RankFibers::kGuardBytes;
        void* base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base == MAP_FAILED)
            throw std::runtime_error("cannot reserve a " + std::to_string(usable >> 10) +
                                     " KiB fiber stack (job.fiber_stack_kib): " + std::strerror(errno));
        if (::mprotect(base, RankFibers::kGuardBytes, PROT_NONE) != 0) {
            const int error = errno;
            ::munmap(base, total);
            throw std::runtime_error(std::string("cannot protect a fiber stack's guard region: ") +
                                     std::strerror(error));
        }
        ctx::stack_context stack;
        stack.size = usable;
        stack.sp = static_cast<char*>(base) + total;  // stacks grow down from here
        return stack;
    }

    void deallocate(ctx::stack_context& stack) noexcept {
        ::munmap(static_cast<char*>(stack.sp) - stack.size - RankFibers::kGuardBytes,
                 stack.size + RankFibers::kGuardBytes);
    }
};

// --- naming the rank whose stack overflowed -------------------------------
//
// A fault in a guard region is reported ("isvp: rank R overflowed its fiber
// stack ...") before the process dies of it; any other fault goes to the
// handler that was there before. Process-wide state, as signal dispositions
// are: the one RankFibers alive registers its fibers' guard regions here
// (a job runs once per process).

struct GuardRegion {
    std::atomic<const char*> low{nullptr};  ///< first guard byte (null: free slot)
    std::atomic<int> rank{-1};              ///< whose stack it guards
};
constexpr std::size_t kGuardSlots = 65536;  // the job's largest rank count
GuardRegion* guard_regions = nullptr;       // kGuardSlots entries while a RankFibers lives
struct sigaction previous_segv {};
stack_t previous_altstack{};
void* altstack_memory = nullptr;
constexpr std::size_t kAltstackBytes = 64 * 1024;
std::size_t overflow_stack_kib = 0;

void write_text(const char* text) {
    const std::size_t length = std::strlen(text);
    ssize_t ignored = ::write(STDERR_FILENO, text, length);
    (void)ignored;
}

void write_number(std::size_t value) {
    char digits[24];
    std::size_t at = sizeof digits;
    digits[--at] = '\0';
    do {
        digits[--at] = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value != 0 && at > 0);
    write_text(digits + at);
}

void on_segv(int number, siginfo_t* info, void* context) {
    const char* address = static_cast<const char*>(info->si_addr);
    if (guard_regions != nullptr)
        for (std::size_t slot = 0; slot < kGuardSlots; ++slot) {
            const char* low = guard_regions[slot].low.load(std::memory_order_relaxed);
            if (low == nullptr || address < low || address >= low + RankFibers::kGuardBytes) continue;
            write_text("[isvp] rank ");
            write_number(static_cast<std::size_t>(guard_regions[slot].rank.load(std::memory_order_relaxed)));
            write_text(" overflowed its fiber stack (job.fiber_stack_kib = ");
            write_number(overflow_stack_kib);
            write_text("): raise job.fiber_stack_kib, or run the ranks as threads (job.ranks=threads)\n");
            break;
        }
    // The fault recurs when this returns, under the disposition from before.
    if ((previous_segv.sa_flags & SA_SIGINFO) != 0 && previous_segv.sa_sigaction != nullptr) {
        previous_segv.sa_sigaction(number, info, context);
        return;
    }
    ::sigaction(SIGSEGV, &previous_segv, nullptr);
}

void install_overflow_report(std::size_t stack_kib) {
    overflow_stack_kib = stack_kib;
    guard_regions = new GuardRegion[kGuardSlots];
    // The handler runs on its own stack: the faulting one is exhausted.
    altstack_memory = ::mmap(nullptr, kAltstackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (altstack_memory == MAP_FAILED) {
        altstack_memory = nullptr;
        return;
    }
    stack_t stack{};
    stack.ss_sp = altstack_memory;
    stack.ss_size = kAltstackBytes;
    ::sigaltstack(&stack, &previous_altstack);
    struct sigaction action {};
    action.sa_sigaction = on_segv;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGSEGV, &action, &previous_segv);
}

void remove_overflow_report() {
    if (altstack_memory != nullptr) {
        ::sigaction(SIGSEGV, &previous_segv, nullptr);
        ::sigaltstack(&previous_altstack, nullptr);
        ::munmap(altstack_memory, kAltstackBytes);
        altstack_memory = nullptr;
    }
    delete[] guard_regions;
    guard_regions = nullptr;
}

}  // namespace

struct RankFibers::Fiber {
    ctx::fiber context;               ///< suspended fiber (empty while it runs, or once ended)
    ctx::fiber scheduler;             ///< inside the fiber: where suspend() returns to
    std::function<void()> body;       ///< what it runs
    const char* stack_low = nullptr;  ///< lowest usable stack byte (for stack_touched)
    bool ended = false;               ///< body returned
    bool queued = false;              ///< in ready_
#if defined(__GLIBCXX__)
    __cxxabiv1::__cxa_eh_globals exceptions{nullptr, 0};  ///< its exception state while suspended
#endif
};

RankFibers::RankFibers(std::size_t stack_bytes) : stack_bytes_(round_to_pages(stack_bytes)) {
    if (guard_regions != nullptr) throw std::logic_error("RankFibers: one per process");
    install_overflow_report(stack_bytes_ >> 10);
}

RankFibers::~RankFibers() {
    if (watcher_.joinable()) {
        {
            std::lock_guard<std::mutex> lock(watch_mutex_);
            watch_stop_ = true;
        }
        watch_stop_signal_.notify_all();
        watcher_.join();
    }
    for (auto& fiber : fibers_)
        if (fiber && !fiber->ended) {
            // Never resumed to its end (the job failed around it): destroying
            // the fiber would unwind its stack with an exception that guest
            // code's catch (...) may swallow. Its memory is left to the
            // process's end instead.
            (void)fiber.release();
        }
    remove_overflow_report();
}

void RankFibers::spawn(int rank, std::function<void()> body) {
    if (rank < 0 || static_cast<std::size_t>(rank) >= kGuardSlots)
        throw std::invalid_argument("RankFibers: rank " + std::to_string(rank) + " out of range");
    if (fibers_.size() <= static_cast<std::size_t>(rank)) fibers_.resize(static_cast<std::size_t>(rank) + 1);
    auto& slot = fibers_[static_cast<std::size_t>(rank)];
    if (slot) throw std::logic_error("RankFibers: rank " + std::to_string(rank) + " has a fiber already");
    slot = std::make_unique<Fiber>();
    Fiber& fiber = *slot;
    fiber.body = std::move(body);
    GuardedStack stack{stack_bytes_};
    // The stack is made here (not at the first resume) so its guard region
    // can be registered: a fiber's stack lies directly below its top.
    ctx::stack_context made = stack.allocate();
    const char* low = static_cast<const char*>(made.sp) - made.size;
    fiber.stack_low = low;
    guard_regions[static_cast<std::size_t>(rank)].rank.store(rank, std::memory_order_relaxed);
    guard_regions[static_cast<std::size_t>(rank)].low.store(low - kGuardBytes, std::memory_order_relaxed);
    ctx::preallocated preallocated(made.sp, made.size, made);
    fiber.context = ctx::fiber(std::allocator_arg, preallocated, stack, [this, rank](ctx::fiber&& scheduler) {
        Fiber& self = *fibers_[static_cast<std::size_t>(rank)];
        self.scheduler = std::move(scheduler);
        self.body();
        self.ended = true;
        self.body = nullptr;
        guard_regions[static_cast<std::size_t>(rank)].low.store(nullptr, std::memory_order_relaxed);
        return std::move(self.scheduler);
    });
    wake(rank);
}

void RankFibers::suspend() {
    if (current_ < 0) throw std::logic_error("RankFibers::suspend outside a fiber");
    Fiber& self = *fibers_[static_cast<std::size_t>(current_)];
    self.scheduler = std::move(self.scheduler).resume();
}

void RankFibers::wake(int rank) {
    if (rank < 0 || static_cast<std::size_t>(rank) >= fibers_.size()) return;
    Fiber* fiber = fibers_[static_cast<std::size_t>(rank)].get();
    if (fiber == nullptr || fiber->ended || fiber->queued) return;
    fiber->queued = true;
    ready_.push_back(rank);
}

std::size_t RankFibers::run_ready() {
    if (current_ >= 0) throw std::logic_error("RankFibers::run_ready inside a fiber");
    std::size_t ran = 0;
    // Only those woken so far: a rank woken while these run waits for the
    // next call, after the scheduler has seen what these sent.
    for (std::size_t count = ready_.size(); count > 0; --count) {
        const int rank = ready_.front();
        ready_.pop_front();
        Fiber& fiber = *fibers_[static_cast<std::size_t>(rank)];
        fiber.queued = false;
        if (fiber.ended) continue;
        resume(rank);
        ++ran;
    }
    return ran;
}

void RankFibers::resume(int rank) {
    Fiber& fiber = *fibers_[static_cast<std::size_t>(rank)];
#if defined(__GLIBCXX__)
    // The exception state is per thread in the runtime, but each fiber has
    // its own catch blocks: a rank suspended inside one, while another
    // throws and catches, would otherwise end the other's handler or see
    // its count. Swapped in and out around the switch.
    __cxxabiv1::__cxa_eh_globals* globals = __cxxabiv1::__cxa_get_globals();
    const __cxxabiv1::__cxa_eh_globals scheduler_state = *globals;
    *globals = fiber.exceptions;
#endif
    current_ = rank;
    const bool watched = watcher_.joinable();
    if (watched) {
        resumed_at_.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
        resumes_.fetch_add(1, std::memory_order_relaxed);
        watched_rank_.store(rank, std::memory_order_release);
    }
    fiber.context = std::move(fiber.context).resume();
    if (watched) {
        // Not while the watcher gives a notice about this fiber.
        std::lock_guard<std::mutex> lock(watch_mutex_);
        watched_rank_.store(-1, std::memory_order_release);
    }
    current_ = -1;
#if defined(__GLIBCXX__)
    fiber.exceptions = *globals;
    *globals = scheduler_state;
#endif
}

void RankFibers::watch_stalls(std::chrono::nanoseconds period,
                              std::function<void(int rank, std::chrono::nanoseconds running)> notice) {
    if (watcher_.joinable() || period <= std::chrono::nanoseconds::zero()) return;
    notice_ = std::move(notice);
    watcher_ = std::thread([this, period] { watch(period); });
}

void RankFibers::watch(std::chrono::nanoseconds period) {
    // Checked a few times per period, as the scheduler checks ranks: a
    // notice comes at most a tenth of a period (at most 1 s) late.
    const auto tick =
        std::clamp<std::chrono::nanoseconds>(period / 10, std::chrono::milliseconds(10), std::chrono::seconds(1));
    std::uint64_t seen = 0;   // the resume being watched
    std::int64_t given = 0;   // notices given for it
    std::unique_lock<std::mutex> lock(watch_mutex_);
    while (!watch_stop_signal_.wait_for(lock, tick, [this] { return watch_stop_; })) {
        // Under the mutex: a fiber seen running cannot switch back before
        // the notice is given.
        const int rank = watched_rank_.load(std::memory_order_acquire);
        if (rank < 0) continue;
        const std::uint64_t resume = resumes_.load(std::memory_order_relaxed);
        if (resume != seen) {
            seen = resume;
            given = 0;
        }
        const auto running = Clock::now() - Clock::time_point(Clock::duration(resumed_at_.load(std::memory_order_relaxed)));
        const std::int64_t periods = running / period;
        if (periods <= given) continue;
        given = periods;
        notice_(rank, std::chrono::duration_cast<std::chrono::nanoseconds>(running));
    }
}

std::size_t RankFibers::unfinished() const {
    return static_cast<std::size_t>(
        std::count_if(fibers_.begin(), fibers_.end(), [](const auto& fiber) { return fiber && !fiber->ended; }));
}

std::size_t RankFibers::stack_touched(int rank) const {
    if (rank < 0 || static_cast<std::size_t>(rank) >= fibers_.size()) return 0;
    const Fiber* fiber = fibers_[static_cast<std::size_t>(rank)].get();
    if (fiber == nullptr || fiber->ended) return 0;
    const std::size_t page = page_bytes();
    std::vector<unsigned char> resident(stack_bytes_ / page);
    if (::mincore(const_cast<char*>(fiber->stack_low), stack_bytes_, resident.data()) != 0) return 0;
    // The stack grows down: the lowest resident page is the deepest reached.
    for (std::size_t index = 0; index < resident.size(); ++index)
        if (resident[index] & 1u) return stack_bytes_ - index * page;
    return 0;
}

}  // namespace isvp::transport
