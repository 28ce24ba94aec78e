// The switches' tree schedules (collective.placement = switch): every tree
// shape plan_aggregation_tree gives on small fat trees (two and three
// levels, every member set of a small tree, trimmed vertices, groups of one)
// executed by an in-memory executor that delivers messages in random
// orders, against plain C++ references: the members' composition in host
// order (an associative, non-commutative operation: combining out of order
// would change it) and float64 sums bracketed as the tree brackets them,
// bit-identical whatever the arrival order.
#include <catch2/catch.hpp>

#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <random>

#include "isvp/parameters.h"
#include "isvp/switch_tree.h"
#include "isvp/table_routing.h"

using namespace isvp;

namespace {

using Vector = std::vector<std::uint64_t>;
using Combine = std::function<Vector(const Vector&, const Vector&)>;

// f(x) = a x + b, packed as a << 32 | b; (f op g)(x) = f(g(x)): not commutative.
Vector compose(const Vector& f, const Vector& g) {
    Vector out(f.size());
    for (std::size_t i = 0; i < f.size(); ++i) {
        const auto fa = static_cast<std::uint32_t>(f[i] >> 32), fb = static_cast<std::uint32_t>(f[i]);
        const auto ga = static_cast<std::uint32_t>(g[i] >> 32), gb = static_cast<std::uint32_t>(g[i]);
        out[i] = static_cast<std::uint64_t>(fa * ga) << 32 | static_cast<std::uint32_t>(fa * gb + fb);
    }
    return out;
}

double as_double(std::uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}
std::uint64_t as_bits(double d) {
    std::uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return bits;
}
Vector add_doubles(const Vector& a, const Vector& b) {
    Vector out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) out[i] = as_bits(as_double(a[i]) + as_double(b[i]));
    return out;
}

/// Runs every participant's tree schedule; each round a random participant
/// that can move does (sends first, receives from per-(source, destination)
/// FIFOs), so inputs reach a vertex in every order. Fails on a deadlock or a
/// message left over. Returns the participants' buffers by address.
std::map<int, Vector> execute(Opcode collective, const std::map<int, TreeRole>& roles, std::map<int, Vector> buffers,
                              const Combine& combine, std::mt19937_64& random) {
    struct Runner {
        Schedule schedule;
        std::size_t next = 0;
        bool sent = false;
    };
    std::map<int, Runner> runners;
    for (const auto& [address, role] : roles) runners[address].schedule = make_tree_schedule(collective, role);
    std::map<std::pair<int, int>, std::deque<Vector>> mailbox;
    const auto can_move = [&](int address) {
        Runner& r = runners[address];
        if (r.next == r.schedule.steps.size()) return false;
        const Step& step = r.schedule.steps[r.next];
        if (step.send && !r.sent) return true;
        return !step.receive || !mailbox[{step.receive->peer, address}].empty();
    };
    for (;;) {
        std::vector<int> ready;
        for (const auto& entry : runners)
            if (can_move(entry.first)) ready.push_back(entry.first);
        if (ready.empty()) break;
        const int address = ready[random() % ready.size()];
        Runner& r = runners[address];
        const Step& step = r.schedule.steps[r.next];
        if (step.send && !r.sent) {
            REQUIRE(runners.count(step.send->peer) == 1);
            mailbox[{address, step.send->peer}].push_back(buffers[address]);
            r.sent = true;
            continue;  // the receive (if any) in a later round: other orders in between
        }
        if (step.receive) {
            auto& queue = mailbox[{step.receive->peer, address}];
            Vector in = std::move(queue.front());
            queue.pop_front();
            Vector& local = buffers[address];
            if (step.apply == Apply::Copy || local.empty()) local = in;
            if (step.apply == Apply::CombineRight) local = combine(local, in);
            if (step.apply == Apply::CombineLeft) local = combine(in, local);
        }
        r.sent = false;
        ++r.next;
    }
    for (const auto& [address, r] : runners) {
        INFO("participant " << address << " stuck at step " << r.next);
        REQUIRE(r.next == r.schedule.steps.size());
    }
    for (const auto& [route, queue] : mailbox) REQUIRE(queue.empty());
    return buffers;
}

/// The tree's result computed directly: each vertex folds its inputs left to
/// right (the plan's combining order).
Vector reference(const AggregationTree& tree, int vertex, const std::map<int, Vector>& inputs, const Combine& combine) {
    Vector result;
    for (const AggregationInput& input : tree.vertices[static_cast<std::size_t>(vertex)].inputs) {
        const Vector in = input.kind == AggregationInput::Kind::Host
                              ? inputs.at(static_cast<int>(input.index))
                              : reference(tree, static_cast<int>(input.index), inputs, combine);
        result = result.empty() ? in : combine(result, in);
    }
    return result;
}

FatTreeShape fat_tree(unsigned radix, unsigned hosts) {
    FatTreeShape shape;
    shape.radix = radix;
    shape.hosts = hosts;
    return shape;
}

/// Runs the four tree collectives for `members` (tree `tree_index`) and
/// checks each against its reference, twice with different arrival orders.
void check_group(const NetworkTopology& topology, const std::vector<unsigned>& members, unsigned tree_index,
                 std::uint64_t seed) {
    const AggregationTree tree = plan_aggregation_tree(topology, members, tree_index);
    INFO("tree " << tree.describe(topology));
    std::mt19937_64 random(seed);
    std::map<int, Vector> composition, sums;
    for (const unsigned host : members) {
        Vector f(3), d(3);
        for (auto& x : f) x = random();
        // Magnitudes 2^-40 .. 2^40: a different bracketing changes the sum's bits.
        for (auto& x : d)
            x = as_bits(std::ldexp(static_cast<double>(random() % 1000 + 1), static_cast<int>(random() % 81) - 40));
        composition[static_cast<int>(host)] = f;
        sums[static_cast<int>(host)] = d;
    }
    // Plain references: composition in host order; sums as the tree brackets them.
    Vector ordered = composition.at(static_cast<int>(members.front()));
    for (std::size_t i = 1; i < members.size(); ++i)
        ordered = compose(ordered, composition.at(static_cast<int>(members[i])));
    const Vector bracketed = tree.root >= 0 ? reference(tree, tree.root, sums, add_doubles) : sums.begin()->second;

    const auto with_vertices = [&](std::map<int, Vector> hosts, const std::map<int, TreeRole>& roles) {
        for (const auto& [address, role] : roles)
            if (role.vertex) hosts[address] = Vector{};
        return hosts;
    };
    // Allreduce (and Barrier: the same schedule on empty vectors).
    const auto roles = tree_roles(topology, tree);
    for (const auto& [input, combine, expected] :
         {std::tuple<const std::map<int, Vector>*, Combine, const Vector*>{&composition, compose, &ordered},
          std::tuple<const std::map<int, Vector>*, Combine, const Vector*>{&sums, add_doubles, &bracketed}}) {
        std::map<int, Vector> first;
        for (int run = 0; run < 2; ++run) {
            const auto out = execute(Opcode::Allreduce, roles, with_vertices(*input, roles), combine, random);
            for (const unsigned host : members) CHECK(out.at(static_cast<int>(host)) == *expected);
            if (run == 0) first = out;
            for (const unsigned host : members)
                CHECK(out.at(static_cast<int>(host)) == first.at(static_cast<int>(host)));
        }
    }
    std::map<int, Vector> empty;
    for (const unsigned host : members) empty[static_cast<int>(host)] = Vector{};
    execute(Opcode::Barrier, roles, with_vertices(empty, roles), compose, random);
    // Reduce and Bcast at the first, a middle and the last member.
    for (const unsigned root : {members.front(), members[members.size() / 2], members.back()}) {
        const auto rooted = tree_roles(topology, tree, static_cast<int>(root));
        const auto reduced = execute(Opcode::Reduce, rooted, with_vertices(composition, rooted), compose, random);
        CHECK(reduced.at(static_cast<int>(root)) == ordered);
        const auto summed = execute(Opcode::Reduce, rooted, with_vertices(sums, rooted), add_doubles, random);
        CHECK(summed.at(static_cast<int>(root)) == bracketed);
        const auto broadcast = execute(Opcode::Bcast, rooted, with_vertices(composition, rooted), compose, random);
        for (const unsigned host : members)
            CHECK(broadcast.at(static_cast<int>(host)) == composition.at(static_cast<int>(root)));
    }
}

}  // namespace

TEST_CASE("switch tree: every member set of a 2-level radix-4 fat tree, exact and in fixed order", "[switch tree]") {
    const NetworkTopology topology = fat_tree_network(fat_tree(4, 9));  // 3 leaves of 3 hosts, 1 spine
    for (unsigned set = 1; set < (1u << 9); ++set) {
        std::vector<unsigned> members;
        for (unsigned h = 0; h < 9; ++h)
            if (set >> h & 1) members.push_back(h);
        check_group(topology, members, set % 2, set);
    }
}

TEST_CASE("switch tree: groups on 2- and 3-level fat trees of radix 8 and 4", "[switch tree]") {
    std::mt19937_64 random(11);
    for (const auto& [radix, hosts] : {std::pair<unsigned, unsigned>{8, 16}, {8, 32}, {4, 21}, {8, 60}}) {
        const NetworkTopology topology = fat_tree_network(fat_tree(radix, hosts));
        INFO("radix " << radix << " hosts " << hosts);
        std::vector<unsigned> all(hosts);
        for (unsigned h = 0; h < hosts; ++h) all[h] = h;
        for (unsigned tree_index = 0; tree_index < 3; ++tree_index) check_group(topology, all, tree_index, tree_index);
        for (int trial = 0; trial < 40; ++trial) {
            std::vector<unsigned> members;
            const unsigned keep = 1 + static_cast<unsigned>(random() % 4);  // 1/keep of the hosts on average
            for (unsigned h = 0; h < hosts; ++h)
                if (random() % keep == 0) members.push_back(h);
            if (members.empty()) members.push_back(static_cast<unsigned>(random() % hosts));
            check_group(topology, members, static_cast<unsigned>(trial), static_cast<std::uint64_t>(trial));
        }
    }
}

TEST_CASE("switch tree: roles name switch engines above the hosts and refuse a foreign root", "[switch tree]") {
    const NetworkTopology topology = fat_tree_network(fat_tree(8, 16));  // leaves 0..2, spines 3, 4
    const AggregationTree tree = plan_aggregation_tree(topology, {0, 1, 6, 7});
    const auto roles = tree_roles(topology, tree);
    // Hosts 0, 1 on leaf0 (address 16), 6, 7 on leaf1 (17); a spine (19 or 20) is the root.
    CHECK(roles.at(0).parent == 16);
    CHECK(roles.at(6).parent == 17);
    CHECK(roles.at(16).children == std::vector<int>{0, 1});
    CHECK(roles.at(16).parent == roles.at(0).root_vertex);
    CHECK(roles.at(roles.at(0).root_vertex).children == std::vector<int>{16, 17});
    CHECK_THROWS_WITH(tree_roles(topology, tree, 5), Catch::Contains("root host 5 is not a member"));
    CHECK_THROWS_WITH(make_tree_schedule(Opcode::Gather, roles.at(0)), Catch::Contains("gather"));
}

TEST_CASE("switch engines: an extra port per switch, every engine a routed destination", "[switch tree]") {
    for (const auto& [radix, hosts] : {std::pair<unsigned, unsigned>{8, 16}, {4, 21}, {28, 128}}) {
        const NetworkTopology plain = fat_tree_network(fat_tree(radix, hosts));
        const NetworkTopology topology = with_switch_engines(plain);
        INFO(topology.description());
        REQUIRE(topology.hosts() == plain.hosts() + plain.switches());
        for (unsigned h = 0; h < plain.hosts(); ++h) {
            CHECK(topology.host(h).switch_index == plain.host(h).switch_index);
            CHECK(topology.host(h).port == plain.host(h).port);
        }
        for (unsigned s = 0; s < plain.switches(); ++s) {
            CHECK(topology.switch_at(s).ports == plain.switch_at(s).ports + 1);
            const HostPort& engine = topology.host(switch_engine_address(plain, s));
            CHECK(engine.switch_index == s);
            CHECK(engine.port == plain.switch_at(s).ports);
        }
        {
            // updown: spine engines get no route to each other (they never
            // talk); shortest would route spine to spine through a leaf and
            // is refused as cyclic.
            const TableRouting routing(topology, "updown", 1);
            CHECK(check_routes(topology, routing, 1).empty());
            // A host's packets for its leaf's engine take the engine port there.
            const unsigned leaf = plain.host(0).switch_index;
            CHECK(routing.table_port(leaf, switch_engine_address(plain, leaf)) == plain.switch_at(leaf).ports);
        }
    }
}

TEST_CASE("switch engines: refused on a torus, named", "[switch tree]") {
    CHECK_THROWS_WITH(with_switch_engines(torus_network(TorusShape{2, 2, 2})),
                      Catch::Contains("need an indirect network"));
}
