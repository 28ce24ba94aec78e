// Named shared-memory segments through Boost.Interprocess.
#include "isvp/shared_memory.h"

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

}  // namespace isvp::transport
