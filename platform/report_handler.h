// SystemC reports of the `isvp` tool (SC_REPORT_INFO/WARNING/ERROR/FATAL):
// written to stderr, never stdout (which carries the guests' output and the
// benchmarks' tables), and a flood of one kind held back — a misbehaving
// guest can make the platform warn for every MMIO write.
//
// Per severity and message type (the report's id, e.g. "isvp/qdma"): the
// first kReportsShown are printed in full (SystemC's layout, "In process:
// NAME @ TIME" included, but not its "In file:" line: the C++ source of the
// report call), then one line every
// kReportSummaryPeriod of wall time with the count suppressed since, and a
// last count when the tool ends (flush_report_summary()). Every other action
// of a report (throwing an error, aborting on a fatal) is SystemC's default.
#pragma once

#include <chrono>
#include <cstddef>

namespace isvp::cli {

inline constexpr std::size_t kReportsShown = 10;                 ///< reports printed per severity and type
inline constexpr std::chrono::seconds kReportSummaryPeriod{10};  ///< wall time between suppression counts

/// Makes the handler above SystemC's report handler.
void install_report_handler();

/// Prints "isvp: suppressed K more ..." for every kind with reports
/// suppressed since its last count.
void flush_report_summary();

}  // namespace isvp::cli
