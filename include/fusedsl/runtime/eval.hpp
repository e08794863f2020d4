/// @file eval.hpp
/// Sugar for numerical code: `fx::eval(y, exp(a) * b + c)` with tensors
/// used directly in the expression, run as a one-statement program.
#pragma once
#include <fusedsl/expr/tensor_leaf.hpp>     // tensors as leaves
#include <fusedsl/program/placeholder.hpp>  // out
#include <fusedsl/program/program.hpp>      // program
#include <fusedsl/runtime/target.hpp>       // cpu_target: the default

namespace fusedsl {

/// Evaluates `value` (an expression over tensors, views and numbers) into
/// `target`, broadcasting to the target's shape, on `where` (the CPU by
/// default). The same checks as a program apply: a target that overlaps an
/// operand through a different view is an error.
template <class Target = cpu_target, class T, operand E>
void eval(tensor_view<T> target, const E& value, const Target& where = {}) {
  constexpr out<"eval target", T, dynamic_rank> result;
  program{result = value}.run(where, result(target));
}
/// `eval` into a whole tensor.
template <class Target = cpu_target, class T, operand E>
void eval(tensor<T>& target, const E& value, const Target& where = {}) {
  eval(target.view(), value, where);
}

}  // namespace fusedsl
