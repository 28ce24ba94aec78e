// The sift moves of an array-held 4-ary min-heap, for the heaps that need
// more than std::push_heap/pop_heap: one whose nodes must be found again
// (each move reported, so the owner keeps every node's index) and one that
// pops in a strict order with no equal nodes. TimedAgenda
// (models/router), MaxMinSolver (models/flow) and the guest transport's
// RankHeap (sw/transport) use them. No SystemC.
#pragma once

#include <cstddef>

namespace isvp::heap_moves {

/// The moves of a 4-ary min-heap over `heap[0, size)`: half the levels of
/// a binary heap, and a node's four children of 16 bytes are one cache
/// line, so a push or pop touches fewer lines. `earlier` is a strict order
/// in which no two held nodes are equal; `moved(index, node)` is told where
/// each node it stores now is (MaxMinSolver keeps its resources' slots, the
/// guest transport's RankHeap its ranks'; TimedAgenda needs nothing).
constexpr std::size_t kArity = 4;

struct NoNote {
    template <typename Node>
    void operator()(std::size_t, const Node&) const {}
};

template <typename Node, typename Earlier, typename Moved = NoNote>
void sift_up(Node* heap, std::size_t index, Earlier earlier, Moved moved = {}) {
    const Node node = heap[index];
    while (index > 0) {
        const std::size_t parent = (index - 1) / kArity;
        if (!earlier(node, heap[parent])) break;
        heap[index] = heap[parent];
        moved(index, heap[index]);
        index = parent;
    }
    heap[index] = node;
    moved(index, node);
}

template <typename Node, typename Earlier, typename Moved = NoNote>
void sift_down(Node* heap, std::size_t size, std::size_t index, Earlier earlier, Moved moved = {}) {
    const Node node = heap[index];
    for (;;) {
        const std::size_t first = kArity * index + 1;
        if (first >= size) break;
        std::size_t least = first;
        if (first + kArity <= size) {  // all four children: a tournament, no loop (the minimum is unique)
            const std::size_t left = earlier(heap[first + 1], heap[first]) ? first + 1 : first;
            const std::size_t right = earlier(heap[first + 3], heap[first + 2]) ? first + 3 : first + 2;
            least = earlier(heap[right], heap[left]) ? right : left;
        } else {
            for (std::size_t child = first + 1; child < size; ++child)
                if (earlier(heap[child], heap[least])) least = child;
        }
        if (!earlier(heap[least], node)) break;
        heap[index] = heap[least];
        moved(index, heap[index]);
        index = least;
    }
    heap[index] = node;
    moved(index, node);
}

}  // namespace isvp::heap_moves
