#include "isvp/driver_parameters.h"

#include "isvp/packet_format.h"
#include "isvp/parameter_table.h"
#include "isvp/register_map.h"

namespace isvp::guest {

namespace {

/// Bytes of the driver's envelope in front of a message's data.
constexpr std::int64_t kEnvelopeBytes = 16;

const param::Choice<SendPath>& send_path_parameter() {
    static const param::Choice<SendPath> parameter{
        "driver.send_path",
        {{"fetch", SendPath::Fetch},
         {"prefetch", SendPath::Prefetch},
         {"pio", SendPath::Pio},
         {"auto", SendPath::Auto}},
        "fetch: descriptor and data fetched by DMA; prefetch: standing descriptors the QDMA fetches ahead of the "
        "doorbell, data fetched by DMA; pio: messages up to driver.pio_max_bytes written into the queue's BAR0 PIO "
        "window (larger ones: fetch); auto: pio up to driver.pio_max_bytes, prefetch above"};
    return parameter;
}

const param::Choice<CompletionMode>& completion_parameter() {
    static const param::Choice<CompletionMode> parameter{
        "driver.completion",
        {{"msi", CompletionMode::Msi}, {"poll", CompletionMode::Poll}, {"hybrid", CompletionMode::Hybrid}},
        "msi: sleep on the armed MSI-X; poll: spin on the completion ring in host memory; hybrid: poll "
        "driver.poll_us, then arm and sleep"};
    return parameter;
}

/// The driver.* parameters, each once.
const auto kTable = [](auto& self, auto&& parameter) {
    parameter(send_path_parameter(), self.send_path);
    parameter(param::Integer{"driver.pio_max_bytes", "B", 0,
                             regmap::PIO_STRIDE - static_cast<std::int64_t>(ProcessorHeader::kBytes) - kEnvelopeBytes,
                             "largest message data the pio and auto send paths write inline"},
              self.pio_max_bytes);
    parameter(completion_parameter(), self.completion);
    parameter(param::Real{"driver.poll_us", "us", 0, 1e6,
                          "hybrid completion: how long the driver polls before it arms the interrupt"},
              self.poll_us);
    parameter(param::Real{"driver.poll_interval_ns", "ns", 0, 1e6,
                          "one turn of the poll loop: a landed completion is seen this much later"},
              self.poll_interval_ns);
};

template <class Value>
Value parse(const param::Choice<Value>& parameter, const std::string& text) {
    for (const auto& [name, value] : parameter.names)
        if (name == text) return value;
    throw DriverError("config: " + std::string(parameter.name) + " must be " + param::accepted(parameter) + ", got '" +
                      text + "'");
}

template <class Value>
const char* name_of(const param::Choice<Value>& parameter, Value value) {
    for (const auto& [name, meaning] : parameter.names)
        if (meaning == value) return name.c_str();
    return "?";
}

}  // namespace

SendPath parse_send_path(const std::string& text) {
    return parse(send_path_parameter(), text);
}

CompletionMode parse_completion_mode(const std::string& text) {
    return parse(completion_parameter(), text);
}

const char* to_string(SendPath path) {
    return name_of(send_path_parameter(), path);
}

const char* to_string(CompletionMode mode) {
    return name_of(completion_parameter(), mode);
}

void declare_driver_parameters(Parameters& parameters) {
    param::declare_table<DriverConfig>(parameters, kTable);
}

DriverConfig driver_config_from(const Parameters& parameters) {
    const DriverConfig config = param::read_table<DriverConfig>(parameters, kTable);
    check_driver_parameters(config);
    return config;
}

void check_driver_parameters(const DriverConfig& config) {
    param::check_table(config, kTable);
}

}  // namespace isvp::guest
