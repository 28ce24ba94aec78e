// The one Catch2 binary for all SystemC-free code.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
