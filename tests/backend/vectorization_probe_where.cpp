// Instantiates one pointwise loop for cmake/CheckVectorized.cmake: a `where` over a bool
// mask whose arms call math functions. It vectorizes only when the mask is read as bytes
// compared with 0 and the select is a blend of bits (chunk_reader::load, math::select).
#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

void run_probe(const fx::tensor<float>& x, const fx::tensor<bool>& mask, fx::tensor<float>& y) {
  constexpr fx::in<"x", float, 1> px;
  constexpr fx::in<"m", bool, 1> pm;
  constexpr fx::out<"y", float, 1> py;
  constexpr fx::program where{py = fx::where(pm, fx::exp(px * 0.125f), fx::erf(px))};
  where.run(fx::cpu, px(x), pm(mask), py(y));
}
