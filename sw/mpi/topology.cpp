// Process topologies: MPI_Dims_create (a pure computation) and
// MPI_Topo_test. Communicators with a Cartesian or graph topology are not
// supported (unsupported.cpp); MPI_Topo_test says so by MPI_UNDEFINED.
#include <algorithm>
#include <functional>

#include "mpi_impl.h"

namespace isvp::mpi {

namespace {

/// Fills the zero entries of `dims` with a factorisation of `nodes` that is
/// as balanced as possible, in non-increasing order (MPI 3.1 §7.5.2).
void fill_dims(int nodes, std::vector<int>& dims) {
    long long fixed = 1;
    std::vector<std::size_t> free;
    for (std::size_t d = 0; d < dims.size(); ++d) {
        if (dims[d] < 0) fail(MPI_ERR_DIMS, "dims[" + std::to_string(d) + "] = " + std::to_string(dims[d]) + " is negative");
        if (dims[d] == 0)
            free.push_back(d);
        else
            fixed *= dims[d];
    }
    if (nodes % fixed != 0)
        fail(MPI_ERR_DIMS, "nnodes " + std::to_string(nodes) + " is not a multiple of the fixed dims' product " +
                               std::to_string(fixed));
    int rest = static_cast<int>(nodes / fixed);
    if (free.empty()) {
        if (rest != 1)
            fail(MPI_ERR_DIMS, "the fixed dims multiply to " + std::to_string(fixed) + ", not nnodes " +
                                   std::to_string(nodes));
        return;
    }
    std::vector<int> factors;
    for (int p = 2; static_cast<long long>(p) * p <= rest; ++p)
        while (rest % p == 0) {
            factors.push_back(p);
            rest /= p;
        }
    if (rest > 1) factors.push_back(rest);
    std::sort(factors.begin(), factors.end(), std::greater<int>());
    std::vector<int> sizes(free.size(), 1);
    for (int factor : factors) *std::min_element(sizes.begin(), sizes.end()) *= factor;
    std::sort(sizes.begin(), sizes.end(), std::greater<int>());
    for (std::size_t i = 0; i < free.size(); ++i) dims[free[i]] = sizes[i];
}

}  // namespace

}  // namespace isvp::mpi

using namespace isvp::mpi;

extern "C" {

int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
    return entry("MPI_Dims_create", MPI_COMM_WORLD, [&] {
        if (nnodes <= 0) fail(MPI_ERR_ARG, "nnodes " + std::to_string(nnodes) + " must be positive");
        if (ndims < 0) fail(MPI_ERR_DIMS, "ndims " + std::to_string(ndims) + " is negative");
        if (ndims > 0 && dims == nullptr) fail(MPI_ERR_ARG, "dims is NULL");
        std::vector<int> values(dims, dims + ndims);
        fill_dims(nnodes, values);
        std::copy(values.begin(), values.end(), dims);
    });
}

int PMPI_Topo_test(MPI_Comm comm, int* status) {
    return entry("MPI_Topo_test", comm, [&] {
        check_comm(comm);
        if (status == nullptr) fail(MPI_ERR_ARG, "status is NULL");
        *status = MPI_UNDEFINED;
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Dims_create)
ISVP_MPI_ALIAS(Topo_test)
