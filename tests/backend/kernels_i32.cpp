// The CPU kernel classes against the oracle for i32 (kernel_classes.hpp).
#include "kernel_classes.hpp"

namespace fx = fusedsl;

TEST_CASE("CPU kernel classes against the oracle: i32") { kernel_classes::check_all_kernel_classes<std::int32_t>(); }
