// Process topologies: MPI_Dims_create, Cartesian communicators
// (MPI_Cart_*), MPI_Topo_test. A Cartesian communicator is a split of its
// parent (ranks beyond the grid get MPI_COMM_NULL; `reorder` keeps the
// parent's order) that remembers its dimensions and periodicity; ranks are
// laid out row-major. Graph topologies: graph_topology.cpp.
#include "topology.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "registry.h"

namespace isvp::mpi {

namespace {

/// The largest r with r^k <= n.
int integer_root(int n, std::size_t k) {
    const auto power_fits = [&](long long r) {
        long long product = 1;
        for (std::size_t i = 0; i < k; ++i)
            if ((product *= r) > n) return false;
        return true;
    };
    auto r = static_cast<long long>(std::pow(static_cast<double>(n), 1.0 / static_cast<double>(k)));
    while (r > 1 && !power_fits(r)) --r;
    while (power_fits(r + 1)) ++r;
    return static_cast<int>(r);
}

/// Whether non-increasing `a` is more balanced than `b` (same length):
/// the smaller spread (largest - smallest), then the larger smallest factor,
/// then the same for both without their smallest factor.
bool more_balanced(const std::vector<int>& a, const std::vector<int>& b) {
    for (std::size_t n = a.size(); n > 1; --n) {
        const int spread_a = a.front() - a[n - 1], spread_b = b.front() - b[n - 1];
        if (spread_a != spread_b) return spread_a < spread_b;
        if (a[n - 1] != b[n - 1]) return a[n - 1] > b[n - 1];
    }
    return false;
}

/// Depth-first search for balanced_factors: picks factors[i] onwards of
/// `rest`, each a divisor at most factors[i - 1] and at least the k-th root
/// of `rest` (it is the largest of the k still to pick).
void search_factors(int rest, std::size_t i, const std::vector<int>& divisors, std::vector<int>& factors,
                    std::vector<int>& best, int& best_spread) {
    const std::size_t k = factors.size() - i;
    if (k == 1) {
        if (i > 0 && rest > factors[i - 1]) return;
        factors[i] = rest;
        const int spread = factors.front() - rest;
        if (spread < best_spread || (spread == best_spread && more_balanced(factors, best))) {
            best_spread = spread;
            best = factors;
        }
        return;
    }
    const int root = integer_root(rest, k);
    for (auto it = std::lower_bound(divisors.begin(), divisors.end(), root); it != divisors.end(); ++it) {
        const int d = *it;
        if (i > 0 && d > factors[i - 1]) break;
        // The smallest factor is at most the k-th root of what is left.
        if ((i == 0 ? d : factors.front()) - root > best_spread) break;
        if (rest % d != 0) continue;
        factors[i] = d;
        search_factors(rest / d, i + 1, divisors, factors, best, best_spread);
    }
}

/// `count` factors of `nodes` in non-increasing order whose largest and
/// smallest differ the least ("as close to each other as possible", MPI 3.1
/// §7.5.2); ties as more_balanced() breaks them, which gives MPICH's
/// choices (5040 in 3 is 21 x 16 x 15, not 20 x 18 x 14).
std::vector<int> balanced_factors(int nodes, std::size_t count) {
    std::vector<int> divisors;
    for (int d = 1; static_cast<long long>(d) * d <= nodes; ++d)
        if (nodes % d == 0) {
            divisors.push_back(d);
            if (d != nodes / d) divisors.push_back(nodes / d);
        }
    std::sort(divisors.begin(), divisors.end());
    std::vector<int> factors(count, 1), best(count, 1);
    best.front() = nodes;
    int best_spread = std::numeric_limits<int>::max();
    search_factors(nodes, 0, divisors, factors, best, best_spread);
    return best;
}

/// Fills the zero entries of `dims` with a factorisation of `nodes` that is
/// as balanced as possible, in non-increasing order (MPI 3.1 §7.5.2).
void fill_dims(int nodes, std::vector<int>& dims) {
    long long fixed = 1;
    std::vector<std::size_t> free;
    for (std::size_t d = 0; d < dims.size(); ++d) {
        if (dims[d] < 0)
            fail(MPI_ERR_DIMS, "dims[" + std::to_string(d) + "] = " + std::to_string(dims[d]) + " is negative");
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
            fail(MPI_ERR_DIMS,
                 "the fixed dims multiply to " + std::to_string(fixed) + ", not nnodes " + std::to_string(nodes));
        return;
    }
    const std::vector<int> sizes = balanced_factors(rest, free.size());
    for (std::size_t i = 0; i < free.size(); ++i) dims[free[i]] = sizes[i];
}

/// The communicator, which must have a Cartesian topology.
Comm& check_cart(MPI_Comm handle) {
    Comm& comm = check_comm(handle);
    if (!comm.cartesian)
        fail(MPI_ERR_TOPOLOGY, "the communicator has no Cartesian topology (MPI_Cart_create makes one)");
    return comm;
}

std::vector<int> coordinates(const Comm& comm, int rank) {
    std::vector<int> coords(comm.cart_dims.size());
    for (std::size_t d = comm.cart_dims.size(); d-- > 0;) {
        coords[d] = rank % comm.cart_dims[d];
        rank /= comm.cart_dims[d];
    }
    return coords;
}

/// Rank of `coords` (periodic dimensions wrap); MPI_PROC_NULL when a
/// coordinate of a non-periodic dimension is outside the grid.
int rank_of(const Comm& comm, const std::vector<int>& coords) {
    int rank = 0;
    for (std::size_t d = 0; d < comm.cart_dims.size(); ++d) {
        int c = coords[d];
        const int extent = comm.cart_dims[d];
        if (comm.cart_periods[d])
            c = ((c % extent) + extent) % extent;
        else if (c < 0 || c >= extent)
            return MPI_PROC_NULL;
        rank = rank * extent + c;
    }
    return rank;
}

/// Splits `parent` (collective) into the members with `colour` (MPI_UNDEFINED: none), ordered by key.
MPI_Comm split_with_topology(Comm& parent, int colour, int key, std::vector<int> dims, std::vector<int> periods) {
    std::optional<guest::Communicator> made =
        collectives().split(parent.guest, colour == MPI_UNDEFINED ? -1 : colour, key);
    if (!made) return MPI_COMM_NULL;
    const MPI_Comm handle = register_comm(std::move(*made), &parent);
    Comm& comm = *find_comm(handle);
    comm.cartesian = true;
    comm.cart_dims = std::move(dims);
    comm.cart_periods = std::move(periods);
    return handle;
}

}  // namespace

Neighbors topology_neighbors(const Comm& comm) {
    Neighbors neighbors;
    if (comm.graph) {
        neighbors.sources = comm.graph->sources;
        neighbors.destinations = comm.graph->destinations;
    } else if (comm.cartesian) {
        // MPI 3.1 §7.6: per dimension the MPI_Cart_shift(d, 1) source (-1), then its destination (+1).
        neighbors.cartesian = true;
        const std::vector<int> own = coordinates(comm, comm.rank());
        for (std::size_t d = 0; d < comm.cart_dims.size(); ++d)
            for (int step : {-1, 1}) {
                std::vector<int> where = own;
                where[d] += step;
                neighbors.sources.push_back(rank_of(comm, where));
            }
        neighbors.destinations = neighbors.sources;
    } else {
        fail(MPI_ERR_TOPOLOGY,
             "the communicator has no topology (MPI_Cart_create, MPI_Graph_create or MPI_Dist_graph_create make one)");
    }
    return neighbors;
}

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
        const Comm& c = *find_comm(comm);
        if (c.graph)
            *status = c.graph->distributed ? MPI_DIST_GRAPH : MPI_GRAPH;
        else
            *status = c.cartesian ? MPI_CART : MPI_UNDEFINED;
    });
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm* comm_cart) {
    (void)reorder;  // the parent's order is kept: every rank is one node hop-wise alike
    return entry("MPI_Cart_create", comm_old, [&] {
        Comm& parent = check_comm(comm_old);
        refuse_inter(parent, "MPI_Cart_create");
        if (ndims < 0) fail(MPI_ERR_DIMS, "ndims " + std::to_string(ndims) + " is negative");
        if (ndims > 0 && (dims == nullptr || periods == nullptr)) fail(MPI_ERR_ARG, "dims or periods is NULL");
        if (comm_cart == nullptr) fail(MPI_ERR_ARG, "comm_cart is NULL");
        long long cells = 1;
        for (int d = 0; d < ndims; ++d) {
            if (dims[d] <= 0)
                fail(MPI_ERR_DIMS, "dims[" + std::to_string(d) + "] = " + std::to_string(dims[d]) + " is not positive");
            cells *= dims[d];
        }
        if (cells > parent.size())
            fail(MPI_ERR_DIMS, "the grid has " + std::to_string(cells) + " cells, more than the communicator's " +
                                   std::to_string(parent.size()) + " ranks");
        std::vector<int> periodic(static_cast<std::size_t>(ndims));
        for (int d = 0; d < ndims; ++d) periodic[static_cast<std::size_t>(d)] = periods[d] ? 1 : 0;
        *comm_cart = split_with_topology(parent, parent.rank() < cells ? 0 : MPI_UNDEFINED, parent.rank(),
                                         std::vector<int>(dims, dims + ndims), std::move(periodic));
    });
}

int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
    return entry("MPI_Cartdim_get", comm, [&] {
        const Comm& cart = check_cart(comm);
        if (ndims == nullptr) fail(MPI_ERR_ARG, "ndims is NULL");
        *ndims = static_cast<int>(cart.cart_dims.size());
    });
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
    return entry("MPI_Cart_get", comm, [&] {
        const Comm& cart = check_cart(comm);
        const int n = static_cast<int>(cart.cart_dims.size());
        if (maxdims < n) fail(MPI_ERR_ARG, "maxdims " + std::to_string(maxdims) + " < ndims " + std::to_string(n));
        if (n > 0 && (dims == nullptr || periods == nullptr || coords == nullptr))
            fail(MPI_ERR_ARG, "dims, periods or coords is NULL");
        const std::vector<int> own = coordinates(cart, cart.rank());
        for (int d = 0; d < n; ++d) {
            dims[d] = cart.cart_dims[static_cast<std::size_t>(d)];
            periods[d] = cart.cart_periods[static_cast<std::size_t>(d)];
            coords[d] = own[static_cast<std::size_t>(d)];
        }
    });
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
    return entry("MPI_Cart_rank", comm, [&] {
        const Comm& cart = check_cart(comm);
        const std::size_t n = cart.cart_dims.size();
        if ((n > 0 && coords == nullptr) || rank == nullptr) fail(MPI_ERR_ARG, "coords or rank is NULL");
        const std::vector<int> where(coords, coords + n);
        *rank = rank_of(cart, where);
        if (*rank == MPI_PROC_NULL) fail(MPI_ERR_ARG, "coords lie outside a non-periodic dimension of the grid");
    });
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
    return entry("MPI_Cart_coords", comm, [&] {
        const Comm& cart = check_cart(comm);
        check_rank(cart, rank, "rank", false);
        const int n = static_cast<int>(cart.cart_dims.size());
        if (maxdims < n) fail(MPI_ERR_ARG, "maxdims " + std::to_string(maxdims) + " < ndims " + std::to_string(n));
        if (n > 0 && coords == nullptr) fail(MPI_ERR_ARG, "coords is NULL");
        const std::vector<int> where = coordinates(cart, rank);
        std::copy(where.begin(), where.end(), coords);
    });
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
    return entry("MPI_Cart_shift", comm, [&] {
        const Comm& cart = check_cart(comm);
        const int n = static_cast<int>(cart.cart_dims.size());
        if (direction < 0 || direction >= n)
            fail(MPI_ERR_DIMS, "direction " + std::to_string(direction) + " outside 0.." + std::to_string(n - 1));
        if (rank_source == nullptr || rank_dest == nullptr) fail(MPI_ERR_ARG, "rank_source or rank_dest is NULL");
        std::vector<int> where = coordinates(cart, cart.rank());
        const int own = where[static_cast<std::size_t>(direction)];
        where[static_cast<std::size_t>(direction)] = own + disp;
        *rank_dest = rank_of(cart, where);
        where[static_cast<std::size_t>(direction)] = own - disp;
        *rank_source = rank_of(cart, where);
    });
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
    return entry("MPI_Cart_sub", comm, [&] {
        Comm& cart = check_cart(comm);
        const std::size_t n = cart.cart_dims.size();
        if ((n > 0 && remain_dims == nullptr) || newcomm == nullptr)
            fail(MPI_ERR_ARG, "remain_dims or newcomm is NULL");
        // Colour: the coordinates in the dropped dimensions; key: the rank.
        const std::vector<int> where = coordinates(cart, cart.rank());
        int colour = 0;
        std::vector<int> dims, periods;
        for (std::size_t d = 0; d < n; ++d) {
            if (remain_dims[d]) {
                dims.push_back(cart.cart_dims[d]);
                periods.push_back(cart.cart_periods[d]);
            } else {
                colour = colour * cart.cart_dims[d] + where[d];
            }
        }
        *newcomm = split_with_topology(cart, colour, cart.rank(), std::move(dims), std::move(periods));
    });
}

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
    return entry("MPI_Cart_map", comm, [&] {
        const Comm& c = check_comm(comm);
        if (ndims < 0 || (ndims > 0 && (dims == nullptr || periods == nullptr)) || newrank == nullptr)
            fail(MPI_ERR_ARG, "ndims is negative or dims, periods or newrank is NULL");
        long long cells = 1;
        for (int d = 0; d < ndims; ++d) cells *= dims[d];
        if (cells > c.size()) fail(MPI_ERR_DIMS, "the grid has more cells than the communicator has ranks");
        *newrank = c.rank() < cells ? c.rank() : MPI_UNDEFINED;
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Dims_create)
ISVP_MPI_ALIAS(Topo_test)
ISVP_MPI_ALIAS(Cart_create)
ISVP_MPI_ALIAS(Cartdim_get)
ISVP_MPI_ALIAS(Cart_get)
ISVP_MPI_ALIAS(Cart_rank)
ISVP_MPI_ALIAS(Cart_coords)
ISVP_MPI_ALIAS(Cart_shift)
ISVP_MPI_ALIAS(Cart_sub)
ISVP_MPI_ALIAS(Cart_map)
