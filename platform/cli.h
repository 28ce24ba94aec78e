// Pieces every `isvp` subcommand shares: the platform options (--config,
// --set, --list-parameters) and error reporting.
#pragma once

#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include <boost/program_options.hpp>

#include "isvp/parameters.h"

namespace isvp {
/// The commit the binary was built from ("+" after it: with uncommitted
/// changes; "unknown" outside a git checkout). Stamped at every build.
const char* build_commit();
}  // namespace isvp

namespace isvp::cli {

/// A whole-number option value. Boost reads an `unsigned` option with
/// lexical_cast, which takes "-1" and wraps it round to 4294967295; this
/// refuses a sign, other characters and numbers that do not fit `T`.
template <typename T>
struct Whole {
    T value{};
};

template <typename T>
void validate(boost::any& out, const std::vector<std::string>& tokens, Whole<T>*, int) {
    static_assert(std::is_unsigned_v<T>, "Whole<T> is for unsigned integers");
    namespace po = boost::program_options;
    po::validators::check_first_occurrence(out);
    const std::string& text = po::validators::get_single_string(tokens);
    T value{};
    const char* end = text.data() + text.size();
    const auto parsed = std::from_chars(text.data(), end, value);
    if (text.empty() || parsed.ec != std::errc() || parsed.ptr != end)
        throw po::error_with_option_name("the argument ('" + text + "') for option '%canonical_option%' is not a "
                                         "whole number from 0 to " + std::to_string(~T{}));
    out = Whole<T>{value};
}

/// A whole-number option with a default, e.g. `whole(5u)`.
template <typename T>
boost::program_options::typed_value<Whole<T>>* whole(T default_value) {
    return boost::program_options::value<Whole<T>>()->default_value(Whole<T>{default_value},
                                                                   std::to_string(default_value));
}

/// The value of a whole-number option.
template <typename T>
T whole_value(const boost::program_options::variables_map& values, const char* name) {
    return values[name].as<Whole<T>>().value;
}

/// Adds --config FILE, --set key=value (repeatable), --list-parameters and,
/// for commands that run the platform, --trace FILE.
void add_platform_options(boost::program_options::options_description& options, bool trace = true);

/// Loads --config FILE, if given, into `parameters`. Called first: what the
/// command line says (a command's own options such as --topology, --aglu or
/// --nodes, then --set) overrides the file.
void apply_config_option(const boost::program_options::variables_map& values, Parameters& parameters);

/// Applies --set (and --trace) to `parameters`, after apply_config_option and
/// the command's own options. Returns false when --list-parameters asked for
/// the parameter table instead of a run.
bool apply_platform_options(const boost::program_options::variables_map& values, Parameters& parameters);

/// Throws ConfigError naming `option` if `path` cannot be written: checked
/// before a run, so a long run does not end with its output lost.
void check_writable(const std::string& option, const std::string& path);

/// Parses argv after the subcommand name; prints help and returns false on --help.
bool parse(int argc, char** argv, const std::string& usage, const boost::program_options::options_description& options,
           boost::program_options::variables_map& values);

/// The command leaves its platform to the process's end (JobPlatform::
/// keep_for_exit): once it returns, sc_main flushes the output and ends the
/// process at once, without destroying what is still alive. At 1024 nodes
/// SystemC's teardown (its port and export registries searched once per
/// port) costs seconds (docs/PERFORMANCE.md).
void end_process_on_return();
/// Whether a command asked for end_process_on_return().
bool ending_process_on_return();

/// The period of a long run's heartbeat lines (bench collectives
/// --progress-every, run --progress): `seconds` from 0.01 to 86400 (below,
/// a line would come with nearly every simulation slice), or 0 = off when
/// `zero_is_off`. `what` ("run: --progress") starts the refusal.
std::chrono::nanoseconds heartbeat_period(double seconds, const std::string& what, bool zero_is_off);
/// A heartbeat line's figures: "simulated time T us, N packet-hops so far,
/// E s elapsed" (the packet-hops only when given: not under partitions,
/// where a process holds part of the network).
std::string heartbeat_figures(std::uint64_t simulated_ps, std::optional<std::uint64_t> hops, double elapsed_s);

}  // namespace isvp::cli
