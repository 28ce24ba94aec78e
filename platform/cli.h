// Pieces every `isvp` subcommand shares: the platform options (--config,
// --set, --list-parameters) and error reporting.
#pragma once

#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "isvp/parameters.h"

namespace isvp {
/// The commit the binary was built from ("+" after it: with uncommitted
/// changes; "unknown" outside a git checkout). Stamped at every build.
const char* build_commit();
}  // namespace isvp

namespace isvp::cli {

/// Adds --config FILE, --set key=value (repeatable) and --list-parameters.
void add_platform_options(boost::program_options::options_description& options);

/// Applies --config then --set to `parameters`. Returns false when
/// --list-parameters asked for the parameter table instead of a run.
bool apply_platform_options(const boost::program_options::variables_map& values, Parameters& parameters);

/// Parses argv after the subcommand name; prints help and returns false on --help.
bool parse(int argc, char** argv, const std::string& usage, const boost::program_options::options_description& options,
           boost::program_options::variables_map& values);

}  // namespace isvp::cli
