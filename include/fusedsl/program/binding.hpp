/// @file binding.hpp
/// What a call passes for each placeholder: a view, or a parameter's value.
#pragma once
#include <fusedsl/tensor/tensor_view.hpp>  // tensor_view

namespace fusedsl {

/// A view bound to placeholder `P` (`x(tensor)` makes one).
template <class P, class U>
struct tensor_binding {
  using placeholder_type = P;
  tensor_view<U> view;
};

/// A value bound to parameter `P` (`lr(0.01f)` makes one).
template <class P>
struct param_binding {
  using placeholder_type = P;
  typename P::element_type value;
};

}  // namespace fusedsl
