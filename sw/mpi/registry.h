// The handle tables behind MPI's int handles, private to libisvp_mpi.
//
// A handle is (kind << 24) | index: the top byte says what it is (the
// values in mpi.h), the index where it lives. Predefined objects have fixed
// indices; created ones get the next index, never a freed one, so a stale
// handle is reported as invalid instead of silently naming a new object.
// Requests are the exception: programs create millions, so their indices
// are recycled (a stale request handle is the program's error either way).
//
// Plain C++17, no SystemC.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mpi_impl.h"

namespace isvp::mpi {

/// One kind of handle: index -> object (shared so pending requests keep a
/// freed datatype alive, as MPI requires).
template <class T>
class HandleTable {
  public:
    explicit HandleTable(unsigned kind, bool recycle = false) : kind_(kind), recycle_(recycle) {}

    int handle(std::size_t index) const { return static_cast<int>(kind_ << 24 | index); }
    /// Stores `object` at `index` (predefined objects).
    void put(std::size_t index, std::shared_ptr<T> object) {
        if (slots_.size() <= index) slots_.resize(index + 1);
        slots_[index] = std::move(object);
    }
    /// Stores `object` at a new index; returns its handle.
    int add(std::shared_ptr<T> object) {
        std::size_t index;
        if (recycle_ && !free_.empty()) {
            index = free_.back();
            free_.pop_back();
            slots_[index] = std::move(object);
        } else {
            index = slots_.size();
            slots_.push_back(std::move(object));
        }
        return handle(index);
    }
    /// The object of `handle`, or nullptr.
    T* find(int handle) const {
        const std::shared_ptr<T>* slot = slot_of(handle);
        return slot ? slot->get() : nullptr;
    }
    std::shared_ptr<T> shared(int handle) const {
        const std::shared_ptr<T>* slot = slot_of(handle);
        return slot ? *slot : nullptr;
    }
    void remove(int handle) {
        if (!slot_of(handle)) return;
        const std::size_t index = static_cast<unsigned>(handle) & 0xFFFFFFu;
        slots_[index].reset();
        if (recycle_) free_.push_back(index);
    }
    /// Calls `visit(object)` for every object, by index.
    template <class Visit>
    void for_each(Visit visit) const {
        for (const std::shared_ptr<T>& slot : slots_)
            if (slot) visit(*slot);
    }
    /// Drops every object at an index >= `first` (MPI_Finalize).
    void clear_from(std::size_t first) {
        if (slots_.size() > first) slots_.resize(first);
        free_.clear();
    }

  private:
    const std::shared_ptr<T>* slot_of(int handle) const {
        const auto bits = static_cast<unsigned>(handle);
        if (bits >> 24 != kind_) return nullptr;
        const std::size_t index = bits & 0xFFFFFFu;
        if (index >= slots_.size() || !slots_[index]) return nullptr;
        return &slots_[index];
    }

    unsigned kind_;                          ///< top byte of every handle
    bool recycle_;                           ///< reuse freed indices
    std::vector<std::shared_ptr<T>> slots_;  ///< by index
    std::vector<std::size_t> free_;          ///< freed indices (recycle_ only)
};

/// The top bytes of created handles (mpi.h's predefined values share them).
namespace kind {
inline constexpr unsigned kComm = 0x44;
inline constexpr unsigned kGroup = 0x48;
inline constexpr unsigned kDatatype = 0x4c;
inline constexpr unsigned kErrhandler = 0x54;
inline constexpr unsigned kOp = 0x58;
inline constexpr unsigned kInfo = 0x5c;
inline constexpr unsigned kRequest = 0x2c;
inline constexpr unsigned kMessage = 0x70;
inline constexpr unsigned kKeyval = 0x24;
}  // namespace kind

/// A group: global ranks in group-rank order.
struct Group {
    std::vector<int> members;
};

/// An error handler created by MPI_Comm_create_errhandler.
struct Errhandler {
    MPI_Comm_errhandler_function* function = nullptr;
};

/// The kind of object an attribute key is for.
enum class KeyvalObject { Comm, Datatype, Win };

/// An attribute key (MPI_Comm/Type/Win_create_keyval). The callbacks of the
/// three kinds have the same C signature (handles are ints).
struct Keyval {
    MPI_Comm_copy_attr_function* copy = nullptr;
    MPI_Comm_delete_attr_function* destroy = nullptr;
    void* extra_state = nullptr;
    KeyvalObject object = KeyvalObject::Comm;  ///< which objects it may be set on
    /// Datatype and window keys (attributes.cpp): freed by the program but
    /// kept while attributes still use it (MPI 3.1 §6.7.2).
    bool freed = false;
    int references = 0;  ///< attributes set with this key
};

/// An info object: ordered keys and values.
struct Info {
    std::vector<std::pair<std::string, std::string>> entries;
};

/// The tables of objects that are not communication (communicators,
/// datatypes and requests have their own files' tables).
struct Objects {
    HandleTable<Group> groups{kind::kGroup};
    HandleTable<Errhandler> errhandlers{kind::kErrhandler};
    HandleTable<Keyval> keyvals{kind::kKeyval};
    HandleTable<Info> infos{kind::kInfo};
};
Objects& objects();

/// The communicator table (communicators.cpp). MPI_Init registers the world
/// and self communicators; MPI_Finalize drops them all.
HandleTable<Comm>& communicators();
/// Registers a new communicator (errhandler inherited from `parent`,
/// attributes copied by the caller); returns its handle.
MPI_Comm register_comm(guest::Communicator guest, const Comm* parent);

/// Deletes MPI_COMM_SELF's attributes, calling their delete functions: the
/// first thing MPI_Finalize does (MPI 3.1 §8.7.1).
void delete_self_attributes();

/// The datatype table (datatypes.cpp); predefined types at their fixed indices.
HandleTable<Type>& datatypes();

/// Ends this rank now: prints `why` (if not empty) and exits with `code`
/// (1 if code is 0 modulo 256), which the launcher reports and which ends
/// the job. Never returns.
[[noreturn]] void end_rank(int code, const std::string& why);

/// Initialised and not finalised.
bool active();
/// MPI_Finalize has been called.
bool finalized();

/// Empties the p2p engine's queues (MPI_Finalize).
void reset_point_to_point();

}  // namespace isvp::mpi
