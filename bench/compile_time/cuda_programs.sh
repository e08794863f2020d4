#!/bin/sh
# nvcc's time for a translation unit that runs K programs on CUDA (K = 0, 1, 2, 5, 9 by
# default, or the arguments): row programs (softmax, layernorm, rmsnorm, logsumexp, ... and
# variants of them), each instantiating its CUDA kernels through `prog.run(fx::cuda(), ...)`.
# The compiles run side by side (one nvcc each); prints wall milliseconds per K. Run from the
# repository root on a machine with nvcc; CUDAARCH (default sm_90) picks the target.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
arch=${CUDAARCH:-sm_90}
counts=${*:-0 1 2 5 9}
write() {  # write K FILE
  {
    echo '#include <fusedsl/fusedsl.hpp>'
    echo 'namespace fx = fusedsl;'
    echo 'constexpr fx::in<"x", float, 2> x;'
    echo 'constexpr fx::out<"y", float, 2> y;'
    i=0
    while [ "$i" -lt "$1" ]; do
      variant=$((i / 9))
      case $((i % 9)) in
        0) body="fx::exp(x - fx::max(x, fx::axis<1>)) / fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)" ;;
        1) body="(x - fx::mean(x, fx::axis<1>)) * fx::rsqrt(fx::var(x, fx::axis<1>, fx::correction{0}) + 1e-5f)" ;;
        2) body="x * fx::rsqrt(fx::mean(x * x, fx::axis<1>) + 1e-6f)" ;;
        3) body="x - fx::logsumexp(x, fx::axis<1>)" ;;
        4) body="fx::gelu(x) * 2 + fx::sum(x, fx::axis<1>)" ;;
        5) body="fx::where(x > 0, x, 0.1f * x) - fx::max(x, fx::axis<1>)" ;;
        6) body="fx::tanh(x) / (fx::sum(fx::abs(x), fx::axis<1>) + 1)" ;;
        7) body="fx::sigmoid(x) * fx::min(x, fx::axis<1>)" ;;
        *) body="x / fx::sqrt(fx::sum(x * x, fx::axis<1>) + 1)" ;;
      esac
      echo "constexpr fx::program p$i{y = $body + $variant};"
      i=$((i + 1))
    done
    echo 'int main() {'
    echo '  auto a = fx::tensor<float>::full({64, 1024}, 1.0f, fx::device::cuda);'
    echo '  auto b = fx::tensor<float>::full({64, 1024}, 0.0f, fx::device::cuda);'
    i=0
    while [ "$i" -lt "$1" ]; do
      echo "  p$i.run(fx::cuda(), x(a), y(b));"
      i=$((i + 1))
    done
    echo '}'
  } > "$2"
}
for k in $counts; do
  write "$k" "$dir/p$k.cu"
  (
    start=$(date +%s%N)
    nvcc -std=c++20 -O3 -arch="$arch" --expt-relaxed-constexpr -Xcompiler=-fopenmp -Iinclude -c "$dir/p$k.cu" \
      -o "$dir/p$k.o" > "$dir/p$k.log" 2>&1 || { echo "programs $k: nvcc failed:"; cat "$dir/p$k.log"; exit 1; }
    echo "programs $k: $((($(date +%s%N) - start) / 1000000)) ms"
  ) &
done
wait
