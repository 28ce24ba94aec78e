// SharedMemorySegment: a named POSIX shared-memory segment (/dev/shm on
// Linux, through Boost.Interprocess) mapped into this process. The launcher
// creates one per remote rank as the rank's DMA-able host memory; the guest
// opens it by name, so both sides see the same bytes. The creator owns the
// name and removes it when the segment object is destroyed (or on remove()).
// Plain C++17, no SystemC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <boost/interprocess/mapped_region.hpp>

namespace isvp::transport {

/// A segment could not be created, opened or mapped; the message names it.
class SharedMemoryError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class SharedMemorySegment {
  public:
    /// Creates `name` (no '/', must not exist) of `bytes`, zero-filled, and maps it.
    static SharedMemorySegment create(const std::string& name, std::size_t bytes);
    /// Maps an existing segment; it must hold at least `bytes`.
    static SharedMemorySegment open(const std::string& name, std::size_t bytes);

    SharedMemorySegment(SharedMemorySegment&& other) noexcept;
    SharedMemorySegment& operator=(SharedMemorySegment&& other) noexcept;
    SharedMemorySegment(const SharedMemorySegment&) = delete;
    SharedMemorySegment& operator=(const SharedMemorySegment&) = delete;
    /// Unmaps; the creator also removes the name.
    ~SharedMemorySegment();

    std::uint8_t* data() { return static_cast<std::uint8_t*>(region_.get_address()); }
    std::size_t bytes() const { return bytes_; }
    const std::string& name() const { return name_; }
    /// Removes the name now (the mapping stays valid); idempotent.
    void remove();

    /// Whether a segment called `name` exists.
    static bool exists(const std::string& name);

  private:
    SharedMemorySegment(std::string name, boost::interprocess::mapped_region region, std::size_t bytes, bool owner);

    std::string name_;                           ///< segment name, without a leading '/'
    boost::interprocess::mapped_region region_;  ///< the mapping
    std::size_t bytes_ = 0;                      ///< usable bytes
    bool owner_ = false;                         ///< created here: remove the name when done
};

}  // namespace isvp::transport
