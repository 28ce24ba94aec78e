// The SystemC-free side of the on-FPGA kernels (models/kernel): the
// catalogue, the kernels' argument checks, the C++ references, the SMI
// front functions' refusal of unopened channels, the KERNEL_* register names.
#include <cstring>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "isvp/kernel_context.h"
#include "isvp/register_map.h"
#include "isvp/register_names.h"
#include "isvp/smi_kernels.h"

using namespace isvp;

namespace {
std::array<std::uint64_t, regmap::kKernelArgs> args_of(std::initializer_list<std::uint64_t> values) {
    std::array<std::uint64_t, regmap::kKernelArgs> a{};
    std::size_t i = 0;
    for (const std::uint64_t v : values) a[i++] = v;
    return a;
}
}  // namespace

TEST_CASE("smi kernels: the catalogue has unique ids and names, found both ways") {
    std::set<std::uint32_t> ids;
    std::set<std::string> names;
    for (const KernelDescriptor* k = kernels_begin(); k != kernels_end(); ++k) {
        CHECK(ids.insert(k->id).second);
        CHECK(names.insert(k->name).second);
        CHECK(find_kernel(k->id) == k);
        CHECK(find_kernel(std::string(k->name)) == k);
    }
    CHECK(find_kernel(kKernelStencil)->name == std::string("stencil"));
    CHECK(find_kernel(0u) == nullptr);
    CHECK(find_kernel(std::string("nosuch")) == nullptr);
    CHECK(kernel_list().find("2 stencil") != std::string::npos);
}

TEST_CASE("smi kernels: argument checks name the first bad argument") {
    std::string why;
    const KernelDescriptor* pingpong = find_kernel(kKernelPingPong);
    CHECK(pingpong->check(args_of({1, 8, SMI_DOUBLE, 10, 0}), 2, &why) == -1);
    CHECK(pingpong->check(args_of({0, 8, SMI_DOUBLE, 10, 0}), 2, &why) == 0);  // responder 0
    CHECK(why.find("responder") != std::string::npos);
    CHECK(pingpong->check(args_of({1, 8, 7, 10, 0}), 2, &why) == 2);  // 7 is no SMI datatype
    CHECK(pingpong->check(args_of({1, 8, SMI_DOUBLE, 10, 2}), 2, &why) == 4);
    const KernelDescriptor* reduce = find_kernel(kKernelReduce);
    CHECK(reduce->check(args_of({16, 3, SMI_MAX, SMI_INT}), 4, &why) == -1);
    CHECK(reduce->check(args_of({16, 4, SMI_MAX, SMI_INT}), 4, &why) == 1);  // root outside
    CHECK(reduce->check(args_of({16, 0, 3, SMI_INT}), 4, &why) == 2);
    CHECK(reduce->check(args_of({16, 0, SMI_ADD, SMI_FLOAT}), 4, &why) == 3);
}

TEST_CASE("smi kernels: the stencil reference keeps blocks in rank order and is deterministic") {
    using namespace smi_examples;
    // No steps: each block's checksum is its initial values'.
    const auto initial = stencil_reference(2, 4, 0);
    std::uint64_t sum = kFnvBasis;
    for (std::uint64_t g = 4; g < 8; ++g) {
        const double v = stencil_initial(g);
        std::uint64_t bits;
        std::memcpy(&bits, &v, 8);
        sum = fnv_add(sum, bits);
    }
    CHECK(initial[1] == sum);
    CHECK(stencil_reference(4, 16, 10) == stencil_reference(4, 16, 10));
    CHECK(stencil_reference(4, 16, 10) != stencil_reference(4, 16, 11));
}

TEST_CASE("smi kernels: the reduce reference combines in rank order") {
    using namespace smi_examples;
    std::uint64_t want = kFnvBasis;
    want = fnv_add(want, static_cast<std::uint32_t>(reduce_int(0, 0) + reduce_int(1, 0)));
    CHECK(reduce_reference(2, 1, SMI_ADD, SMI_INT) == want);
    CHECK(reduce_reference(3, 8, SMI_MAX, SMI_DOUBLE) != reduce_reference(3, 8, SMI_MIN, SMI_DOUBLE));
}

TEST_CASE("smi kernels: SMI calls on a channel never opened are a kernel error, not a crash") {
    SMI_Channel never;
    int element = 0;
    try {
        SMI_Push(&never, &element);
        FAIL("SMI_Push on an unopened channel returned");
    } catch (const KernelError& e) {
        CHECK(e.code() == regmap::kKernelErrorChannelArgs);
        CHECK(std::string(e.what()).find("SMI_Push") != std::string::npos);
    }
    CHECK_THROWS_AS(SMI_Comm_rank(SMI_Comm{}), KernelError);
}

TEST_CASE("smi kernels: KERNEL_* registers have names for logs") {
    CHECK(regmap::register_name(regmap::KERNEL_CONTROL) == "KERNEL_CONTROL");
    CHECK(regmap::register_name(regmap::KERNEL_STATUS) == "KERNEL_STATUS");
    CHECK(regmap::register_name(regmap::KERNEL_ARG(2) + 4) == "KERNEL_ARG_HI[2]");
    CHECK(regmap::register_name(regmap::KERNEL_RESULT(7)) == "KERNEL_RESULT_LO[7]");
    CHECK(regmap::register_name(regmap::KERNEL_END).rfind("KERNEL_", 0) != 0);  // the next block's, or unmapped
}
