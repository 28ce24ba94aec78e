// Runs one transport job against the fake device and prints what happened:
//
//   transport_job_tb --mode remote|local --ranks N --scenario NAME
//                    [--guest PATH] [--set key=value ...] [--mpirun]
//
// --mpirun: TransportConfig::end_on_early_exit, as `isvp run` sets it.
// Remote: the launcher starts N copies of `PATH NAME` (transport_guest);
// local: N threads run the same scenario code. Guests' "trace" lines appear
// as "[rank] trace ..." in both modes (local traces are printed after the
// job, in rank order), then "[tb] ..." lines: each rank's outcome and the
// device's log of SHARED accesses. The exit status is the job's.
// transport_checks runs this program and compares its outputs.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

#include "isvp/job_launcher.h"
#include "isvp/parameters.h"
#include "transport_fake_device.h"
#include "transport_scenarios.h"

namespace {

int usage(const char* program) {
    std::cerr << "usage: " << program
              << " --mode remote|local --ranks N --scenario NAME [--guest PATH] [--set key=value ...] [--mpirun]\n";
    return 2;
}

}  // namespace

int sc_main(int argc, char** argv) {
    std::string mode;
    std::string scenario;
    std::string guest;
    int ranks = 0;
    bool mpirun = false;
    isvp::Parameters parameters;
    isvp::TransportConfig::declare(parameters);
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string option = argv[i];
            if (option == "--mpirun") {
                mpirun = true;
                continue;
            }
            if (i + 1 >= argc) return usage(argv[0]);
            const std::string value = argv[++i];
            if (option == "--mode")
                mode = value;
            else if (option == "--ranks")
                ranks = std::stoi(value);
            else if (option == "--scenario")
                scenario = value;
            else if (option == "--guest")
                guest = value;
            else if (option == "--set")
                parameters.apply_override(value);
            else
                return usage(argv[0]);
        }
    } catch (const std::exception& error) {
        std::cerr << "transport_job_tb: " << error.what() << "\n";
        return 2;
    }
    if ((mode != "remote" && mode != "local") || ranks < 1 || scenario.empty() || (mode == "remote" && guest.empty()))
        return usage(argv[0]);

    isvp::transport::JobSpec spec;
    spec.ranks = ranks;
    spec.config = isvp::TransportConfig::from(parameters);
    spec.config.end_on_early_exit = mpirun;
    spec.command = {guest, scenario};
    spec.label = isvp::transport::OutputLabel::Rank;  // the checks read "[rank] " lines

    std::unique_ptr<isvp::test::TransportFakeDevice> device;
    const isvp::transport::PlatformBuilder build = [&](const std::vector<isvp::transport::HostMemorySpan>&,
                                                       const std::vector<isvp::transport::GuestGateway*>& gateways) {
        device = std::make_unique<isvp::test::TransportFakeDevice>("device");
        for (isvp::transport::GuestGateway* gateway : gateways) {
            gateway->mmio.bind(device->bar);
            device->msi.bind(gateway->msi);
        }
    };

    isvp::transport::JobResult result;
    if (mode == "remote") {
        result = isvp::transport::run_remote_job(spec, build);
    } else {
        if (!isvp::test::is_scenario(scenario)) {
            std::cerr << "transport_job_tb: scenario " << scenario << " does not run locally\n";
            return 2;
        }
        std::vector<std::ostringstream> traces(static_cast<std::size_t>(ranks));
        const std::uint64_t write_cost_ps = spec.config.mmio_write_ps();
        result = isvp::transport::run_local_job(spec, build, [&](isvp::guest::DeviceTransport& transport) {
            return isvp::test::run_scenario(scenario, transport, write_cost_ps,
                                            traces[static_cast<std::size_t>(transport.rank())]);
        });
        for (int rank = 0; rank < ranks; ++rank) {
            std::istringstream lines(traces[static_cast<std::size_t>(rank)].str());
            for (std::string line; std::getline(lines, line);) std::cout << "[" << rank << "] " << line << "\n";
        }
    }

    for (int rank = 0; rank < ranks; ++rank) {
        const isvp::transport::RankOutcome& outcome = result.ranks[static_cast<std::size_t>(rank)];
        std::cout << "[tb] rank " << rank << " status " << outcome.status;
        if (outcome.finished)
            std::cout << " finished at " << outcome.finish_time_ps << " ps";
        else
            std::cout << " ended: " << outcome.ended;
        std::cout << " reads " << outcome.reads << " writes " << outcome.writes << " interrupts " << outcome.interrupts
                  << "\n";
    }
    if (device)
        for (const auto& access : device->shared_log)
            std::cout << "[tb] device SHARED " << (access.write ? "write" : "read") << " t=" << access.time_ps
                      << " rank=" << access.rank << " value=0x" << std::hex << access.value << std::dec << "\n";
    std::cout << "[tb] end " << result.end_time_ps << " ps, error: " << (result.error.empty() ? "none" : result.error)
              << "\n[tb] exit status " << result.exit_status << std::endl;
    return result.exit_status;
}
