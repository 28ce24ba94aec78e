// Communicators, groups, attributes and info objects.
//
// A communicator is a guest::Communicator (members as global ranks, the
// context ID the switch knows it by) plus MPI's per-communicator state.
// New communicators come from guest::Collectives::dup/split, which agree
// on the ID over the parent and upload the switch's CT row; MPI_Comm_free
// gives the row back at once and the ID once no request uses the
// communicator any more (Collectives::retire).
#include <algorithm>
#include <cstring>

#include "intercomm.h"
#include "registry.h"

namespace isvp::mpi {

HandleTable<Comm>& communicators() {
    static HandleTable<Comm> table(kind::kComm);
    return table;
}

int Comm::comm_rank(int global) const {
    const auto it = std::find(guest.members.begin(), guest.members.end(), global);
    return it == guest.members.end() ? MPI_UNDEFINED : static_cast<int>(it - guest.members.begin());
}

Comm* find_comm(MPI_Comm handle) noexcept {
    return communicators().find(handle);
}

Comm& check_comm(MPI_Comm handle) {
    state();
    if (handle == MPI_COMM_NULL) fail(MPI_ERR_COMM, "communicator is MPI_COMM_NULL");
    Comm* comm = find_comm(handle);
    if (comm == nullptr) fail(MPI_ERR_COMM, "communicator " + std::to_string(handle) + " is not a valid communicator");
    return *comm;
}

void start_collective_sequence(Comm& made, const Comm& parent) {
    // Every member made the same driver exchanges on the parent so far, so
    // its sequence is alike on all of them here; mixed with the ID, it puts
    // this incarnation's tags far from the last one's.
    made.collective_sequence = (parent.guest.sequence + 1) * 0x9E3779B1u ^ made.guest.id * 0x85EBCA6Bu;
}

MPI_Comm register_comm(guest::Communicator guest, const Comm* parent) {
    auto comm = std::make_shared<Comm>();
    comm->guest = std::move(guest);
    if (parent != nullptr) comm->errhandler = parent->errhandler;
    const MPI_Comm handle = communicators().add(comm);
    comm->handle = handle;
    return handle;
}

namespace {

// ---- attributes ----------------------------------------------------------

int tag_ub = static_cast<int>(kMpiTagUpperBound);
int host_value = MPI_PROC_NULL;
int io_value = MPI_ANY_SOURCE;
int wtime_is_global = 1;  // one simulated time base for every rank
int universe_size = 0;
int last_used_code = MPI_ERR_LASTCODE;

/// A predefined attribute's value, or nullptr when `keyval` is not one.
int* predefined_attribute(int keyval) {
    switch (keyval) {
        case MPI_TAG_UB:
            return &tag_ub;
        case MPI_HOST:
            return &host_value;
        case MPI_IO:
            return &io_value;
        case MPI_WTIME_IS_GLOBAL:
            return &wtime_is_global;
        case MPI_UNIVERSE_SIZE:
            universe_size = driver().size();
            return &universe_size;
        case MPI_LASTUSEDCODE:
            return &last_used_code;
        default:
            return nullptr;
    }
}

bool is_predefined_key(int keyval) {
    return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO || keyval == MPI_WTIME_IS_GLOBAL ||
           keyval == MPI_UNIVERSE_SIZE || keyval == MPI_LASTUSEDCODE || keyval == MPI_APPNUM;
}

Keyval& check_keyval(int keyval) {
    Keyval* found = objects().keyvals.find(keyval);
    if (found == nullptr) fail(MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) + " is not an attribute key");
    if (found->object != KeyvalObject::Comm)
        fail(MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) + " is not a communicator attribute key");
    return *found;
}

/// Runs the delete function, then removes the attribute; when the function
/// fails the attribute stays (MPI 3.1 §6.7.2: the call fails, as in MPICH).
void delete_attribute(Comm& comm, int keyval) {
    const auto it = comm.attributes.find(keyval);
    if (it == comm.attributes.end()) return;
    const Keyval* key = objects().keyvals.find(keyval);
    if (key != nullptr && key->destroy != nullptr) {
        const int status = key->destroy(comm.handle, keyval, it->second, key->extra_state);
        if (status != MPI_SUCCESS)
            fail(status,
                 "the delete function of keyval " + std::to_string(keyval) + " returned " + std::to_string(status));
    }
    comm.attributes.erase(keyval);  // by key: the function may have changed the map
    comm.attribute_set_order.erase(keyval);
}

/// Copies `from`'s attributes to `to` through each key's copy function.
void copy_attributes(const Comm& from, Comm& to) {
    for (const auto& [keyval, value] : from.attributes) {
        const Keyval* key = objects().keyvals.find(keyval);
        if (key == nullptr || key->copy == nullptr) continue;
        void* copied = nullptr;
        int flag = 0;
        const int status = key->copy(from.handle, keyval, key->extra_state, value, &copied, &flag);
        if (status != MPI_SUCCESS)
            fail(status,
                 "the copy function of keyval " + std::to_string(keyval) + " returned " + std::to_string(status));
        if (flag) {
            to.attributes[keyval] = copied;
            to.note_attribute_set(keyval);
        }
    }
}

// ---- groups ----------------------------------------------------------------

Group& check_group(MPI_Group handle, const char* what = "group") {
    if (handle == MPI_GROUP_NULL) fail(MPI_ERR_GROUP, std::string(what) + " is MPI_GROUP_NULL");
    Group* group = objects().groups.find(handle);
    if (group == nullptr) fail(MPI_ERR_GROUP, std::string(what) + " " + std::to_string(handle) + " is not a group");
    return *group;
}

MPI_Group make_group(std::vector<int> members) {
    if (members.empty()) return MPI_GROUP_EMPTY;
    auto group = std::make_shared<Group>();
    group->members = std::move(members);
    return objects().groups.add(group);
}

int position(const std::vector<int>& members, int global) {
    const auto it = std::find(members.begin(), members.end(), global);
    return it == members.end() ? MPI_UNDEFINED : static_cast<int>(it - members.begin());
}

/// Group ranks from a rank list (incl/excl): each in range, no repeats.
std::vector<bool> check_rank_list(const Group& group, int n, const int ranks[]) {
    const int size = static_cast<int>(group.members.size());
    if (n < 0 || n > size) fail(MPI_ERR_ARG, "n " + std::to_string(n) + " outside 0.." + std::to_string(size));
    if (n > 0 && ranks == nullptr) fail(MPI_ERR_ARG, "ranks is NULL");
    std::vector<bool> seen(static_cast<std::size_t>(size), false);
    for (int i = 0; i < n; ++i) {
        if (ranks[i] < 0 || ranks[i] >= size)
            fail(MPI_ERR_RANK, "ranks[" + std::to_string(i) + "] = " + std::to_string(ranks[i]) +
                                   " outside the group (size " + std::to_string(size) + ")");
        if (seen[static_cast<std::size_t>(ranks[i])])
            fail(MPI_ERR_RANK, "rank " + std::to_string(ranks[i]) + " appears twice in ranks");
        seen[static_cast<std::size_t>(ranks[i])] = true;
    }
    return seen;
}

/// Expands (first, last, stride) triplets into group ranks.
std::vector<int> expand_ranges(const Group& group, int n, int ranges[][3]) {
    const int size = static_cast<int>(group.members.size());
    if (n < 0) fail(MPI_ERR_ARG, "n " + std::to_string(n) + " is negative");
    if (n > 0 && ranges == nullptr) fail(MPI_ERR_ARG, "ranges is NULL");
    std::vector<int> ranks;
    for (int i = 0; i < n; ++i) {
        const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        const std::string which = "ranges[" + std::to_string(i) + "]";
        if (stride == 0) fail(MPI_ERR_ARG, which + " has stride 0");
        if (first < 0 || first >= size || last < 0 || last >= size)
            fail(MPI_ERR_RANK, which + " = (" + std::to_string(first) + ", " + std::to_string(last) +
                                   ") reaches outside the group (size " + std::to_string(size) + ")");
        if ((stride > 0 && first > last) || (stride < 0 && first < last)) continue;
        for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) ranks.push_back(r);
    }
    return ranks;
}

int compare_members(const std::vector<int>& a, const std::vector<int>& b) {
    if (a == b) return MPI_IDENT;
    if (a.size() != b.size()) return MPI_UNEQUAL;
    std::vector<int> sa = a, sb = b;
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    return sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
}

/// Splits `parent` (collective) and registers the result, or MPI_COMM_NULL.
MPI_Comm split_registered(Comm& parent, int colour, int key) {
    std::optional<guest::Communicator> made =
        collectives().split(parent.guest, colour == MPI_UNDEFINED ? -1 : colour, key);
    if (!made) return MPI_COMM_NULL;
    const MPI_Comm handle = register_comm(std::move(*made), &parent);
    if (!parent.is_inter()) start_collective_sequence(*find_comm(handle), parent);
    return handle;
}

void copy_name(const std::string& name, char* out, int* resultlen, int limit) {
    const std::string text = name.substr(0, static_cast<std::size_t>(limit - 1));
    text.copy(out, text.size());
    out[text.size()] = '\0';
    *resultlen = static_cast<int>(text.size());
}

// ---- info ---------------------------------------------------------------------

Info& check_info(MPI_Info handle) {
    Info* info = objects().infos.find(handle);
    if (info == nullptr) fail(MPI_ERR_INFO, "info " + std::to_string(handle) + " is not an info object");
    return *info;
}

void check_key(const char* key) {
    if (key == nullptr) fail(MPI_ERR_INFO_KEY, "key is NULL");
    const std::size_t length = std::strlen(key);
    if (length == 0 || length > MPI_MAX_INFO_KEY)
        fail(MPI_ERR_INFO_KEY,
             "key of length " + std::to_string(length) + " (1.." + std::to_string(MPI_MAX_INFO_KEY) + " allowed)");
}

}  // namespace

void check_hints(MPI_Info info) {
    if (info != MPI_INFO_NULL) check_info(info);
}

void delete_self_attributes() {
    Comm& self = check_comm(MPI_COMM_SELF);
    // Last set first (MPI 3.1 §8.7.1).
    while (!self.attributes.empty()) {
        int last = self.attributes.rbegin()->first;
        std::uint64_t when = 0;
        for (const auto& [keyval, order] : self.attribute_set_order)
            if (self.attributes.count(keyval) != 0 && order >= when) {
                when = order;
                last = keyval;
            }
        delete_attribute(self, last);
    }
}

}  // namespace isvp::mpi

using namespace isvp::mpi;

extern "C" {

int isvp_mpi_null_copy_fn(MPI_Comm, int, void*, void*, void*, int* flag) {
    *flag = 0;
    return MPI_SUCCESS;
}
int isvp_mpi_dup_fn(MPI_Comm, int, void*, void* in, void* out, int* flag) {
    std::memcpy(out, &in, sizeof in);
    *flag = 1;
    return MPI_SUCCESS;
}
int isvp_mpi_null_delete_fn(MPI_Comm, int, void*, void*) {
    return MPI_SUCCESS;
}
int isvp_mpi_type_null_copy_fn(MPI_Datatype, int, void*, void*, void*, int* flag) {
    *flag = 0;
    return MPI_SUCCESS;
}
int isvp_mpi_type_dup_fn(MPI_Datatype, int, void*, void* in, void* out, int* flag) {
    std::memcpy(out, &in, sizeof in);
    *flag = 1;
    return MPI_SUCCESS;
}
int isvp_mpi_type_null_delete_fn(MPI_Datatype, int, void*, void*) {
    return MPI_SUCCESS;
}

// ---- communicators -----------------------------------------------------------

int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
    return entry("MPI_Comm_rank", comm, [&] {
        Comm& c = check_comm(comm);
        if (rank == nullptr) fail(MPI_ERR_ARG, "rank is NULL");
        *rank = c.rank();
    });
}

int PMPI_Comm_size(MPI_Comm comm, int* size) {
    return entry("MPI_Comm_size", comm, [&] {
        Comm& c = check_comm(comm);
        if (size == nullptr) fail(MPI_ERR_ARG, "size is NULL");
        *size = c.size();
    });
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
    return entry("MPI_Comm_dup", comm, [&] {
        Comm& parent = check_comm(comm);
        if (newcomm == nullptr) fail(MPI_ERR_ARG, "newcomm is NULL");
        const MPI_Comm handle =
            parent.is_inter() ? inter::dup(parent) : register_comm(collectives().dup(parent.guest), &parent);
        Comm& made = *find_comm(handle);
        if (!parent.is_inter()) start_collective_sequence(made, parent);
        made.cartesian = parent.cartesian;  // a duplicate keeps the topology
        made.cart_dims = parent.cart_dims;
        made.cart_periods = parent.cart_periods;
        made.graph = parent.graph;
        copy_attributes(parent, made);
        *newcomm = handle;
    });
}

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info, MPI_Comm* newcomm) {
    return PMPI_Comm_dup(comm, newcomm);
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
    return entry("MPI_Comm_split", comm, [&] {
        Comm& parent = check_comm(comm);
        if (newcomm == nullptr) fail(MPI_ERR_ARG, "newcomm is NULL");
        if (color < 0 && color != MPI_UNDEFINED)
            fail(MPI_ERR_ARG, "color " + std::to_string(color) + " is negative (only MPI_UNDEFINED may be)");
        *newcomm = parent.is_inter() ? inter::split(parent, color, key) : split_registered(parent, color, key);
    });
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info, MPI_Comm* newcomm) {
    return entry("MPI_Comm_split_type", comm, [&] {
        Comm& parent = check_comm(comm);
        unsupported_on_inter(parent, "MPI_Comm_split_type");
        if (newcomm == nullptr) fail(MPI_ERR_ARG, "newcomm is NULL");
        if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
            fail(MPI_ERR_ARG,
                 "split_type " + std::to_string(split_type) + " is not MPI_COMM_TYPE_SHARED or MPI_UNDEFINED");
        // Every rank is its own node: shared memory spans one rank.
        *newcomm = split_registered(parent, split_type == MPI_UNDEFINED ? MPI_UNDEFINED : parent.rank(), key);
    });
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
    return entry("MPI_Comm_create", comm, [&] {
        Comm& parent = check_comm(comm);
        const Group& g = check_group(group);
        if (newcomm == nullptr) fail(MPI_ERR_ARG, "newcomm is NULL");
        for (int global : g.members)
            if (parent.comm_rank(global) == MPI_UNDEFINED)
                fail(MPI_ERR_GROUP, "group member (world rank " + std::to_string(global) + ") is not in the " +
                                        (parent.is_inter() ? "local group of the inter-communicator" : "communicator"));
        if (parent.is_inter()) {
            *newcomm = inter::create(parent, g.members);
            return;
        }
        const int mine = position(g.members, parent.global_rank(parent.rank()));
        // MPI 2.2+: members may pass different groups if they are disjoint;
        // each group's lowest world rank tells them apart.
        const int colour =
            mine == MPI_UNDEFINED ? MPI_UNDEFINED : *std::min_element(g.members.begin(), g.members.end());
        *newcomm = split_registered(parent, colour, mine);
    });
}

int PMPI_Comm_free(MPI_Comm* comm) {
    return entry("MPI_Comm_free", comm != nullptr ? *comm : MPI_COMM_NULL, [&] {
        if (comm == nullptr) fail(MPI_ERR_ARG, "comm is NULL");
        Comm& c = check_comm(*comm);
        if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) fail(MPI_ERR_COMM, std::string("cannot free ") + c.name);
        while (!c.attributes.empty()) delete_attribute(c, c.attributes.begin()->first);
        if (c.is_inter()) inter::free_local(c);
        // MPI 3.1 6.4.3: pending operations on it complete normally. Requests
        // and schedules hold the Comm; its members and ID stay until they end.
        collectives().retire(c.guest, communicators().shared(*comm));
        communicators().remove(*comm);
        *comm = MPI_COMM_NULL;
    });
}

int PMPI_Comm_disconnect(MPI_Comm* comm) {
    return PMPI_Comm_free(comm);
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
    return entry("MPI_Comm_compare", comm1, [&] {
        const Comm& a = check_comm(comm1);
        const Comm& b = check_comm(comm2);
        if (result == nullptr) fail(MPI_ERR_ARG, "result is NULL");
        if (comm1 != comm2 && (a.is_inter() || b.is_inter())) {
            *result = inter::compare(a, b);
            return;
        }
        const int members = compare_members(a.guest.members, b.guest.members);
        *result = comm1 == comm2 ? MPI_IDENT : members == MPI_IDENT ? MPI_CONGRUENT : members;
    });
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
    return entry("MPI_Comm_group", comm, [&] {
        const Comm& c = check_comm(comm);
        if (group == nullptr) fail(MPI_ERR_ARG, "group is NULL");
        *group = make_group(c.guest.members);
    });
}

int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
    return entry("MPI_Comm_test_inter", comm, [&] {
        const Comm& c = check_comm(comm);
        if (flag == nullptr) fail(MPI_ERR_ARG, "flag is NULL");
        *flag = c.is_inter() ? 1 : 0;
    });
}

int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
    return entry("MPI_Comm_remote_size", comm, [&] {
        const Comm& c = check_comm(comm);
        if (!c.is_inter()) fail(MPI_ERR_COMM, "comm is an intra-communicator (it has no remote group)");
        if (size == nullptr) fail(MPI_ERR_ARG, "size is NULL");
        *size = c.peer_size();
    });
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
    return entry("MPI_Comm_remote_group", comm, [&] {
        const Comm& c = check_comm(comm);
        if (!c.is_inter()) fail(MPI_ERR_COMM, "comm is an intra-communicator (it has no remote group)");
        if (group == nullptr) fail(MPI_ERR_ARG, "group is NULL");
        *group = make_group(c.remote);
    });
}

int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
    return entry("MPI_Comm_set_name", comm, [&] {
        Comm& c = check_comm(comm);
        if (comm_name == nullptr) fail(MPI_ERR_ARG, "comm_name is NULL");
        c.name = std::string(comm_name).substr(0, MPI_MAX_OBJECT_NAME - 1);
    });
}

int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
    return entry("MPI_Comm_get_name", comm, [&] {
        const Comm& c = check_comm(comm);
        if (comm_name == nullptr || resultlen == nullptr) fail(MPI_ERR_ARG, "comm_name or resultlen is NULL");
        copy_name(c.name, comm_name, resultlen, MPI_MAX_OBJECT_NAME);
    });
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info) {
    return entry("MPI_Comm_set_info", comm, [&] { check_comm(comm); });
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
    return entry("MPI_Comm_get_info", comm, [&] {
        check_comm(comm);
        if (info_used == nullptr) fail(MPI_ERR_ARG, "info_used is NULL");
        *info_used = objects().infos.add(std::make_shared<Info>());
    });
}

int PMPI_Comm_get_parent(MPI_Comm* parent) {
    return entry("MPI_Comm_get_parent", MPI_COMM_WORLD, [&] {
        state();
        if (parent == nullptr) fail(MPI_ERR_ARG, "parent is NULL");
        *parent = MPI_COMM_NULL;  // never spawned
    });
}

// ---- attributes ------------------------------------------------------------------

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* destroy, int* keyval,
                            void* extra_state) {
    return entry("MPI_Comm_create_keyval", MPI_COMM_WORLD, [&] {
        if (keyval == nullptr) fail(MPI_ERR_ARG, "comm_keyval is NULL");
        auto key = std::make_shared<Keyval>();
        key->copy = copy;
        key->destroy = destroy;
        key->extra_state = extra_state;
        *keyval = objects().keyvals.add(key);
    });
}

int PMPI_Keyval_create(MPI_Copy_function* copy, MPI_Delete_function* destroy, int* keyval, void* extra_state) {
    return PMPI_Comm_create_keyval(copy, destroy, keyval, extra_state);
}

int PMPI_Comm_free_keyval(int* keyval) {
    return entry("MPI_Comm_free_keyval", MPI_COMM_WORLD, [&] {
        if (keyval == nullptr) fail(MPI_ERR_ARG, "comm_keyval is NULL");
        if (is_predefined_key(*keyval)) fail(MPI_ERR_KEYVAL, "a predefined attribute key cannot be freed");
        check_keyval(*keyval);
        // Attributes already set keep their delete function until deleted.
        *keyval = MPI_KEYVAL_INVALID;
    });
}

int PMPI_Keyval_free(int* keyval) {
    return PMPI_Comm_free_keyval(keyval);
}

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void* attribute_val) {
    return entry("MPI_Comm_set_attr", comm, [&] {
        Comm& c = check_comm(comm);
        if (is_predefined_key(keyval)) fail(MPI_ERR_KEYVAL, "predefined attributes are read-only");
        check_keyval(keyval);
        delete_attribute(c, keyval);
        c.attributes[keyval] = attribute_val;
        c.note_attribute_set(keyval);
    });
}

int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
    return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
    return entry("MPI_Comm_get_attr", comm, [&] {
        const Comm& c = check_comm(comm);
        if (attribute_val == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "attribute_val or flag is NULL");
        *flag = 0;
        if (is_predefined_key(keyval)) {
            int* value = predefined_attribute(keyval);
            if (value == nullptr) return;  // MPI_APPNUM: not set
            std::memcpy(attribute_val, &value, sizeof value);
            *flag = 1;
            return;
        }
        check_keyval(keyval);
        const auto it = c.attributes.find(keyval);
        if (it == c.attributes.end()) return;
        std::memcpy(attribute_val, &it->second, sizeof it->second);
        *flag = 1;
    });
}

int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
    return entry("MPI_Comm_delete_attr", comm, [&] {
        Comm& c = check_comm(comm);
        if (is_predefined_key(keyval)) fail(MPI_ERR_KEYVAL, "predefined attributes cannot be deleted");
        check_keyval(keyval);
        if (c.attributes.count(keyval) == 0)
            fail(MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) + " has no attribute on this communicator");
        delete_attribute(c, keyval);
    });
}

int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
    return PMPI_Comm_delete_attr(comm, keyval);
}

// ---- groups ------------------------------------------------------------------------

int PMPI_Group_size(MPI_Group group, int* size) {
    return entry("MPI_Group_size", MPI_COMM_WORLD, [&] {
        const Group& g = check_group(group);
        if (size == nullptr) fail(MPI_ERR_ARG, "size is NULL");
        *size = static_cast<int>(g.members.size());
    });
}

int PMPI_Group_rank(MPI_Group group, int* rank) {
    return entry("MPI_Group_rank", MPI_COMM_WORLD, [&] {
        const Group& g = check_group(group);
        if (rank == nullptr) fail(MPI_ERR_ARG, "rank is NULL");
        *rank = position(g.members, driver().rank());
    });
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
    return entry("MPI_Group_translate_ranks", MPI_COMM_WORLD, [&] {
        const Group& a = check_group(group1, "group1");
        const Group& b = check_group(group2, "group2");
        if (n < 0) fail(MPI_ERR_ARG, "n " + std::to_string(n) + " is negative");
        if (n > 0 && (ranks1 == nullptr || ranks2 == nullptr)) fail(MPI_ERR_ARG, "ranks1 or ranks2 is NULL");
        const int size = static_cast<int>(a.members.size());
        for (int i = 0; i < n; ++i) {
            if (ranks1[i] == MPI_PROC_NULL) continue;
            if (ranks1[i] < 0 || ranks1[i] >= size)
                fail(MPI_ERR_RANK, "ranks1[" + std::to_string(i) + "] = " + std::to_string(ranks1[i]) +
                                       " outside group1 (size " + std::to_string(size) + ")");
        }
        for (int i = 0; i < n; ++i)
            ranks2[i] = ranks1[i] == MPI_PROC_NULL
                            ? MPI_PROC_NULL
                            : position(b.members, a.members[static_cast<std::size_t>(ranks1[i])]);
    });
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
    return entry("MPI_Group_compare", MPI_COMM_WORLD, [&] {
        const Group& a = check_group(group1, "group1");
        const Group& b = check_group(group2, "group2");
        if (result == nullptr) fail(MPI_ERR_ARG, "result is NULL");
        *result = compare_members(a.members, b.members);
    });
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
    return entry("MPI_Group_incl", MPI_COMM_WORLD, [&] {
        const Group& g = check_group(group);
        if (newgroup == nullptr) fail(MPI_ERR_ARG, "newgroup is NULL");
        check_rank_list(g, n, ranks);
        std::vector<int> members;
        for (int i = 0; i < n; ++i) members.push_back(g.members[static_cast<std::size_t>(ranks[i])]);
        *newgroup = make_group(std::move(members));
    });
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
    return entry("MPI_Group_excl", MPI_COMM_WORLD, [&] {
        const Group& g = check_group(group);
        if (newgroup == nullptr) fail(MPI_ERR_ARG, "newgroup is NULL");
        const std::vector<bool> excluded = check_rank_list(g, n, ranks);
        std::vector<int> members;
        for (std::size_t r = 0; r < g.members.size(); ++r)
            if (!excluded[r]) members.push_back(g.members[r]);
        *newgroup = make_group(std::move(members));
    });
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
    return entry("MPI_Group_range_incl", MPI_COMM_WORLD, [&] {
        const Group& g = check_group(group);
        if (newgroup == nullptr) fail(MPI_ERR_ARG, "newgroup is NULL");
        const std::vector<int> ranks = expand_ranges(g, n, ranges);
        check_rank_list(g, static_cast<int>(ranks.size()), ranks.data());
        std::vector<int> members;
        for (int r : ranks) members.push_back(g.members[static_cast<std::size_t>(r)]);
        *newgroup = make_group(std::move(members));
    });
}

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
    return entry("MPI_Group_range_excl", MPI_COMM_WORLD, [&] {
        const Group& g = check_group(group);
        if (newgroup == nullptr) fail(MPI_ERR_ARG, "newgroup is NULL");
        const std::vector<int> ranks = expand_ranges(g, n, ranges);
        const std::vector<bool> excluded = check_rank_list(g, static_cast<int>(ranks.size()), ranks.data());
        std::vector<int> members;
        for (std::size_t r = 0; r < g.members.size(); ++r)
            if (!excluded[r]) members.push_back(g.members[r]);
        *newgroup = make_group(std::move(members));
    });
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    return entry("MPI_Group_union", MPI_COMM_WORLD, [&] {
        const Group& a = check_group(group1, "group1");
        const Group& b = check_group(group2, "group2");
        if (newgroup == nullptr) fail(MPI_ERR_ARG, "newgroup is NULL");
        std::vector<int> members = a.members;
        for (int global : b.members)
            if (position(a.members, global) == MPI_UNDEFINED) members.push_back(global);
        *newgroup = make_group(std::move(members));
    });
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    return entry("MPI_Group_intersection", MPI_COMM_WORLD, [&] {
        const Group& a = check_group(group1, "group1");
        const Group& b = check_group(group2, "group2");
        if (newgroup == nullptr) fail(MPI_ERR_ARG, "newgroup is NULL");
        std::vector<int> members;
        for (int global : a.members)
            if (position(b.members, global) != MPI_UNDEFINED) members.push_back(global);
        *newgroup = make_group(std::move(members));
    });
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    return entry("MPI_Group_difference", MPI_COMM_WORLD, [&] {
        const Group& a = check_group(group1, "group1");
        const Group& b = check_group(group2, "group2");
        if (newgroup == nullptr) fail(MPI_ERR_ARG, "newgroup is NULL");
        std::vector<int> members;
        for (int global : a.members)
            if (position(b.members, global) == MPI_UNDEFINED) members.push_back(global);
        *newgroup = make_group(std::move(members));
    });
}

int PMPI_Group_free(MPI_Group* group) {
    return entry("MPI_Group_free", MPI_COMM_WORLD, [&] {
        if (group == nullptr) fail(MPI_ERR_ARG, "group is NULL");
        check_group(*group);
        if (*group != MPI_GROUP_EMPTY) objects().groups.remove(*group);
        *group = MPI_GROUP_NULL;
    });
}

// ---- info --------------------------------------------------------------------------

int PMPI_Info_create(MPI_Info* info) {
    return entry("MPI_Info_create", MPI_COMM_WORLD, [&] {
        if (info == nullptr) fail(MPI_ERR_ARG, "info is NULL");
        *info = objects().infos.add(std::make_shared<Info>());
    });
}

int PMPI_Info_free(MPI_Info* info) {
    return entry("MPI_Info_free", MPI_COMM_WORLD, [&] {
        if (info == nullptr) fail(MPI_ERR_ARG, "info is NULL");
        check_info(*info);
        if (*info == MPI_INFO_ENV) fail(MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
        objects().infos.remove(*info);
        *info = MPI_INFO_NULL;
    });
}

int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
    return entry("MPI_Info_dup", MPI_COMM_WORLD, [&] {
        const Info& from = check_info(info);
        if (newinfo == nullptr) fail(MPI_ERR_ARG, "newinfo is NULL");
        *newinfo = objects().infos.add(std::make_shared<Info>(from));
    });
}

int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
    return entry("MPI_Info_set", MPI_COMM_WORLD, [&] {
        Info& target = check_info(info);
        check_key(key);
        if (value == nullptr) fail(MPI_ERR_INFO_VALUE, "value is NULL");
        if (std::strlen(value) > MPI_MAX_INFO_VAL) fail(MPI_ERR_INFO_VALUE, "value longer than MPI_MAX_INFO_VAL");
        for (auto& entry_pair : target.entries)
            if (entry_pair.first == key) {
                entry_pair.second = value;
                return;
            }
        target.entries.emplace_back(key, value);
    });
}

int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
    return entry("MPI_Info_get", MPI_COMM_WORLD, [&] {
        const Info& target = check_info(info);
        check_key(key);
        if (flag == nullptr || (valuelen > 0 && value == nullptr)) fail(MPI_ERR_ARG, "value or flag is NULL");
        *flag = 0;
        for (const auto& [name, text] : target.entries)
            if (name == key) {
                const std::size_t length = std::min<std::size_t>(text.size(), static_cast<std::size_t>(valuelen));
                text.copy(value, length);
                value[length] = '\0';
                *flag = 1;
                return;
            }
    });
}

int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
    return entry("MPI_Info_get_valuelen", MPI_COMM_WORLD, [&] {
        const Info& target = check_info(info);
        check_key(key);
        if (valuelen == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "valuelen or flag is NULL");
        *flag = 0;
        for (const auto& [name, text] : target.entries)
            if (name == key) {
                *valuelen = static_cast<int>(text.size());
                *flag = 1;
            }
    });
}

int PMPI_Info_delete(MPI_Info info, const char* key) {
    return entry("MPI_Info_delete", MPI_COMM_WORLD, [&] {
        Info& target = check_info(info);
        check_key(key);
        for (auto it = target.entries.begin(); it != target.entries.end(); ++it)
            if (it->first == key) {
                target.entries.erase(it);
                return;
            }
        fail(MPI_ERR_INFO_NOKEY, std::string("key '") + key + "' is not set");
    });
}

int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
    return entry("MPI_Info_get_nkeys", MPI_COMM_WORLD, [&] {
        const Info& target = check_info(info);
        if (nkeys == nullptr) fail(MPI_ERR_ARG, "nkeys is NULL");
        *nkeys = static_cast<int>(target.entries.size());
    });
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
    return entry("MPI_Info_get_nthkey", MPI_COMM_WORLD, [&] {
        const Info& target = check_info(info);
        if (key == nullptr) fail(MPI_ERR_ARG, "key is NULL");
        if (n < 0 || n >= static_cast<int>(target.entries.size()))
            fail(MPI_ERR_ARG,
                 "n " + std::to_string(n) + " outside 0.." + std::to_string(target.entries.size()) + " - 1");
        const std::string& name = target.entries[static_cast<std::size_t>(n)].first;
        name.copy(key, name.size());
        key[name.size()] = '\0';
    });
}

}  // extern "C"

ISVP_MPI_ALIAS(Comm_rank)
ISVP_MPI_ALIAS(Comm_size)
ISVP_MPI_ALIAS(Comm_dup)
ISVP_MPI_ALIAS(Comm_dup_with_info)
ISVP_MPI_ALIAS(Comm_split)
ISVP_MPI_ALIAS(Comm_split_type)
ISVP_MPI_ALIAS(Comm_create)
ISVP_MPI_ALIAS(Comm_free)
ISVP_MPI_ALIAS(Comm_disconnect)
ISVP_MPI_ALIAS(Comm_compare)
ISVP_MPI_ALIAS(Comm_group)
ISVP_MPI_ALIAS(Comm_test_inter)
ISVP_MPI_ALIAS(Comm_remote_size)
ISVP_MPI_ALIAS(Comm_remote_group)
ISVP_MPI_ALIAS(Comm_set_name)
ISVP_MPI_ALIAS(Comm_get_name)
ISVP_MPI_ALIAS(Comm_set_info)
ISVP_MPI_ALIAS(Comm_get_info)
ISVP_MPI_ALIAS(Comm_get_parent)
ISVP_MPI_ALIAS(Comm_create_keyval)
ISVP_MPI_ALIAS(Keyval_create)
ISVP_MPI_ALIAS(Comm_free_keyval)
ISVP_MPI_ALIAS(Keyval_free)
ISVP_MPI_ALIAS(Comm_set_attr)
ISVP_MPI_ALIAS(Attr_put)
ISVP_MPI_ALIAS(Comm_get_attr)
ISVP_MPI_ALIAS(Attr_get)
ISVP_MPI_ALIAS(Comm_delete_attr)
ISVP_MPI_ALIAS(Attr_delete)
ISVP_MPI_ALIAS(Group_size)
ISVP_MPI_ALIAS(Group_rank)
ISVP_MPI_ALIAS(Group_translate_ranks)
ISVP_MPI_ALIAS(Group_compare)
ISVP_MPI_ALIAS(Group_incl)
ISVP_MPI_ALIAS(Group_excl)
ISVP_MPI_ALIAS(Group_range_incl)
ISVP_MPI_ALIAS(Group_range_excl)
ISVP_MPI_ALIAS(Group_union)
ISVP_MPI_ALIAS(Group_intersection)
ISVP_MPI_ALIAS(Group_difference)
ISVP_MPI_ALIAS(Group_free)
ISVP_MPI_ALIAS(Info_create)
ISVP_MPI_ALIAS(Info_free)
ISVP_MPI_ALIAS(Info_dup)
ISVP_MPI_ALIAS(Info_set)
ISVP_MPI_ALIAS(Info_get)
ISVP_MPI_ALIAS(Info_get_valuelen)
ISVP_MPI_ALIAS(Info_delete)
ISVP_MPI_ALIAS(Info_get_nkeys)
ISVP_MPI_ALIAS(Info_get_nthkey)
