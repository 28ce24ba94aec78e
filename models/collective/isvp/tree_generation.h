// Which tree generation a switch-resident engine's packet belongs to
// (collective.placement = switch; docs/COLLECTIVES.md): data packets and
// abort notices carry the low bits of their group's TreeConfig::generation
// in the offset word's top bits (tree_offset_word, packet_format.h), so a
// vertex tells a freed communicator's late packets from the packets of the
// group it is configured for now. SystemC-free.
#pragma once

#include <cstdint>

namespace isvp {

/// The generation bits a tree's packets carry: bits [31:29] of the offset
/// word (tree_offset_word keeps the low 3 bits of the generation).
inline constexpr std::uint8_t kTreeGenerationBits = 0x7;

/// Whether a vertex configured with generation `configured` belongs to the
/// same group as a packet whose offset word carries `carried`.
constexpr bool same_tree_generation(std::uint8_t configured, std::uint8_t carried) {
    return carried == (configured & kTreeGenerationBits);
}

/// Whether a vertex configured with generation `configured` acts on an abort
/// notice carrying `carried`: only on its own group's. Another generation's
/// notice is a freed communicator's, come late to the group now on the same
/// (context, slot): ignored (counted older_generation); it must not abort the
/// new group's collective. (A newer group's notice that came before the
/// vertex's configuration is ignored too: it was lost before as well, applied
/// to the old group and then forgotten by the configuration.)
constexpr bool takes_abort_notice(std::uint8_t configured, std::uint8_t carried) {
    return same_tree_generation(configured, carried);
}

}  // namespace isvp
