// Attributes on datatypes (MPI 3.1 §6.7.4) and window attribute keys.
//
// Keys of all kinds live in one table (objects().keyvals) and carry the
// kind of object they are for: a datatype key on a communicator, or the
// reverse, is MPI_ERR_KEYVAL. A datatype or window key freed while
// attributes still use it stays alive, marked freed, until the last of
// them is deleted (MPI 3.1 §6.7.2: the actual free happens once no object
// refers to the key): those attributes can still be read and deleted, no
// new one set, and freeing it again in the meantime does nothing, as in
// MPICH. Windows themselves are not supported (docs/MPI.md), so window
// keys can be created and freed but never set.
#include <cstring>

#include "attributes.h"
#include "registry.h"

namespace isvp::mpi {

namespace {

const char* kind_name(KeyvalObject object) {
    switch (object) {
        case KeyvalObject::Comm:
            return "communicator";
        case KeyvalObject::Datatype:
            return "datatype";
        case KeyvalObject::Win:
            return "window";
    }
    return "";
}

int create_keyval(KeyvalObject object, MPI_Comm_copy_attr_function* copy, MPI_Comm_delete_attr_function* destroy,
                  int* keyval, void* extra_state, const char* what) {
    if (keyval == nullptr) fail(MPI_ERR_ARG, std::string(what) + " is NULL");
    auto key = std::make_shared<Keyval>();
    key->copy = copy;
    key->destroy = destroy;
    key->extra_state = extra_state;
    key->object = object;
    *keyval = objects().keyvals.add(key);
    return *keyval;
}

/// The key `keyval` of kind `object`, freed or not; throws MPI_ERR_KEYVAL.
Keyval& find_key(int keyval, KeyvalObject object, const char* what) {
    if (keyval == MPI_KEYVAL_INVALID) fail(MPI_ERR_KEYVAL, std::string(what) + " is MPI_KEYVAL_INVALID");
    Keyval* key = objects().keyvals.find(keyval);
    if (key == nullptr || key->object != object)
        fail(MPI_ERR_KEYVAL,
             std::string(what) + " " + std::to_string(keyval) + " is not a " + kind_name(object) + " attribute key");
    return *key;
}

/// A key that may be used for new attributes (not freed).
Keyval& live_key(int keyval, KeyvalObject object, const char* what) {
    Keyval& key = find_key(keyval, object, what);
    if (key.freed) fail(MPI_ERR_KEYVAL, std::string(what) + " " + std::to_string(keyval) + " has been freed");
    return key;
}

/// One attribute fewer uses `keyval`; a freed key goes when none does.
void release(int keyval) {
    Keyval* key = objects().keyvals.find(keyval);
    if (key == nullptr) return;
    --key->references;
    if (key->freed && key->references <= 0) objects().keyvals.remove(keyval);
}

void free_keyval(int* keyval, KeyvalObject object, const char* what) {
    if (keyval == nullptr) fail(MPI_ERR_ARG, std::string(what) + " is NULL");
    Keyval& key = find_key(*keyval, object, what);
    if (!key.freed) {
        key.freed = true;
        if (key.references <= 0) objects().keyvals.remove(*keyval);
    }
    *keyval = MPI_KEYVAL_INVALID;
}

/// The error of a callback that did not return MPI_SUCCESS (the standard
/// leaves the class open; MPI_ERR_OTHER names it the same everywhere).
[[noreturn]] void callback_failed(const char* which, int keyval, int status) {
    fail(MPI_ERR_OTHER, std::string("the ") + which + " function of keyval " + std::to_string(keyval) + " returned " +
                            std::to_string(status));
}

/// Calls the delete function of `type`'s attribute `keyval` and removes it;
/// on failure the attribute stays (MPICH does the same).
void delete_type_attribute(Type& type, int keyval) {
    const auto it = type.attributes.find(keyval);
    if (it == type.attributes.end()) return;
    const Keyval* key = objects().keyvals.find(keyval);
    if (key != nullptr && key->destroy != nullptr) {
        const int status = key->destroy(type.handle, keyval, it->second, key->extra_state);
        if (status != MPI_SUCCESS) callback_failed("delete", keyval, status);
    }
    type.attributes.erase(it);
    release(keyval);
}

Type& mutable_type(MPI_Datatype datatype) {
    check_datatype(datatype, true);
    return *datatypes().find(datatype);
}

}  // namespace

void copy_type_attributes(const Type& from, Type& to) {
    to.attributes.clear();
    for (const auto& [keyval, value] : from.attributes) {
        Keyval* key = objects().keyvals.find(keyval);
        if (key == nullptr || key->copy == nullptr) continue;
        void* copied = nullptr;
        int flag = 0;
        const int status = key->copy(from.handle, keyval, key->extra_state, value, &copied, &flag);
        if (status != MPI_SUCCESS) {
            // The new type is not made: give back what was copied so far.
            for (const auto& made : to.attributes) release(made.first);
            to.attributes.clear();
            callback_failed("copy", keyval, status);
        }
        if (flag) {
            to.attributes[keyval] = copied;
            ++key->references;
        }
    }
}

void delete_type_attributes(Type& type) {
    while (!type.attributes.empty()) delete_type_attribute(type, type.attributes.begin()->first);
}

}  // namespace isvp::mpi

using namespace isvp::mpi;

extern "C" {

int isvp_mpi_win_null_copy_fn(MPI_Win, int, void*, void*, void*, int* flag) {
    *flag = 0;
    return MPI_SUCCESS;
}
int isvp_mpi_win_dup_fn(MPI_Win, int, void*, void* in, void* out, int* flag) {
    std::memcpy(out, &in, sizeof in);
    *flag = 1;
    return MPI_SUCCESS;
}
int isvp_mpi_win_null_delete_fn(MPI_Win, int, void*, void*) {
    return MPI_SUCCESS;
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* copy, MPI_Type_delete_attr_function* destroy, int* keyval,
                            void* extra_state) {
    return entry("MPI_Type_create_keyval", MPI_COMM_WORLD,
                 [&] { create_keyval(KeyvalObject::Datatype, copy, destroy, keyval, extra_state, "type_keyval"); });
}

int PMPI_Type_free_keyval(int* keyval) {
    return entry("MPI_Type_free_keyval", MPI_COMM_WORLD,
                 [&] { free_keyval(keyval, KeyvalObject::Datatype, "type_keyval"); });
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int keyval, void* attribute_val) {
    return entry("MPI_Type_set_attr", MPI_COMM_WORLD, [&] {
        Type& type = mutable_type(datatype);
        Keyval& key = live_key(keyval, KeyvalObject::Datatype, "type_keyval");
        const auto it = type.attributes.find(keyval);
        if (it != type.attributes.end()) {
            // The old value's delete function runs first; if it fails the old value stays.
            if (key.destroy != nullptr) {
                const int status = key.destroy(datatype, keyval, it->second, key.extra_state);
                if (status != MPI_SUCCESS) callback_failed("delete", keyval, status);
            }
            it->second = attribute_val;
            return;
        }
        type.attributes[keyval] = attribute_val;
        ++key.references;
    });
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int keyval, void* attribute_val, int* flag) {
    return entry("MPI_Type_get_attr", MPI_COMM_WORLD, [&] {
        const Type& type = mutable_type(datatype);
        if (attribute_val == nullptr || flag == nullptr) fail(MPI_ERR_ARG, "attribute_val or flag is NULL");
        find_key(keyval, KeyvalObject::Datatype, "type_keyval");  // a freed key still reads what it set
        const auto it = type.attributes.find(keyval);
        *flag = it != type.attributes.end() ? 1 : 0;
        if (*flag) std::memcpy(attribute_val, &it->second, sizeof it->second);
    });
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int keyval) {
    return entry("MPI_Type_delete_attr", MPI_COMM_WORLD, [&] {
        Type& type = mutable_type(datatype);
        find_key(keyval, KeyvalObject::Datatype, "type_keyval");
        if (type.attributes.count(keyval) == 0)
            fail(MPI_ERR_KEYVAL, "type_keyval " + std::to_string(keyval) + " has no attribute on this datatype");
        delete_type_attribute(type, keyval);
    });
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy, MPI_Win_delete_attr_function* destroy, int* keyval,
                           void* extra_state) {
    return entry("MPI_Win_create_keyval", MPI_COMM_WORLD,
                 [&] { create_keyval(KeyvalObject::Win, copy, destroy, keyval, extra_state, "win_keyval"); });
}

int PMPI_Win_free_keyval(int* keyval) {
    return entry("MPI_Win_free_keyval", MPI_COMM_WORLD, [&] { free_keyval(keyval, KeyvalObject::Win, "win_keyval"); });
}

int PMPI_Win_set_attr(MPI_Win, int, void*) {
    return entry("MPI_Win_set_attr", MPI_COMM_WORLD, [] { unsupported("MPI_Win_set_attr"); });
}

int PMPI_Win_delete_attr(MPI_Win, int) {
    return entry("MPI_Win_delete_attr", MPI_COMM_WORLD, [] { unsupported("MPI_Win_delete_attr"); });
}

}  // extern "C"

ISVP_MPI_ALIAS(Type_create_keyval)
ISVP_MPI_ALIAS(Type_free_keyval)
ISVP_MPI_ALIAS(Type_set_attr)
ISVP_MPI_ALIAS(Type_get_attr)
ISVP_MPI_ALIAS(Type_delete_attr)
ISVP_MPI_ALIAS(Win_create_keyval)
ISVP_MPI_ALIAS(Win_free_keyval)
ISVP_MPI_ALIAS(Win_set_attr)
ISVP_MPI_ALIAS(Win_delete_attr)
