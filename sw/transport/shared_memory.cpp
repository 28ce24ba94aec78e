// Named shared-memory segments through Boost.Interprocess, and sealed memfds.
#include "isvp/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <utility>

#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

namespace isvp::transport {

namespace bip = boost::interprocess;

namespace {

void check_name(const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos || name.size() > 200)
        throw SharedMemoryError("shared memory: bad segment name '" + name + "' (1..200 characters, no '/')");
}

}  // namespace

SharedMemorySegment::SharedMemorySegment(std::string name, bip::mapped_region region, std::size_t bytes, bool owner)
    : name_(std::move(name)), region_(std::move(region)), bytes_(bytes), owner_(owner) {}

SharedMemorySegment SharedMemorySegment::create(const std::string& name, std::size_t bytes) {
    check_name(name);
    if (bytes == 0) throw SharedMemoryError("shared memory: segment '" + name + "' of 0 bytes");
    try {
        bip::shared_memory_object object(bip::create_only, name.c_str(), bip::read_write);
        try {
            object.truncate(static_cast<bip::offset_t>(bytes));
            bip::mapped_region region(object, bip::read_write, 0, bytes);
            return SharedMemorySegment(name, std::move(region), bytes, true);
        } catch (...) {
            bip::shared_memory_object::remove(name.c_str());
            throw;
        }
    } catch (const bip::interprocess_exception& error) {
        throw SharedMemoryError("shared memory: cannot create segment '/dev/shm/" + name + "' of " +
                                std::to_string(bytes) + " bytes: " + error.what());
    }
}

SharedMemorySegment SharedMemorySegment::open(const std::string& name, std::size_t bytes) {
    check_name(name);
    try {
        bip::shared_memory_object object(bip::open_only, name.c_str(), bip::read_write);
        bip::offset_t size = 0;
        object.get_size(size);
        if (size < 0 || static_cast<std::uint64_t>(size) < bytes)
            throw SharedMemoryError("shared memory: segment '" + name + "' holds " + std::to_string(size) +
                                    " bytes, expected " + std::to_string(bytes));
        bip::mapped_region region(object, bip::read_write, 0, bytes);
        return SharedMemorySegment(name, std::move(region), bytes, false);
    } catch (const bip::interprocess_exception& error) {
        throw SharedMemoryError("shared memory: cannot open segment '/dev/shm/" + name + "': " + error.what());
    }
}

SharedMemorySegment::SharedMemorySegment(SharedMemorySegment&& other) noexcept
    : name_(std::move(other.name_)), region_(std::move(other.region_)), bytes_(other.bytes_), owner_(other.owner_) {
    other.owner_ = false;
    other.bytes_ = 0;
}

SharedMemorySegment& SharedMemorySegment::operator=(SharedMemorySegment&& other) noexcept {
    if (this != &other) {
        remove();
        name_ = std::move(other.name_);
        region_ = std::move(other.region_);
        bytes_ = other.bytes_;
        owner_ = other.owner_;
        other.owner_ = false;
        other.bytes_ = 0;
    }
    return *this;
}

SharedMemorySegment::~SharedMemorySegment() {
    remove();
}

void SharedMemorySegment::remove() {
    if (!owner_) return;
    bip::shared_memory_object::remove(name_.c_str());
    owner_ = false;
}

bool SharedMemorySegment::exists(const std::string& name) {
    try {
        bip::shared_memory_object object(bip::open_only, name.c_str(), bip::read_only);
        return true;
    } catch (const bip::interprocess_exception&) {
        return false;
    }
}

SealedMemory SealedMemory::create(const std::string& label, std::size_t bytes) {
    const int fd = ::memfd_create(label.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) throw SharedMemoryError("cannot create host memory " + label + ": " + std::strerror(errno));
    if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0 ||
        ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        throw SharedMemoryError("cannot size and seal host memory " + label + " (" + std::to_string(bytes) +
                                " bytes): " + why);
    }
    void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        throw SharedMemoryError("cannot map host memory " + label + ": " + why);
    }
    return SealedMemory(fd, base, bytes);
}

SealedMemory SealedMemory::adopt(int fd, std::size_t bytes) {
    struct stat status {};
    const int seals = ::fcntl(fd, F_GET_SEALS);
    if (::fstat(fd, &status) != 0 || seals < 0 || !(seals & F_SEAL_SHRINK) ||
        static_cast<std::uint64_t>(status.st_size) < bytes)
        throw SharedMemoryError("descriptor " + std::to_string(fd) +
                                " is not this rank's sealed host memory of " + std::to_string(bytes) +
                                " bytes (start guests with `isvp run`)");
    void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        throw SharedMemoryError("mmap of descriptor " + std::to_string(fd) + ": " +
                                std::strerror(errno));
    return SealedMemory(fd, base, bytes);
}

SealedMemory::SealedMemory(SealedMemory&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), base_(std::exchange(other.base_, nullptr)), bytes_(other.bytes_) {}

SealedMemory& SealedMemory::operator=(SealedMemory&& other) noexcept {
    if (this != &other) {
        release();
        fd_ = std::exchange(other.fd_, -1);
        base_ = std::exchange(other.base_, nullptr);
        bytes_ = other.bytes_;
    }
    return *this;
}

SealedMemory::~SealedMemory() { release(); }

void SealedMemory::release() {
    if (base_) ::munmap(base_, bytes_);
    if (fd_ >= 0) ::close(fd_);
    base_ = nullptr;
    fd_ = -1;
}

}  // namespace isvp::transport

