// Environment: MPI_Init / MPI_Finalize, the library's state, MPI_Abort,
// versions, processor name, simulated-time MPI_Wtime.
//
// MPI_Init connects to the simulator as `isvp run` told this process
// (ISVP_SOCKET etc.), brings up the driver and the collectives layer, and
// creates MPI_COMM_WORLD (context ID 0) and MPI_COMM_SELF (a split of the
// world, one rank each). ISVP_MPI_OFFLOAD=0 (or off/false) forces every
// collective into software; the default, 1, offloads where the switch can.
// The ranks agree on it at MPI_Init: offload only if every rank allows it
// (a collective offloaded on some members and in software on others could
// never match).
// MPI_Finalize synchronises the world, tells the simulator this rank is
// done (a rank that leaves without it is reported by the launcher), and
// drops the state.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include "isvp/remote_transport.h"
#include "registry.h"

namespace isvp::mpi {

namespace {

struct Lifecycle {
    bool initialized = false;
    bool finalized = false;
    std::unique_ptr<State> state;
    std::thread::id main_thread;
};

Lifecycle& lifecycle() {
    static Lifecycle instance;
    return instance;
}

bool offload_from_environment() {
    const char* value = std::getenv("ISVP_MPI_OFFLOAD");
    if (value == nullptr || *value == '\0') return true;
    const std::string text = value;
    if (text == "1" || text == "on" || text == "true" || text == "yes") return true;
    if (text == "0" || text == "off" || text == "false" || text == "no") return false;
    fail(MPI_ERR_ARG, "ISVP_MPI_OFFLOAD=" + text + " is not one of 1/on/true or 0/off/false");
}

/// The driver's send and completion paths from ISVP_MPI_DRIVER_* (set by `isvp
/// run` from driver.send_path, driver.completion, ...; unset: the defaults).
void driver_paths_from_environment(guest::DriverConfig& config) {
    const auto value = [](const char* name) -> const char* {
        const char* text = std::getenv(name);
        return text != nullptr && *text != '\0' ? text : nullptr;
    };
    const auto number = [&](const char* name, double minimum, double maximum, double fallback) {
        const char* text = value(name);
        if (text == nullptr) return fallback;
        char* end = nullptr;
        const double parsed = std::strtod(text, &end);
        if (end == text || *end != '\0' || !(parsed >= minimum && parsed <= maximum))
            fail(MPI_ERR_ARG, std::string(name) + "=" + text + " is not a number in " + std::to_string(minimum) + ".." +
                                  std::to_string(maximum));
        return parsed;
    };
    try {
        if (const char* text = value("ISVP_MPI_DRIVER_SEND_PATH")) config.send_path = guest::parse_send_path(text);
        if (const char* text = value("ISVP_MPI_DRIVER_COMPLETION")) config.completion = guest::parse_completion_mode(text);
    } catch (const guest::DriverError& error) {
        fail(MPI_ERR_ARG, error.what());
    }
    config.pio_max_bytes =
        static_cast<std::uint32_t>(number("ISVP_MPI_DRIVER_PIO_MAX_BYTES", 0, 4096, config.pio_max_bytes));
    config.poll_us = number("ISVP_MPI_DRIVER_POLL_US", 0, 1e6, config.poll_us);
    config.poll_interval_ns = number("ISVP_MPI_DRIVER_POLL_INTERVAL_NS", 0, 1e6, config.poll_interval_ns);
}

/// Whether this job offloads: every rank's ISVP_MPI_OFFLOAD (`allowed`)
/// must allow it. A software sum over the world of the ranks that allow it,
/// through a software-only guest::Collectives that lives only for this call:
/// it uses the world's first reserved tag, which the real one uses again —
/// safe, as every rank takes all of this call's messages before it sends
/// any of the next call's, and messages of one source arrive in order.
/// Rank 0 says so when the ranks differ.
bool agree_on_offload(guest::Driver& driver, bool allowed) {
    if (driver.size() == 1) return allowed;
    guest::Collectives software(driver, false);
    const std::int32_t mine = allowed ? 1 : 0;
    std::int32_t allowing = 0;
    software.allreduce(software.world(), &mine, &allowing, 1, isvp::Datatype::Int32, isvp::Operation::Sum);
    if (allowing != 0 && allowing != driver.size() && driver.rank() == 0)
        std::fprintf(stderr,
                     "isvp-mpi: ISVP_MPI_OFFLOAD is 0 on %d of %d ranks: every collective runs in software "
                     "(offload needs every rank to allow it)\n",
                     driver.size() - allowing, driver.size());
    return allowing == driver.size();
}

const char* thread_level_name(int level) {
    switch (level) {
        case MPI_THREAD_SINGLE:
            return "MPI_THREAD_SINGLE";
        case MPI_THREAD_FUNNELED:
            return "MPI_THREAD_FUNNELED";
        case MPI_THREAD_SERIALIZED:
            return "MPI_THREAD_SERIALIZED";
        default:
            return "MPI_THREAD_MULTIPLE";
    }
}

void initialize(int required) {
    Lifecycle& life = lifecycle();
    if (life.finalized) fail(MPI_ERR_OTHER, "MPI cannot be initialised again after MPI_Finalize");
    if (life.initialized) fail(MPI_ERR_OTHER, "MPI is already initialised");
    auto made = std::make_unique<State>();
    const bool allowed = offload_from_environment();
    try {
        made->transport = guest::RemoteTransport::from_environment();
    } catch (const guest::TransportError& error) {
        end_rank(1, std::string("MPI_Init: ") + error.what());
    }
    guest::DriverConfig config;
    config.offload = allowed;
    driver_paths_from_environment(config);
    made->driver = std::make_unique<guest::Driver>(*made->transport, config);
    made->offload = agree_on_offload(*made->driver, allowed);
    made->collectives = std::make_unique<guest::Collectives>(*made->driver, made->offload);
    made->thread_level = required <= MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : MPI_THREAD_FUNNELED;
    life.state = std::move(made);
    life.initialized = true;
    life.main_thread = std::this_thread::get_id();

    guest::Collectives& layer = *life.state->collectives;
    auto world = std::make_shared<Comm>();
    world->guest = layer.world();
    world->handle = MPI_COMM_WORLD;
    world->name = "MPI_COMM_WORLD";
    communicators().put(0, world);
    std::optional<guest::Communicator> self = layer.split(world->guest, world->rank(), 0);
    auto self_comm = std::make_shared<Comm>();
    self_comm->guest = std::move(*self);
    self_comm->handle = MPI_COMM_SELF;
    self_comm->name = "MPI_COMM_SELF";
    communicators().put(1, self_comm);
    install_progress_hook();
}

}  // namespace

State& state() {
    Lifecycle& life = lifecycle();
    if (!life.state) fail(MPI_ERR_OTHER, life.finalized ? "called after MPI_Finalize" : "called before MPI_Init");
    return *life.state;
}

bool active() {
    return lifecycle().state != nullptr;
}

bool finalized() {
    return lifecycle().finalized;
}

void check_thread() {
    const Lifecycle& life = lifecycle();
    if (!life.state || life.state->thread_level >= MPI_THREAD_SERIALIZED) return;
    if (std::this_thread::get_id() == life.main_thread) return;
    fail(MPI_ERR_OTHER, std::string("called from a thread other than the main thread (thread level ") +
                            thread_level_name(life.state->thread_level) + ")");
}

}  // namespace isvp::mpi

using namespace isvp::mpi;

extern "C" {

int PMPI_Init(int*, char***) {
    return entry("MPI_Init", MPI_COMM_WORLD, [] { initialize(MPI_THREAD_SINGLE); });
}

int PMPI_Init_thread(int*, char***, int required, int* provided) {
    return entry("MPI_Init_thread", MPI_COMM_WORLD, [&] {
        if (provided == nullptr) fail(MPI_ERR_ARG, "provided is NULL");
        if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
            fail(MPI_ERR_ARG, "required thread level " + std::to_string(required) + " is not one of MPI_THREAD_*");
        initialize(required);
        *provided = state().thread_level;
    });
}

int PMPI_Initialized(int* flag) {
    return entry_any_thread("MPI_Initialized", MPI_COMM_WORLD, [&] {
        if (flag == nullptr) fail(MPI_ERR_ARG, "flag is NULL");
        *flag = lifecycle().initialized ? 1 : 0;
    });
}

int PMPI_Finalized(int* flag) {
    return entry_any_thread("MPI_Finalized", MPI_COMM_WORLD, [&] {
        if (flag == nullptr) fail(MPI_ERR_ARG, "flag is NULL");
        *flag = lifecycle().finalized ? 1 : 0;
    });
}

int PMPI_Finalize(void) {
    std::string failed;                             // the closing barrier's error, if it failed
    MPI_Errhandler handler = MPI_ERRORS_ARE_FATAL;  // the world's, which reports it
    const int code = entry("MPI_Finalize", MPI_COMM_WORLD, [&] {
        State& current = state();
        Comm& world = check_comm(MPI_COMM_WORLD);
        handler = world.errhandler;
        delete_self_attributes();
        // MPI requires every nonblocking operation complete before
        // MPI_Finalize (MPI 4.0 §11.2.2); one that is not may never finish
        // (an offloaded collective's result is not waited for): say which.
        if (const std::vector<std::string> left = unfinished_operations(); !left.empty()) {
            std::string names;
            for (std::size_t i = 0; i < left.size() && i < 4; ++i) names += (i ? ", " : "") + left[i];
            if (left.size() > 4) names += ", ...";
            std::fprintf(stderr,
                         "isvp-mpi: rank %d: MPI_Finalize with %zu nonblocking operation%s not completed (%s); MPI "
                         "requires MPI_Wait/MPI_Test to complete them first: what they would deliver may never "
                         "arrive\n",
                         world.rank(), left.size(), left.size() == 1 ? "" : "s", names.c_str());
        }
        // Every rank is done sending before any leaves the job. With
        // collective.mode = sharp a failed aggregation node fails every later
        // world Barrier in the switch on every rank (error 7): then it runs in
        // software, so the job can still end (docs/COLLECTIVES.md, "SHArP mode").
        // A link fault does not stop it (docs/MPI.md, Link faults): in
        // software a lost barrier message counts as arrived (its sender got
        // this far); a switch barrier that ends with error 6 is left as it is
        // (the switch's abort notices end it on every member still waiting).
        // Any other error (error 3: the ranks' collective calls were out of
        // step, as when an earlier call failed on some ranks only and they
        // did not take part in it) fails MPI_Finalize; the rank still
        // finalizes and leaves the job as finished (status 1), so the
        // launcher does not report a program that never called MPI_Finalize.
        try {
            current.collectives->finalize_barrier(world.guest, false);
        } catch (const isvp::guest::DriverError& error) {
            const std::string what = error.what();
            if (what.find("error code 7 (SHArP") != std::string::npos)
                current.collectives->finalize_barrier(world.guest, true);
            else if (what.find("error code 6 (link fault") == std::string::npos)
                failed = what;
        }
        current.driver->set_progress_hook({});
        current.transport->finish(failed.empty() ? 0 : 1);
        reset_point_to_point();
        communicators().clear_from(0);
        Lifecycle& life = lifecycle();
        life.state.reset();
        life.finalized = true;
    });
    if (code != MPI_SUCCESS || failed.empty()) return code;
    return raise_with(handler, MPI_ERR_OTHER, "MPI_Finalize",
                      "the closing barrier failed: the ranks' collective calls were probably out of step (a "
                      "collective that some ranks skipped, or that failed on only some of them): " +
                          failed);
}

int PMPI_Abort(MPI_Comm comm, int errorcode) {
    std::string where = finalized() ? "after MPI_Finalize" : "before MPI_Init";
    if (active()) {
        where = "on rank " + std::to_string(driver().rank());
        if (const Comm* target = find_comm(comm); target != nullptr && !target->name.empty())
            where += " (communicator " + target->name + ")";
    }
    end_rank(errorcode,
             "MPI_Abort: called with error code " + std::to_string(errorcode) + " " + where + ": ending the job");
}

int PMPI_Query_thread(int* provided) {
    return entry_any_thread("MPI_Query_thread", MPI_COMM_WORLD, [&] {
        if (provided == nullptr) fail(MPI_ERR_ARG, "provided is NULL");
        *provided = state().thread_level;
    });
}

int PMPI_Is_thread_main(int* flag) {
    return entry_any_thread("MPI_Is_thread_main", MPI_COMM_WORLD, [&] {
        if (flag == nullptr) fail(MPI_ERR_ARG, "flag is NULL");
        state();
        *flag = std::this_thread::get_id() == lifecycle().main_thread ? 1 : 0;
    });
}

int PMPI_Get_version(int* version, int* subversion) {
    return entry_any_thread("MPI_Get_version", MPI_COMM_WORLD, [&] {
        if (version == nullptr || subversion == nullptr) fail(MPI_ERR_ARG, "version or subversion is NULL");
        *version = MPI_VERSION;
        *subversion = MPI_SUBVERSION;
    });
}

int PMPI_Get_library_version(char* version, int* resultlen) {
    return entry_any_thread("MPI_Get_library_version", MPI_COMM_WORLD, [&] {
        if (version == nullptr || resultlen == nullptr) fail(MPI_ERR_ARG, "version or resultlen is NULL");
        const std::string text =
            "isvp MPI shim (MPI 3.1 subset): collectives offloaded to the in-switch engine, software fallback";
        text.copy(version, text.size());
        version[text.size()] = '\0';
        *resultlen = static_cast<int>(text.size());
    });
}

int PMPI_Get_processor_name(char* name, int* resultlen) {
    return entry("MPI_Get_processor_name", MPI_COMM_WORLD, [&] {
        if (name == nullptr || resultlen == nullptr) fail(MPI_ERR_ARG, "name or resultlen is NULL");
        const std::string text = "isvp-node" + std::to_string(driver().node_address());
        text.copy(name, text.size());
        name[text.size()] = '\0';
        *resultlen = static_cast<int>(text.size());
    });
}

int PMPI_Pcontrol(const int, ...) {
    return MPI_SUCCESS;
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info, void* baseptr) {
    return entry("MPI_Alloc_mem", MPI_COMM_WORLD, [&] {
        if (size < 0) fail(MPI_ERR_SIZE, "size " + std::to_string(size) + " is negative");
        if (baseptr == nullptr) fail(MPI_ERR_ARG, "baseptr is NULL");
        void* memory = std::malloc(size > 0 ? static_cast<std::size_t>(size) : 1);
        if (memory == nullptr) fail(MPI_ERR_NO_MEM, "cannot allocate " + std::to_string(size) + " bytes");
        std::memcpy(baseptr, &memory, sizeof memory);
    });
}

int PMPI_Free_mem(void* base) {
    std::free(base);
    return MPI_SUCCESS;
}

double PMPI_Wtime(void) {
    if (!active()) return 0.0;
    return static_cast<double>(state().transport->now_ps()) * 1e-12;
}

double PMPI_Wtick(void) {
    return 1e-12;
}

}  // extern "C"

ISVP_MPI_ALIAS(Init)
ISVP_MPI_ALIAS(Init_thread)
ISVP_MPI_ALIAS(Initialized)
ISVP_MPI_ALIAS(Finalized)
ISVP_MPI_ALIAS(Finalize)
ISVP_MPI_ALIAS(Abort)
ISVP_MPI_ALIAS(Query_thread)
ISVP_MPI_ALIAS(Is_thread_main)
ISVP_MPI_ALIAS(Get_version)
ISVP_MPI_ALIAS(Get_library_version)
ISVP_MPI_ALIAS(Get_processor_name)
ISVP_MPI_ALIAS(Pcontrol)
ISVP_MPI_ALIAS(Alloc_mem)
ISVP_MPI_ALIAS(Free_mem)
ISVP_MPI_ALIAS(Wtime)
ISVP_MPI_ALIAS(Wtick)
