#include "job_platform.h"

namespace isvp::cli {

void declare_job_parameters(Parameters& parameters) {
    PlatformConfig::declare(parameters);
    TransportConfig::declare(parameters);
}

transport::PlatformBuilder JobPlatform::builder() {
    return [this](const std::vector<transport::HostMemorySpan>& memory,
                  const std::vector<transport::GuestGateway*>& gateways) {
        std::vector<MemorySpan> spans;
        for (const auto& span : memory) spans.push_back({span.data, span.bytes});
        platform_ = std::make_unique<TorusPlatform>("platform", config_, spans);
        for (std::size_t rank = 0; rank < gateways.size(); ++rank) {
            Node& node = platform_->node(static_cast<unsigned>(rank));
            gateways[rank]->mmio.bind(node.pcie.host_mmio);
            node.bridge.msi.bind(gateways[rank]->msi);
        }
    };
}

}  // namespace isvp::cli
