// The error path: MPI_ERR_* classes, error handlers, and how a failed call
// is reported (through the communicator's handler; fatal by default).
#include <cstdio>
#include <iostream>
#include <new>

#include <unistd.h>

#include "registry.h"

namespace isvp::mpi {

namespace {

struct ClassInfo {
    int code;
    const char* name;
    const char* text;
};

const ClassInfo kClasses[] = {
    {MPI_SUCCESS, "MPI_SUCCESS", "no error"},
    {MPI_ERR_BUFFER, "MPI_ERR_BUFFER", "invalid buffer pointer"},
    {MPI_ERR_COUNT, "MPI_ERR_COUNT", "invalid count argument"},
    {MPI_ERR_TYPE, "MPI_ERR_TYPE", "invalid datatype"},
    {MPI_ERR_TAG, "MPI_ERR_TAG", "invalid tag"},
    {MPI_ERR_COMM, "MPI_ERR_COMM", "invalid communicator"},
    {MPI_ERR_RANK, "MPI_ERR_RANK", "invalid rank"},
    {MPI_ERR_ROOT, "MPI_ERR_ROOT", "invalid root"},
    {MPI_ERR_GROUP, "MPI_ERR_GROUP", "invalid group"},
    {MPI_ERR_OP, "MPI_ERR_OP", "invalid reduce operation"},
    {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY", "invalid communicator topology"},
    {MPI_ERR_DIMS, "MPI_ERR_DIMS", "invalid dimension argument"},
    {MPI_ERR_ARG, "MPI_ERR_ARG", "invalid argument"},
    {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN", "unknown error"},
    {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE", "message truncated on receive"},
    {MPI_ERR_OTHER, "MPI_ERR_OTHER", "other error"},
    {MPI_ERR_INTERN, "MPI_ERR_INTERN", "internal error"},
    {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS", "error code is in status"},
    {MPI_ERR_PENDING, "MPI_ERR_PENDING", "pending request"},
    {MPI_ERR_REQUEST, "MPI_ERR_REQUEST", "invalid request"},
    {MPI_ERR_ACCESS, "MPI_ERR_ACCESS", "permission denied"},
    {MPI_ERR_AMODE, "MPI_ERR_AMODE", "invalid access mode"},
    {MPI_ERR_BAD_FILE, "MPI_ERR_BAD_FILE", "invalid file name"},
    {MPI_ERR_CONVERSION, "MPI_ERR_CONVERSION", "data conversion error"},
    {MPI_ERR_DUP_DATAREP, "MPI_ERR_DUP_DATAREP", "duplicate data representation"},
    {MPI_ERR_FILE_EXISTS, "MPI_ERR_FILE_EXISTS", "file exists"},
    {MPI_ERR_FILE_IN_USE, "MPI_ERR_FILE_IN_USE", "file in use"},
    {MPI_ERR_FILE, "MPI_ERR_FILE", "invalid file handle"},
    {MPI_ERR_INFO, "MPI_ERR_INFO", "invalid info object"},
    {MPI_ERR_INFO_KEY, "MPI_ERR_INFO_KEY", "info key too long"},
    {MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE", "info value too long"},
    {MPI_ERR_INFO_NOKEY, "MPI_ERR_INFO_NOKEY", "no such info key"},
    {MPI_ERR_IO, "MPI_ERR_IO", "I/O error"},
    {MPI_ERR_NAME, "MPI_ERR_NAME", "invalid service name"},
    {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM", "out of memory"},
    {MPI_ERR_NOT_SAME, "MPI_ERR_NOT_SAME", "arguments differ between processes"},
    {MPI_ERR_NO_SPACE, "MPI_ERR_NO_SPACE", "not enough space"},
    {MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE", "no such file"},
    {MPI_ERR_PORT, "MPI_ERR_PORT", "invalid port name"},
    {MPI_ERR_QUOTA, "MPI_ERR_QUOTA", "quota exceeded"},
    {MPI_ERR_READ_ONLY, "MPI_ERR_READ_ONLY", "read-only file or file system"},
    {MPI_ERR_SERVICE, "MPI_ERR_SERVICE", "invalid service"},
    {MPI_ERR_SPAWN, "MPI_ERR_SPAWN", "could not spawn processes"},
    {MPI_ERR_UNSUPPORTED_DATAREP, "MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION", "operation not supported"},
    {MPI_ERR_WIN, "MPI_ERR_WIN", "invalid window"},
    {MPI_ERR_BASE, "MPI_ERR_BASE", "invalid base address"},
    {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE", "invalid lock type"},
    {MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL", "invalid attribute key"},
    {MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT", "conflicting accesses to a window"},
    {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC", "wrong synchronisation of RMA calls"},
    {MPI_ERR_SIZE, "MPI_ERR_SIZE", "invalid size"},
    {MPI_ERR_DISP, "MPI_ERR_DISP", "invalid displacement"},
    {MPI_ERR_ASSERT, "MPI_ERR_ASSERT", "invalid assert argument"},
    {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE", "target memory outside the window"},
    {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    {MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR", "wrong window flavour"},
};

const ClassInfo* class_info(int code) {
    for (const ClassInfo& info : kClasses)
        if (info.code == code) return &info;
    return nullptr;
}

/// The latest detailed message per error class, for MPI_Error_string.
std::map<int, std::string>& last_messages() {
    static std::map<int, std::string> messages;
    return messages;
}

bool valid_errhandler(MPI_Errhandler handler) {
    return handler == MPI_ERRORS_ARE_FATAL || handler == MPI_ERRORS_RETURN ||
           objects().errhandlers.find(handler) != nullptr;
}

}  // namespace

void fail(int error_class, const std::string& message) {
    throw Error(error_class, message);
}

void unsupported(const char*) {
    fail(MPI_ERR_UNSUPPORTED_OPERATION, "not supported by the isvp MPI shim (docs/MPI.md lists what is)");
}

void end_rank(int code, const std::string& why) {
    std::cout.flush();
    std::fflush(stdout);
    if (!why.empty()) std::fprintf(stderr, "%s\n", why.c_str());
    std::fflush(stderr);
    _exit(code % 256 == 0 ? 1 : code % 256);
}

int raise_with(MPI_Errhandler handler, int error_class, const char* function, const std::string& message,
               const Comm* target) {
    last_messages()[error_class] = std::string(function) + ": " + message;
    if (handler == MPI_ERRORS_RETURN) return error_class;
    const ClassInfo* info = class_info(error_class);
    std::string where = finalized() ? "after MPI_Finalize" : "before MPI_Init";
    if (active() && target != nullptr)
        where = "on rank " + std::to_string(driver().rank()) + " (" +
                (target->name.empty() ? "a communicator" : target->name) + ")";
    end_rank(error_class, std::string(function) + ": " + message + "\n" + function + ": " +
                              (info != nullptr ? info->name : "error") + " " + where +
                              " with MPI_ERRORS_ARE_FATAL: ending the job");
    return error_class;  // not reached: end_rank ends the process
}

int raise(MPI_Comm comm, int error_class, const char* function, const std::string& message) {
    Comm* target = find_comm(comm);
    if (target == nullptr) target = find_comm(MPI_COMM_WORLD);
    const MPI_Errhandler handler = target != nullptr ? target->errhandler : MPI_ERRORS_ARE_FATAL;
    if (handler != MPI_ERRORS_RETURN && handler != MPI_ERRORS_ARE_FATAL) {
        if (Errhandler* user = objects().errhandlers.find(handler); user != nullptr && user->function != nullptr) {
            last_messages()[error_class] = std::string(function) + ": " + message;
            MPI_Comm handle = target->handle;
            int code = error_class;
            user->function(&handle, &code);
            return error_class;
        }
    }
    return raise_with(handler, error_class, function, message, target);
}

int raise_current_exception(const char* function, MPI_Comm comm) noexcept {
    try {
        throw;
    } catch (const Error& error) {
        return raise(comm, error.error_class(), function, error.what());
    } catch (const guest::TransportError& error) {
        end_rank(1, std::string(function) + ": the job is ending: " + error.what());
    } catch (const guest::DriverError& error) {
        return raise(comm, MPI_ERR_OTHER, function, error.what());
    } catch (const std::bad_alloc&) {
        return raise(comm, MPI_ERR_NO_MEM, function, "out of memory");
    } catch (const std::exception& error) {
        return raise(comm, MPI_ERR_INTERN, function, error.what());
    } catch (...) {
        return raise(comm, MPI_ERR_INTERN, function, "unknown exception");
    }
}

Objects& objects() {
    static Objects tables = [] {
        Objects made;
        made.groups.put(0, std::make_shared<Group>());            // MPI_GROUP_EMPTY
        made.errhandlers.put(0, std::make_shared<Errhandler>());  // MPI_ERRORS_ARE_FATAL
        made.errhandlers.put(1, std::make_shared<Errhandler>());  // MPI_ERRORS_RETURN
        made.keyvals.put(0, nullptr);                             // MPI_KEYVAL_INVALID
        made.infos.put(0, nullptr);
        made.infos.put(1, std::make_shared<Info>());  // MPI_INFO_ENV
        return made;
    }();
    return tables;
}

}  // namespace isvp::mpi

using namespace isvp::mpi;

extern "C" {

int PMPI_Error_class(int errorcode, int* errorclass) {
    return entry("MPI_Error_class", MPI_COMM_WORLD, [&] {
        if (errorclass == nullptr) fail(MPI_ERR_ARG, "errorclass is NULL");
        if (class_info(errorcode) == nullptr)
            fail(MPI_ERR_ARG, "error code " + std::to_string(errorcode) + " is not an MPI error code");
        *errorclass = errorcode;
    });
}

int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
    return entry("MPI_Error_string", MPI_COMM_WORLD, [&] {
        if (string == nullptr || resultlen == nullptr) fail(MPI_ERR_ARG, "string or resultlen is NULL");
        const ClassInfo* info = class_info(errorcode);
        if (info == nullptr) fail(MPI_ERR_ARG, "error code " + std::to_string(errorcode) + " is not an MPI error code");
        std::string text = std::string(info->name) + ": " + info->text;
        const auto last = last_messages().find(errorcode);
        if (last != last_messages().end()) text += " (last: " + last->second + ")";
        text = text.substr(0, MPI_MAX_ERROR_STRING - 1);
        text.copy(string, text.size());
        string[text.size()] = '\0';
        *resultlen = static_cast<int>(text.size());
    });
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler) {
    return entry("MPI_Comm_create_errhandler", MPI_COMM_WORLD, [&] {
        if (function == nullptr || errhandler == nullptr) fail(MPI_ERR_ARG, "function or errhandler is NULL");
        auto handler = std::make_shared<Errhandler>();
        handler->function = function;
        *errhandler = objects().errhandlers.add(handler);
    });
}

int PMPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
    return PMPI_Comm_create_errhandler(function, errhandler);
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
    return entry("MPI_Comm_set_errhandler", comm, [&] {
        Comm& target = check_comm(comm);
        if (!valid_errhandler(errhandler))
            fail(MPI_ERR_ARG, "errhandler " + std::to_string(errhandler) + " is not an error handler");
        target.errhandler = errhandler;
    });
}

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
    return PMPI_Comm_set_errhandler(comm, errhandler);
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
    return entry("MPI_Comm_get_errhandler", comm, [&] {
        Comm& target = check_comm(comm);
        if (errhandler == nullptr) fail(MPI_ERR_ARG, "errhandler is NULL");
        *errhandler = target.errhandler;
    });
}

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
    return PMPI_Comm_get_errhandler(comm, errhandler);
}

int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
    return entry("MPI_Errhandler_free", MPI_COMM_WORLD, [&] {
        if (errhandler == nullptr || !valid_errhandler(*errhandler))
            fail(MPI_ERR_ARG, "errhandler is not an error handler");
        // Communicators using it keep it (the handle stays valid for them).
        *errhandler = MPI_ERRHANDLER_NULL;
    });
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
    const int status = entry("MPI_Comm_call_errhandler", comm, [&] { check_comm(comm); });
    if (status != MPI_SUCCESS) return status;
    raise(comm, errorcode, "MPI_Comm_call_errhandler", "error raised by the program");
    return MPI_SUCCESS;
}

int PMPI_Add_error_class(int*) {
    return entry("MPI_Add_error_class", MPI_COMM_WORLD, [] { unsupported("MPI_Add_error_class"); });
}
int PMPI_Add_error_code(int, int*) {
    return entry("MPI_Add_error_code", MPI_COMM_WORLD, [] { unsupported("MPI_Add_error_code"); });
}
int PMPI_Add_error_string(int, const char*) {
    return entry("MPI_Add_error_string", MPI_COMM_WORLD, [] { unsupported("MPI_Add_error_string"); });
}

}  // extern "C"

ISVP_MPI_ALIAS(Error_class)
ISVP_MPI_ALIAS(Error_string)
ISVP_MPI_ALIAS(Comm_create_errhandler)
ISVP_MPI_ALIAS(Errhandler_create)
ISVP_MPI_ALIAS(Comm_set_errhandler)
ISVP_MPI_ALIAS(Errhandler_set)
ISVP_MPI_ALIAS(Comm_get_errhandler)
ISVP_MPI_ALIAS(Errhandler_get)
ISVP_MPI_ALIAS(Errhandler_free)
ISVP_MPI_ALIAS(Comm_call_errhandler)
ISVP_MPI_ALIAS(Add_error_class)
ISVP_MPI_ALIAS(Add_error_code)
ISVP_MPI_ALIAS(Add_error_string)
