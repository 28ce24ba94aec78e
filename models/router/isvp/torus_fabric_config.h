// Everything a torus fabric is built from: its shape (topology.torus), the
// router parameters (router.*) and the Aurora link parameters (aurora.*).
// No SystemC.
#pragma once

#include "isvp/aurora_config.h"
#include "isvp/parameters.h"
#include "isvp/router_config.h"
#include "isvp/torus_topology.h"

namespace isvp {

struct TorusFabricConfig {
    TorusShape shape{4, 4, 4};  ///< topology.torus
    RouterConfig router;        ///< router.*, the same for every node
    AuroraConfig aurora;        ///< aurora.*, the same for every link

    /// Declares topology.torus, router.* and aurora.*.
    static void declare(Parameters& parameters);
    /// Reads and validates them; throws ConfigError naming a bad one.
    static TorusFabricConfig from(const Parameters& parameters);
    /// Throws ConfigError naming the first bad field.
    void validate() const;
};

}  // namespace isvp
