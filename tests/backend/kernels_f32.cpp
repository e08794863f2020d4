// The CPU kernel classes against the oracle for f32 (kernel_classes.hpp).
#include "kernel_classes.hpp"

namespace fx = fusedsl;

TEST_CASE("CPU kernel classes against the oracle: f32") { kernel_classes::check_all_kernel_classes<float>(); }
