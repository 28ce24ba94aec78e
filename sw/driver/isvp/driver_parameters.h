// The driver.* parameters (docs/PERFORMANCE.md, "Send and completion
// paths"), declared once in one table (isvp/parameter_table.h): the
// platform declares and reads them from it (`isvp run`, `isvp bench`), the
// Driver checks a DriverConfig built in code against the same ranges, and
// the send-path and completion names come from it too.
#pragma once

#include "isvp/driver.h"
#include "isvp/parameters.h"

namespace isvp::guest {

/// Declares driver.send_path, driver.pio_max_bytes, driver.completion,
/// driver.poll_us and driver.poll_interval_ns with DriverConfig{}'s defaults.
void declare_driver_parameters(Parameters& parameters);
/// Reads them into a DriverConfig (other fields: defaults) and checks it.
DriverConfig driver_config_from(const Parameters& parameters);
/// ConfigError "config: NAME must be ACCEPTED, got VALUE" for the first
/// field outside the table's ranges.
void check_driver_parameters(const DriverConfig& config);

}  // namespace isvp::guest
