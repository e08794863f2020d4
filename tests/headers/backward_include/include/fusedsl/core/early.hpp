// A core header that includes a later folder: the include-order check must refuse it.
#pragma once
#include <fusedsl/plan/late.hpp>
