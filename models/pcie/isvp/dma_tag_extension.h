// DmaTagExtension: a TLM extension a device sets on a DMA it sends to
// PcieEndpoint::dma to say what the DMA is for (queue, ring, entry), so the
// PCIe transaction log (trace.pcie) can name and decode it. It carries no
// timing and the endpoint's behaviour does not depend on it; a DMA without
// it is logged as "untagged".
#pragma once

#include <tlm>

#include "isvp/pcie_transaction_log.h"

namespace isvp {

struct DmaTagExtension : tlm::tlm_extension<DmaTagExtension> {
    DmaTag tag;  ///< purpose, queue, ring index

    tlm::tlm_extension_base* clone() const override { return new DmaTagExtension(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        tag = static_cast<const DmaTagExtension&>(other).tag;
    }
};

}  // namespace isvp
