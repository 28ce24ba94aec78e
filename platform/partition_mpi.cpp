// The system's MPI between simulator partitions (partition_sync.h). This
// translation unit alone includes the system's mpi.h.
#include <mpi.h>

#if !defined(OPEN_MPI) && !defined(MPICH_VERSION)
#error "partition_mpi.cpp must see the system's MPI (Open MPI or MPICH), not the guest MPI shim's mpi.h"
#endif

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "isvp/parameters.h"
#include "partition_sync.h"

namespace isvp::cli {

namespace {

void check(int code, const char* call) {
    if (code != MPI_SUCCESS) throw std::runtime_error(std::string("partitions: ") + call + " failed");
}

unsigned environment_number(const char* name) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return 0;
    return static_cast<unsigned>(std::strtoul(text, nullptr, 10));
}

void set_default(const char* name, const char* value) {
    if (std::getenv(name) == nullptr) setenv(name, value, 0);
}

}  // namespace

unsigned PartitionRuntime::launched_size() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS"})
        if (const unsigned size = environment_number(name)) return size;
    return 0;
}

void PartitionRuntime::relaunch(unsigned partitions, const std::vector<std::string>& arguments,
                                const PartitionPlan& plan) {
    char self[4096];
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) throw std::runtime_error("partitions: cannot find this program (/proc/self/exe)");
    self[length] = '\0';
    // Open MPI: more partitions than cores is allowed (a 2-core machine runs
    // 3), waiting partitions yield the CPU, root may run it (containers, CI),
    // and no ptrace-based single copy (refused in containers). MPICH ignores these.
    set_default("OMPI_MCA_rmaps_base_oversubscribe", "1");
    set_default("OMPI_MCA_mpi_yield_when_idle", "1");
    set_default("OMPI_MCA_btl_vader_single_copy_mechanism", "none");
    if (geteuid() == 0) {
        set_default("OMPI_ALLOW_RUN_AS_ROOT", "1");
        set_default("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    }
    const char* launcher = std::getenv("ISVP_MPIEXEC");
    std::vector<std::string> words{launcher && *launcher ? launcher : "mpiexec", "-n", std::to_string(partitions),
                                   self};
    words.insert(words.end(), arguments.begin(), arguments.end());
    const int status = supervise_partitions(words, plan);
    std::cout.flush();
    std::cerr.flush();
    std::exit(status);
}

PartitionRuntime::PartitionRuntime(unsigned expected) {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<unsigned>(rank);
    size_ = static_cast<unsigned>(size);
    if (expected != 0 && expected != size_) {
        if (rank_ == 0)
            std::cerr << "isvp: --partitions " << expected << " but mpiexec started " << size_
                      << " processes: give mpiexec -n " << expected << " or drop --partitions\n";
        MPI_Finalize();
        std::exit(2);
    }
    monitor_ = std::make_unique<PartitionMonitorClient>(rank_);
}

bool PartitionRuntime::supervised() const {
    return monitor_ && monitor_->supervised();
}

PartitionRuntime::~PartitionRuntime() {
    if (monitor_) monitor_->finished();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

void PartitionRuntime::fail(const std::string& where, const std::string& why) const {
    std::cout.flush();
    if (monitor_) monitor_->failing();  // the guests' output so far goes out first
    std::cerr << "[isvp] " << where << " failed: " << why << "; ending every partition\n";
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();
}

void PartitionRuntime::max(std::vector<std::uint64_t>& values) const {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_MAX,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
}
void PartitionRuntime::min(std::vector<std::uint64_t>& values) const {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_MIN,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
}
void PartitionRuntime::sum(std::vector<std::uint64_t>& values) const {
    check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
}

PartitionSync::PartitionSync(PartitionRuntime& runtime, const PartitionPlan& plan, std::string where)
    : runtime_(runtime), lookahead_ps_(plan.lookahead_ps()), bound_ps_(plan.lookahead_ps()), where_(std::move(where)) {
    if (lookahead_ps_ == 0) throw ConfigError("partitions: no cable is cut, nothing to synchronise");
    // Test only (docs/PARTITIONS.md): this partition fails as a platform
    // error would, to check that it is the one named and nobody waits.
    const char* failing = std::getenv("ISVP_TEST_PARTITION_FAIL");
    test_failure_ = failing != nullptr && *failing != '\0' && std::to_string(runtime_.rank()) == failing;
}

transport::PartitionWindow::Agreement PartitionSync::synchronise(const std::function<Report()>& report) {
    if (test_failure_ && statistics_.windows == 20) fail("ISVP_TEST_PARTITION_FAIL: a failure injected by a test");
    const auto started = std::chrono::steady_clock::now();
    const int partitions = static_cast<int>(runtime_.size());
    // Cut traffic: counts first, then the bytes, each partition's in one piece.
    std::vector<int> send_counts(partitions, 0), receive_counts(partitions, 0);
    std::vector<int> send_offsets(partitions, 0), receive_offsets(partitions, 0);
    std::vector<std::uint8_t> sending;
    for (int p = 0; p < partitions; ++p) {
        const std::vector<std::uint8_t>& box = boundary_->outboxes()[static_cast<std::size_t>(p)];
        send_offsets[p] = static_cast<int>(sending.size());
        send_counts[p] = static_cast<int>(box.size());
        sending.insert(sending.end(), box.begin(), box.end());
        if (!box.empty()) ++statistics_.messages;
    }
    statistics_.bytes_sent += sending.size();
    boundary_->clear_outboxes();
    check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
          "MPI_Alltoall");
    std::size_t total = 0;
    for (int p = 0; p < partitions; ++p) {
        receive_offsets[p] = static_cast<int>(total);
        total += static_cast<std::size_t>(receive_counts[p]);
    }
    std::vector<std::uint8_t> received(std::max<std::size_t>(total, 1));
    check(MPI_Alltoallv(sending.data(), send_counts.data(), send_offsets.data(), MPI_BYTE, received.data(),
                        receive_counts.data(), receive_offsets.data(), MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Alltoallv");
    // In partition order, each in the order it was recorded.
    for (int p = 0; p < partitions; ++p)
        if (receive_counts[p] > 0)
            boundary_->deliver(received.data() + receive_offsets[p], static_cast<std::size_t>(receive_counts[p]));

    const Report mine = report();
    std::vector<std::uint64_t> agreed{mine.next_ps, mine.live ? 0u : 1u,
                                      mine.abort.empty() ? static_cast<std::uint64_t>(partitions) : runtime_.rank()};
    runtime_.min(agreed);
    Agreement result;
    result.next_ps = agreed[0];
    result.live = agreed[1] == 0;
    if (agreed[2] < static_cast<std::uint64_t>(partitions)) {
        // The lowest aborting partition says why.
        const int root = static_cast<int>(agreed[2]);
        std::string text = "partition " + std::to_string(root) + ": " + mine.abort;
        int length = static_cast<int>(text.size());
        check(MPI_Bcast(&length, 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Bcast");
        text.resize(static_cast<std::size_t>(length));
        check(MPI_Bcast(text.data(), length, MPI_CHAR, root, MPI_COMM_WORLD), "MPI_Bcast");
        result.abort = text;
    }
    ++statistics_.windows;
    // The next window starts at the earliest activity anywhere.
    const std::uint64_t start = result.next_ps == kIdle ? bound_ps_ : std::max(bound_ps_, result.next_ps);
    bound_ps_ = start + lookahead_ps_;
    statistics_.sync_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

std::vector<std::string> PartitionRuntime::gather(const std::string& text) const {
    int bytes = static_cast<int>(text.size());
    std::vector<int> sizes(rank_ == 0 ? size_ : 0);
    check(MPI_Gather(&bytes, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    std::vector<int> offsets(sizes.size());
    int total = 0;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
        offsets[k] = total;
        total += sizes[k];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    check(MPI_Gatherv(text.data(), bytes, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0,
                      MPI_COMM_WORLD),
          "MPI_Gatherv");
    std::vector<std::string> texts;
    for (std::size_t k = 0; k < sizes.size(); ++k)
        texts.push_back(all.substr(static_cast<std::size_t>(offsets[k]), static_cast<std::size_t>(sizes[k])));
    return texts;
}

}  // namespace isvp::cli
