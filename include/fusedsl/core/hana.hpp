/// @file hana.hpp
/// The parts of Boost.Hana that fusedsl uses, and the `fusedsl::hana` alias.
/// Hana holds the heterogeneous sequences of the library: a node's operands,
/// a program's statements, the named leaves of a call and their slots.
#pragma once
#include <boost/hana/any_of.hpp>             // hana::any_of
#include <boost/hana/at.hpp>                 // hana::at, hana::at_c
#include <boost/hana/bool.hpp>               // hana::bool_c
#include <boost/hana/equal.hpp>              // == on hana tuples (operands of expressions)
#include <boost/hana/filter.hpp>             // hana::filter
#include <boost/hana/flatten.hpp>            // hana::flatten
#include <boost/hana/for_each.hpp>           // hana::for_each
#include <boost/hana/integral_constant.hpp>  // hana::size_c
#include <boost/hana/length.hpp>             // hana::length
#include <boost/hana/prepend.hpp>            // hana::prepend
#include <boost/hana/range.hpp>              // hana::make_range
#include <boost/hana/take_front.hpp>         // hana::take_front_c
#include <boost/hana/transform.hpp>          // hana::transform
#include <boost/hana/tuple.hpp>              // hana::tuple, hana::make_tuple, hana::tuple_t
#include <boost/hana/type.hpp>               // hana::type_c
#include <boost/hana/unpack.hpp>             // hana::unpack

namespace fusedsl {
namespace hana = boost::hana;
}  // namespace fusedsl
