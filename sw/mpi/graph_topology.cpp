// Graph and distributed graph topologies (MPI 3.1 §7.5.3-7.5.5): MPI_Graph_create,
// MPI_Graph_get, MPI_Graphdims_get, MPI_Graph_neighbors(_count),
// MPI_Graph_map, MPI_Dist_graph_create(_adjacent),
// MPI_Dist_graph_neighbors(_count). The graph is kept in Comm::graph
// (topology.h); MPI_Comm_dup copies it, MPI_Topo_test reports it.
//
// `reorder` is ignored, as for MPI_Cart_create: the parent's rank order is
// kept. A graph communicator is the split of its parent into the first
// nnodes ranks (the others get MPI_COMM_NULL); a distributed graph
// communicator has every rank of its parent.
//
// Creation agrees before it builds anything, so every rank fails alike on
// bad input (an argument one rank got wrong fails the call on all ranks,
// instead of leaving the others waiting in the new communicator's
// collective):
//  - MPI_Graph_create: one allreduce of (arguments valid, hash of the graph),
//    which also catches ranks passing different graphs;
//  - MPI_Dist_graph_create(_adjacent): an allgather of each rank's edges
//    (padded to the longest list). MPI_Dist_graph_create needs it anyway to
//    tell every rank its edges; for the adjacent form it checks that every
//    edge is listed by both ends (the neighbourhood collectives would
//    otherwise wait for a message that never comes) and that either all or
//    no ranks pass MPI_UNWEIGHTED.
// MPI_Dist_graph_create orders a rank's edges by the rank that specified
// them, then by their position in its arrays (MPI leaves the order open;
// both ends of every edge see the same order, so multiple edges between two
// ranks match in the neighbourhood collectives).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "registry.h"
#include "topology.h"

namespace isvp::mpi {

namespace {

std::string str(long long value) {
    return std::to_string(value);
}

/// The communicator, which must have a graph topology of the given kind.
const GraphTopology& check_graph(MPI_Comm handle, bool distributed) {
    const Comm& comm = check_comm(handle);
    if (!comm.graph || comm.graph->distributed != distributed)
        fail(MPI_ERR_TOPOLOGY, distributed ? "the communicator has no distributed graph topology "
                                             "(MPI_Dist_graph_create or MPI_Dist_graph_create_adjacent make one)"
                                           : "the communicator has no graph topology (MPI_Graph_create makes one)");
    return *comm.graph;
}

/// Runs `check`, returning the error it throws instead of throwing.
template <class Check>
std::optional<Error> local_error(Check&& check) {
    try {
        check();
        return std::nullopt;
    } catch (const Error& error) {
        return error;
    }
}

/// Throws this rank's error, else (when `first_bad` names another rank)
/// the error that rank's arguments caused.
void fail_together(const std::optional<Error>& own, int first_bad) {
    if (own) throw *own;
    if (first_bad >= 0)
        fail(MPI_ERR_ARG, "rank " + str(first_bad) + " of comm_old passed invalid arguments (its error names them)");
}

/// Registers a communicator with a graph topology.
MPI_Comm register_graph(guest::Communicator made, const Comm& parent, std::shared_ptr<GraphTopology> graph) {
    const MPI_Comm handle = register_comm(std::move(made), &parent);
    find_comm(handle)->graph = std::move(graph);
    return handle;
}

/// The argument checks of MPI_Graph_create (MPI_Graph_map takes the same graph).
void check_graph_arguments(const Comm& parent, int nnodes, const int index[], const int edges[]) {
    if (nnodes < 0) fail(MPI_ERR_ARG, "nnodes " + str(nnodes) + " is negative");
    if (nnodes > parent.size())
        fail(MPI_ERR_ARG, "nnodes " + str(nnodes) + " exceeds the communicator's " + str(parent.size()) + " ranks");
    if (nnodes == 0) return;
    if (index == nullptr) fail(MPI_ERR_ARG, "index is NULL");
    for (int i = 0; i < nnodes; ++i)
        if (index[i] < (i == 0 ? 0 : index[i - 1]))
            fail(MPI_ERR_ARG, "index[" + str(i) + "] = " + str(index[i]) +
                                  (i == 0 ? " is negative" : " is less than index[" + str(i - 1) + "]"));
    if (index[nnodes - 1] > 0 && edges == nullptr) fail(MPI_ERR_ARG, "edges is NULL");
    for (int k = 0; k < index[nnodes - 1]; ++k)
        if (edges[k] < 0 || edges[k] >= nnodes)
            fail(MPI_ERR_ARG,
                 "edges[" + str(k) + "] = " + str(edges[k]) + " is not a node (0.." + str(nnodes - 1) + ")");
}

/// FNV-1a over ints.
std::uint64_t hash_ints(std::uint64_t hash, const int* values, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
        hash ^= static_cast<std::uint32_t>(values[i]);
        hash *= 0x100000001b3ull;
    }
    return hash;
}

// ---- distributed graphs -------------------------------------------------------------

/// One edge as the ranks exchange it.
struct Edge {
    int source = 0;
    int destination = 0;
    int weight = 0;
};

/// Checks one array of ranks (MPI_ERR_ARG when NULL with entries or a value outside the communicator).
void check_ranks(const int* ranks, int count, int size, const char* what) {
    if (count > 0 && ranks == nullptr) fail(MPI_ERR_ARG, std::string(what) + " is NULL");
    for (int i = 0; i < count; ++i)
        if (ranks[i] < 0 || ranks[i] >= size)
            fail(MPI_ERR_RANK, std::string(what) + "[" + str(i) + "] = " + str(ranks[i]) +
                                   " is not a rank of comm_old (0.." + str(size - 1) + ")");
}

/// Checks a weights array of `count` edges that is not MPI_UNWEIGHTED.
void check_weights(const int* weights, int count, const char* what) {
    if (count == 0) return;
    if (weights == MPI_WEIGHTS_EMPTY)
        fail(MPI_ERR_ARG, std::string(what) + " is MPI_WEIGHTS_EMPTY for " + str(count) + " edges");
    if (weights == nullptr) fail(MPI_ERR_ARG, std::string(what) + " is NULL (MPI_UNWEIGHTED: no weights)");
    for (int i = 0; i < count; ++i)
        if (weights[i] < 0)
            fail(MPI_ERR_ARG, std::string(what) + "[" + str(i) + "] = " + str(weights[i]) + " is negative");
}

/// Every rank's edges, gathered on every rank: `mine` (padded to the
/// longest list), after a header of (valid, weighted, edge count). Returns
/// the lists by rank; fails on every rank alike when one rank's arguments
/// were invalid or the ranks disagree on weights.
std::vector<std::vector<Edge>> gather_edges(Comm& parent, const std::optional<Error>& own, bool weighted,
                                            const std::vector<Edge>& mine) {
    const auto size = static_cast<std::size_t>(parent.size());
    const int header[3] = {own ? 1 : 0, weighted ? 1 : 0, static_cast<int>(mine.size())};
    std::vector<int> headers(3 * size);
    collectives().allgather(parent.guest, header, headers.data(), 3, Datatype::Int32);
    int first_bad = -1, longest = 0, weighted_ranks = 0;
    for (std::size_t r = 0; r < size; ++r) {
        if (headers[3 * r] != 0 && first_bad < 0) first_bad = static_cast<int>(r);
        weighted_ranks += headers[3 * r + 1];
        longest = std::max(longest, headers[3 * r + 2]);
    }
    fail_together(own, first_bad);
    if (weighted_ranks != 0 && weighted_ranks != parent.size())
        fail(MPI_ERR_ARG, str(parent.size() - weighted_ranks) + " of " + str(parent.size()) +
                              " ranks pass MPI_UNWEIGHTED and the others weights (MPI 3.1 §7.5.4: all or none)");
    std::vector<std::vector<Edge>> lists(size);
    if (longest == 0) return lists;
    const std::size_t width = 3 * static_cast<std::size_t>(longest);
    std::vector<int> send(width, 0), all(width * size);
    for (std::size_t e = 0; e < mine.size(); ++e) {
        send[3 * e] = mine[e].source;
        send[3 * e + 1] = mine[e].destination;
        send[3 * e + 2] = mine[e].weight;
    }
    collectives().allgather(parent.guest, send.data(), all.data(), width, Datatype::Int32);
    for (std::size_t r = 0; r < size; ++r)
        for (int e = 0; e < headers[3 * r + 2]; ++e) {
            const int* at = &all[r * width + 3 * static_cast<std::size_t>(e)];
            lists[r].push_back({at[0], at[1], at[2]});
        }
    return lists;
}

/// A distributed graph communicator: a duplicate of `parent` with `graph`.
MPI_Comm make_dist_graph(Comm& parent, std::shared_ptr<GraphTopology> graph) {
    graph->distributed = true;
    return register_graph(collectives().dup(parent.guest), parent, std::move(graph));
}

}  // namespace

}  // namespace isvp::mpi

using namespace isvp::mpi;
using isvp::Datatype;
using isvp::Operation;
using isvp::guest::Communicator;

extern "C" {

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                      MPI_Comm* comm_graph) {
    (void)reorder;  // the parent's order is kept
    return entry("MPI_Graph_create", comm_old, [&] {
        Comm& parent = check_comm(comm_old);
        refuse_inter(parent, "MPI_Graph_create");
        const std::optional<Error> own = local_error([&] {
            if (comm_graph == nullptr) fail(MPI_ERR_ARG, "comm_graph is NULL");
            check_graph_arguments(parent, nnodes, index, edges);
        });
        // Agree: all arguments valid (min of 1/0) and one graph (min of hash and of ~hash).
        std::uint64_t hash = 0xcbf29ce484222325ull;
        if (!own && nnodes > 0) {
            hash = hash_ints(hash_ints(hash, &nnodes, 1), index, static_cast<std::size_t>(nnodes));
            hash = hash_ints(hash, edges, static_cast<std::size_t>(index[nnodes - 1]));
        }
        const std::uint64_t mine[3] = {own ? 0u : 1u, hash, ~hash};
        std::uint64_t agreed[3] = {};
        collectives().allreduce(parent.guest, mine, agreed, 3, Datatype::UInt64, Operation::Min);
        if (own) throw *own;
        if (agreed[0] == 0)
            fail(MPI_ERR_ARG, "another rank of comm_old passed invalid arguments (its error names them)");
        if (agreed[1] != hash || agreed[2] != ~hash)
            fail(MPI_ERR_ARG, "the ranks of comm_old pass different graphs (nnodes, index and edges must be the same)");
        std::optional<Communicator> made =
            collectives().split(parent.guest, parent.rank() < nnodes ? 0 : -1, parent.rank());
        if (!made) {
            *comm_graph = MPI_COMM_NULL;
            return;
        }
        auto graph = std::make_shared<GraphTopology>();
        graph->index.assign(index, index + nnodes);
        graph->edges.assign(edges, edges + index[nnodes - 1]);
        const int me = parent.rank();
        graph->sources.assign(edges + (me == 0 ? 0 : index[me - 1]), edges + index[me]);
        graph->destinations = graph->sources;
        *comm_graph = register_graph(std::move(*made), parent, std::move(graph));
    });
}

int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
    return entry("MPI_Graphdims_get", comm, [&] {
        const GraphTopology& graph = check_graph(comm, false);
        if (nnodes == nullptr || nedges == nullptr) fail(MPI_ERR_ARG, "nnodes or nedges is NULL");
        *nnodes = static_cast<int>(graph.index.size());
        *nedges = static_cast<int>(graph.edges.size());
    });
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
    return entry("MPI_Graph_get", comm, [&] {
        const GraphTopology& graph = check_graph(comm, false);
        if (maxindex < 0 || maxedges < 0) fail(MPI_ERR_ARG, "maxindex or maxedges is negative");
        // MPI 3.1 §7.5.5: the arrays hold maxindex and maxedges entries; fill what fits.
        const auto indices = std::min(static_cast<std::size_t>(maxindex), graph.index.size());
        const auto edge_count = std::min(static_cast<std::size_t>(maxedges), graph.edges.size());
        if ((indices > 0 && index == nullptr) || (edge_count > 0 && edges == nullptr))
            fail(MPI_ERR_ARG, "index or edges is NULL");
        std::copy_n(graph.index.begin(), indices, index);
        std::copy_n(graph.edges.begin(), edge_count, edges);
    });
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
    return entry("MPI_Graph_neighbors_count", comm, [&] {
        const GraphTopology& graph = check_graph(comm, false);
        check_rank(*find_comm(comm), rank, "rank", false);
        if (nneighbors == nullptr) fail(MPI_ERR_ARG, "nneighbors is NULL");
        const auto r = static_cast<std::size_t>(rank);
        *nneighbors = graph.index[r] - (r == 0 ? 0 : graph.index[r - 1]);
    });
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
    return entry("MPI_Graph_neighbors", comm, [&] {
        const GraphTopology& graph = check_graph(comm, false);
        check_rank(*find_comm(comm), rank, "rank", false);
        if (maxneighbors < 0) fail(MPI_ERR_ARG, "maxneighbors " + str(maxneighbors) + " is negative");
        const auto r = static_cast<std::size_t>(rank);
        const int first = r == 0 ? 0 : graph.index[r - 1];
        const int count = std::min(maxneighbors, graph.index[r] - first);
        if (count > 0 && neighbors == nullptr) fail(MPI_ERR_ARG, "neighbors is NULL");
        std::copy_n(graph.edges.begin() + first, count, neighbors);
    });
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
    return entry("MPI_Graph_map", comm, [&] {
        const Comm& c = check_comm(comm);
        check_graph_arguments(c, nnodes, index, edges);
        if (newrank == nullptr) fail(MPI_ERR_ARG, "newrank is NULL");
        *newrank = c.rank() < nnodes ? c.rank() : MPI_UNDEFINED;  // the identity, as MPI_Graph_create
    });
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int* sourceweights,
                                    int outdegree, const int destinations[], const int* destweights, MPI_Info info,
                                    int reorder, MPI_Comm* comm_dist_graph) {
    (void)info;     // no hints are used
    (void)reorder;  // the parent's order is kept
    return entry("MPI_Dist_graph_create_adjacent", comm_old, [&] {
        Comm& parent = check_comm(comm_old);
        refuse_inter(parent, "MPI_Dist_graph_create_adjacent");
        const bool unweighted = sourceweights == MPI_UNWEIGHTED && destweights == MPI_UNWEIGHTED;
        const std::optional<Error> own = local_error([&] {
            if (comm_dist_graph == nullptr) fail(MPI_ERR_ARG, "comm_dist_graph is NULL");
            if (indegree < 0 || outdegree < 0)
                fail(MPI_ERR_ARG, "indegree " + str(indegree) + " or outdegree " + str(outdegree) + " is negative");
            check_ranks(sources, indegree, parent.size(), "sources");
            check_ranks(destinations, outdegree, parent.size(), "destinations");
            if (!unweighted && (sourceweights == MPI_UNWEIGHTED || destweights == MPI_UNWEIGHTED))
                fail(MPI_ERR_ARG, "only one of sourceweights and destweights is MPI_UNWEIGHTED");
            if (!unweighted) {
                check_weights(sourceweights, indegree, "sourceweights");
                check_weights(destweights, outdegree, "destweights");
            }
        });
        // Every edge as its sender lists it (weight 0) and as its receiver
        // does (weight 1), to check that both ends list it.
        std::vector<Edge> mine;
        if (!own) {
            for (int i = 0; i < outdegree; ++i) mine.push_back({parent.rank(), destinations[i], 0});
            for (int i = 0; i < indegree; ++i) mine.push_back({sources[i], parent.rank(), 1});
        }
        const std::vector<std::vector<Edge>> lists = gather_edges(parent, own, !unweighted, mine);
        std::map<std::pair<int, int>, std::pair<int, int>> listed;  // (from, to) -> (by from, by to)
        for (const auto& list : lists)
            for (const Edge& edge : list) {
                auto& counts = listed[{edge.source, edge.destination}];
                (edge.weight == 0 ? counts.first : counts.second) += 1;
            }
        for (const auto& [ends, counts] : listed)
            if (counts.first != counts.second)
                fail(MPI_ERR_ARG, "the graph is inconsistent: rank " + str(ends.first) + " lists rank " +
                                      str(ends.second) + " " + str(counts.first) + " time(s) as a destination, rank " +
                                      str(ends.second) + " lists rank " + str(ends.first) + " " + str(counts.second) +
                                      " time(s) as a source");
        auto graph = std::make_shared<GraphTopology>();
        graph->sources.assign(sources, sources + indegree);
        graph->destinations.assign(destinations, destinations + outdegree);
        graph->weighted = !unweighted;
        if (graph->weighted) {
            if (indegree > 0) graph->source_weights.assign(sourceweights, sourceweights + indegree);
            if (outdegree > 0) graph->destination_weights.assign(destweights, destweights + outdegree);
        }
        *comm_dist_graph = make_dist_graph(parent, std::move(graph));
    });
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                           const int* weights, MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
    (void)info;     // no hints are used
    (void)reorder;  // the parent's order is kept
    return entry("MPI_Dist_graph_create", comm_old, [&] {
        Comm& parent = check_comm(comm_old);
        refuse_inter(parent, "MPI_Dist_graph_create");
        const bool unweighted = weights == MPI_UNWEIGHTED;
        std::vector<Edge> mine;
        const std::optional<Error> own = local_error([&] {
            if (comm_dist_graph == nullptr) fail(MPI_ERR_ARG, "comm_dist_graph is NULL");
            if (n < 0) fail(MPI_ERR_ARG, "n " + str(n) + " is negative");
            check_ranks(sources, n, parent.size(), "sources");
            if (n > 0 && degrees == nullptr) fail(MPI_ERR_ARG, "degrees is NULL");
            long long total = 0;
            for (int i = 0; i < n; ++i) {
                if (degrees[i] < 0) fail(MPI_ERR_ARG, "degrees[" + str(i) + "] = " + str(degrees[i]) + " is negative");
                total += degrees[i];
            }
            if (total > std::numeric_limits<int>::max() / 3)
                fail(MPI_ERR_ARG, "the degrees add up to " + str(total) + " edges, too many for one call");
            check_ranks(destinations, static_cast<int>(total), parent.size(), "destinations");
            if (!unweighted) check_weights(weights, static_cast<int>(total), "weights");
            for (int i = 0, e = 0; i < n; ++i)
                for (int k = 0; k < degrees[i]; ++k, ++e)
                    mine.push_back({sources[i], destinations[e], unweighted ? 1 : weights[e]});
        });
        if (own) mine.clear();
        const std::vector<std::vector<Edge>> lists = gather_edges(parent, own, !unweighted, mine);
        auto graph = std::make_shared<GraphTopology>();
        graph->weighted = !unweighted;
        for (const auto& list : lists)
            for (const Edge& edge : list) {
                if (edge.destination == parent.rank()) {
                    graph->sources.push_back(edge.source);
                    if (graph->weighted) graph->source_weights.push_back(edge.weight);
                }
                if (edge.source == parent.rank()) {
                    graph->destinations.push_back(edge.destination);
                    if (graph->weighted) graph->destination_weights.push_back(edge.weight);
                }
            }
        *comm_dist_graph = make_dist_graph(parent, std::move(graph));
    });
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
    return entry("MPI_Dist_graph_neighbors_count", comm, [&] {
        const GraphTopology& graph = check_graph(comm, true);
        if (indegree == nullptr || outdegree == nullptr || weighted == nullptr)
            fail(MPI_ERR_ARG, "indegree, outdegree or weighted is NULL");
        *indegree = static_cast<int>(graph.sources.size());
        *outdegree = static_cast<int>(graph.destinations.size());
        *weighted = graph.weighted ? 1 : 0;
    });
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int* sourceweights, int maxoutdegree,
                              int destinations[], int* destweights) {
    return entry("MPI_Dist_graph_neighbors", comm, [&] {
        const GraphTopology& graph = check_graph(comm, true);
        if (maxindegree < 0 || maxoutdegree < 0) fail(MPI_ERR_ARG, "maxindegree or maxoutdegree is negative");
        const auto in = std::min(static_cast<std::size_t>(maxindegree), graph.sources.size());
        const auto out = std::min(static_cast<std::size_t>(maxoutdegree), graph.destinations.size());
        if ((in > 0 && sources == nullptr) || (out > 0 && destinations == nullptr))
            fail(MPI_ERR_ARG, "sources or destinations is NULL");
        std::copy_n(graph.sources.begin(), in, sources);
        std::copy_n(graph.destinations.begin(), out, destinations);
        // Weights are written for a weighted graph, into arrays that are not MPI_UNWEIGHTED.
        const auto wants = [](const int* weights) {
            return weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY && weights != nullptr;
        };
        if (graph.weighted && wants(sourceweights)) std::copy_n(graph.source_weights.begin(), in, sourceweights);
        if (graph.weighted && wants(destweights)) std::copy_n(graph.destination_weights.begin(), out, destweights);
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Graph_create)
ISVP_MPI_ALIAS(Graphdims_get)
ISVP_MPI_ALIAS(Graph_get)
ISVP_MPI_ALIAS(Graph_neighbors_count)
ISVP_MPI_ALIAS(Graph_neighbors)
ISVP_MPI_ALIAS(Graph_map)
ISVP_MPI_ALIAS(Dist_graph_create_adjacent)
ISVP_MPI_ALIAS(Dist_graph_create)
ISVP_MPI_ALIAS(Dist_graph_neighbors_count)
ISVP_MPI_ALIAS(Dist_graph_neighbors)
