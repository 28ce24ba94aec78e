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

/// A rank's host memory as a sealed anonymous file (memfd): its size can be
/// neither shrunk nor grown, so a guest holding it cannot make the
/// simulator's mapping fault — with a named POSIX segment a guest could
/// ftruncate it and the simulator's next DMA would die of SIGBUS. It has no
/// name (nothing in /dev/shm to leave behind): the launcher hands the
/// descriptor to its own guest across exec. Linux only.
class SealedMemory {
  public:
    /// Creates `bytes` of zero-filled memory, sealed against resizing; `label`
    /// names it in /proc and messages.
    static SealedMemory create(const std::string& label, std::size_t bytes);
    /// Maps an inherited descriptor, which must be sealed against shrinking
    /// and hold at least `bytes`; takes ownership of it.
    static SealedMemory adopt(int fd, std::size_t bytes);

    SealedMemory(SealedMemory&& other) noexcept;
    SealedMemory& operator=(SealedMemory&& other) noexcept;
    SealedMemory(const SealedMemory&) = delete;
    SealedMemory& operator=(const SealedMemory&) = delete;
    ~SealedMemory();

    std::uint8_t* data() { return static_cast<std::uint8_t*>(base_); }
    std::size_t bytes() const { return bytes_; }
    int fd() const { return fd_; }

  private:
    SealedMemory(int fd, void* base, std::size_t bytes) : fd_(fd), base_(base), bytes_(bytes) {}
    void release();

    int fd_ = -1;            ///< the memfd
    void* base_ = nullptr;   ///< the shared mapping
    std::size_t bytes_ = 0;  ///< mapped bytes
};

}  // namespace isvp::transport
