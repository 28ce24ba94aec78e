// What the process topologies share: topology.cpp (Cartesian, MPI_Topo_test),
// graph_topology.cpp (MPI_Graph_*, MPI_Dist_graph_*) and coll_neighbor.cpp
// (the neighbourhood collectives, which exchange with a rank's neighbours).
//
// Plain C++17, no SystemC.
#pragma once

#include <vector>

#include "mpi_impl.h"

namespace isvp::mpi {

/// A graph (MPI_Graph_create) or distributed graph (MPI_Dist_graph_create,
/// MPI_Dist_graph_create_adjacent) topology, held by Comm::graph.
struct GraphTopology {
    bool distributed = false;  ///< MPI_DIST_GRAPH (else MPI_GRAPH)
    /// MPI_Graph_create: the whole graph as given (MPI_Graph_get).
    std::vector<int> index;
    std::vector<int> edges;
    /// This rank's in- and out-neighbours (comm ranks) in the order the
    /// query functions return them; for MPI_GRAPH both are the rank's
    /// neighbours in MPI_Graph_neighbors order.
    std::vector<int> sources;
    std::vector<int> destinations;
    /// Distributed graph: the edges' weights (empty when unweighted).
    std::vector<int> source_weights;
    std::vector<int> destination_weights;
    bool weighted = false;  ///< MPI_Dist_graph_neighbors_count's `weighted`
};

/// Whom a neighbourhood collective on a communicator exchanges with
/// (MPI 3.1 §7.6): receive block i comes from sources[i], send block j goes
/// to destinations[j]; MPI_PROC_NULL (Cartesian edges of a non-periodic
/// dimension) sends and receives nothing.
struct Neighbors {
    std::vector<int> sources;
    std::vector<int> destinations;
    /// Cartesian: for each dimension the -1 then the +1 neighbour, and block
    /// s of a sender lands in block s ^ 1 of its receiver (MPI 4.0 §8.6, an
    /// erratum of 3.1 that matters when a periodic dimension has extent 1 or
    /// 2). Graphs: the k-th message between two ranks fills the k-th slot.
    bool cartesian = false;
};

/// The neighbours of this rank on `comm`; MPI_ERR_TOPOLOGY when it has no
/// topology (topology.cpp).
Neighbors topology_neighbors(const Comm& comm);

}  // namespace isvp::mpi
