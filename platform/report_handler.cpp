#include "report_handler.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <systemc>

namespace isvp::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Kind {
    std::size_t seen = 0;        ///< reports of this kind so far
    std::size_t suppressed = 0;  ///< not printed since the last count
    Clock::time_point counted;   ///< last count printed (or the first suppression)
};

std::mutex& kinds_mutex() {
    static std::mutex mutex;
    return mutex;
}

/// By (severity, message type).
std::map<std::pair<int, std::string>, Kind>& kinds() {
    static std::map<std::pair<int, std::string>, Kind> table;
    return table;
}

const char* plural(int severity) {
    switch (severity) {
        case sc_core::SC_INFO:
            return "infos";
        case sc_core::SC_WARNING:
            return "warnings";
        case sc_core::SC_ERROR:
            return "errors";
        default:
            return "fatal errors";
    }
}

/// `last`: the count at the end, else one of the periodic counts.
void print_count(const std::pair<int, std::string>& key, Kind& kind, bool last) {
    std::cerr << "isvp: suppressed " << kind.suppressed << " more '" << key.second << "' " << plural(key.first) << " ("
              << kind.seen << (last ? " in all)\n" : " in all so far)\n");
    kind.suppressed = 0;
    kind.counted = Clock::now();
}

/// SystemC's layout (sc_report_compose_message) without its "In file:"
/// line: the C++ source of the report call says nothing to a user; the
/// process (model instance) and simulated time do.
std::string compose(const sc_core::sc_report& report) {
    static const char* const kSeverity[] = {"Info", "Warning", "Error", "Fatal"};
    const int severity = std::clamp(static_cast<int>(report.get_severity()), 0, 3);
    std::string text = std::string(kSeverity[severity]) + ": ";
    if (report.get_id() >= 0)  // SystemC's own numbered messages: "(W505) "
        text += std::string("(") + "IWEF"[severity] + std::to_string(report.get_id()) + ") ";
    text += report.get_msg_type();
    if (*report.get_msg() != '\0') text += std::string(": ") + report.get_msg();
    const char* process = report.get_process_name();
    if (report.get_severity() > sc_core::SC_INFO && process != nullptr && *process != '\0')
        text += std::string("\nIn process: ") + process + " @ " + report.get_time().to_string();
    return text;
}

void handle(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
    if (actions & sc_core::SC_DISPLAY) {
        const std::lock_guard<std::mutex> lock(kinds_mutex());
        const std::pair<int, std::string> key{report.get_severity(), report.get_msg_type()};
        Kind& kind = kinds()[key];
        ++kind.seen;
        if (kind.seen <= kReportsShown) {
            std::cerr << compose(report) << "\n";
            if (kind.seen == kReportsShown)
                std::cerr << "isvp: further '" << key.second << "' " << plural(key.first)
                          << " are counted, not shown (a count every " << kReportSummaryPeriod.count()
                          << " s and at the end)\n";
            std::cerr.flush();
        } else {
            if (kind.seen == kReportsShown + 1) kind.counted = Clock::now();  // the period starts
            ++kind.suppressed;
            if (Clock::now() - kind.counted >= kReportSummaryPeriod) {
                print_count(key, kind, false);
                std::cerr.flush();
            }
        }
    }
    sc_core::sc_report_handler::default_handler(report, actions & ~sc_core::SC_DISPLAY);
}

}  // namespace

void install_report_handler() {
    sc_core::sc_report_handler::set_handler(handle);
}

void flush_report_summary() {
    const std::lock_guard<std::mutex> lock(kinds_mutex());
    for (auto& [key, kind] : kinds())
        if (kind.suppressed > 0) print_count(key, kind, true);
    std::cerr.flush();
}

}  // namespace isvp::cli
