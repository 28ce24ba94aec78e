#include "isvp/aglu_rtl_engine.h"

#include <sstream>
#include <string>

#include <verilated.h>
#include <verilated_vcd_c.h>

#include "aglu_rtl_variants.h"  // generated: the Vaglu_s<N> models and their list

namespace isvp {
namespace {

// Drives one Verilated AgLU: reset once, then a clock edge per operand beat
// until the last result appears. `Model` is a Verilator-generated class.
template <typename Model>
class VerilatedAglu final : public AgluEngine {
  public:
    VerilatedAglu(const AgluConfig& config, unsigned stages)
        : stages_(stages), half_period_ps_(static_cast<std::uint64_t>(500000.0 / config.clock_mhz)) {
        context_ = std::make_unique<VerilatedContext>();
        context_->debug(0);
        context_->randReset(0);  // deterministic initial register contents
        if (!config.vcd_path.empty()) context_->traceEverOn(true);
        model_ = std::make_unique<Model>(context_.get(), "aglu");
        if (!config.vcd_path.empty()) {
            trace_ = std::make_unique<VerilatedVcdC>();
            model_->trace(trace_.get(), 99);
            trace_->open(config.vcd_path.c_str());
            if (!trace_->isOpen()) throw ConfigError("config: aglu.vcd: cannot write " + config.vcd_path);
        }
        model_->rst_n = 0;
        model_->in_valid = 0;
        for (int i = 0; i < 2; ++i) tick();
        model_->rst_n = 1;
    }

    ~VerilatedAglu() override {
        model_->final();
        if (trace_) trace_->close();
    }

    std::string_view implementation() const override { return "rtl"; }
    unsigned pipeline_stages() const override { return stages_; }

    std::uint64_t combine(Operation op, Datatype type, const Vector256* a, const Vector256* b, Vector256* out,
                          std::size_t count) override {
        aglu_require_supported(op, type);
        model_->in_op = static_cast<std::uint8_t>(op);
        model_->in_dtype = static_cast<std::uint8_t>(type);
        std::size_t issued = 0;
        std::size_t retired = 0;
        std::uint64_t cycles = 0;
        // A correct pipeline retires the last beat after stages + count - 1
        // edges; anything longer is an RTL bug, reported rather than hung on.
        const std::uint64_t limit = count + stages_ + 1;
        while (retired < count) {
            model_->in_valid = issued < count;
            if (issued < count) {
                load(model_->in_a, a[issued]);
                load(model_->in_b, b[issued]);
                ++issued;
            }
            tick();
            ++cycles;
            if (model_->out_valid) {
                if (model_->out_unsupported)
                    throw std::logic_error("aglu rtl: out_unsupported for a pair the core supports");
                store(model_->out_result, out[retired]);
                ++retired;
            }
            if (cycles > limit) {
                std::ostringstream message;
                message << "aglu rtl: " << retired << " of " << count << " results after " << cycles
                        << " cycles with PIPE_STAGES=" << stages_;
                throw std::logic_error(message.str());
            }
        }
        model_->in_valid = 0;
        return cycles;
    }

  private:
    template <typename Wide>
    static void load(Wide& port, const Vector256& value) {
        for (int word = 0; word < 4; ++word) {
            port[2 * word] = static_cast<std::uint32_t>(value[word]);
            port[2 * word + 1] = static_cast<std::uint32_t>(value[word] >> 32);
        }
    }

    template <typename Wide>
    static void store(const Wide& port, Vector256& value) {
        for (int word = 0; word < 4; ++word)
            value[word] = static_cast<std::uint64_t>(port[2 * word]) | static_cast<std::uint64_t>(port[2 * word + 1])
                                                                           << 32;
    }

    void tick() {
        model_->clk = 0;
        model_->eval();
        if (trace_) trace_->dump(time_ps_);
        time_ps_ += half_period_ps_;
        model_->clk = 1;
        model_->eval();
        if (trace_) trace_->dump(time_ps_);
        time_ps_ += half_period_ps_;
    }

    unsigned stages_;                            ///< PIPE_STAGES the model was built with
    std::uint64_t half_period_ps_;               ///< waveform time per clock phase
    std::uint64_t time_ps_ = 0;                  ///< waveform time stamp
    std::unique_ptr<VerilatedContext> context_;  ///< own context: several AgLUs per process
    std::unique_ptr<Model> model_;               ///< the Verilated aglu
    std::unique_ptr<VerilatedVcdC> trace_;       ///< waveform writer when aglu.vcd is set
};

}  // namespace

std::vector<unsigned> aglu_rtl_available_stages() {
    std::vector<unsigned> stages;
#define ISVP_LIST_STAGES(N) stages.push_back(N);
    ISVP_AGLU_RTL_FOR_EACH_VARIANT(ISVP_LIST_STAGES)
#undef ISVP_LIST_STAGES
    return stages;
}

std::unique_ptr<AgluEngine> make_aglu_rtl_engine(const AgluConfig& config) {
    config.validate();
#define ISVP_MAKE_VARIANT(N) \
    if (config.pipeline_stages == N) return std::make_unique<VerilatedAglu<Vaglu_s##N>>(config, N);
    ISVP_AGLU_RTL_FOR_EACH_VARIANT(ISVP_MAKE_VARIANT)
#undef ISVP_MAKE_VARIANT
    std::string built;       // "1, 4, 8" for the message
    std::string cmake_list;  // "1;4;8" for the reconfigure hint
    for (unsigned stages : aglu_rtl_available_stages()) {
        built += (built.empty() ? "" : ", ") + std::to_string(stages);
        cmake_list += std::to_string(stages) + ";";
    }
    throw ConfigError("config: aglu.pipeline_stages=" + std::to_string(config.pipeline_stages) +
                      " has no RTL model in this build (built: " + built +
                      "); reconfigure with -DISVP_AGLU_RTL_STAGES=\"" + cmake_list +
                      std::to_string(config.pipeline_stages) + "\"");
}

}  // namespace isvp
