/// @file lowering.hpp
/// Lowering of a program to the scheduler's graph, in constant evaluation:
/// each distinct reduction (and each `fx::realize`d value) of a statement
/// becomes a node that writes a buffer; the rest of the statement's value is
/// inlined into one pointwise node that writes the target (or, when the
/// value is just a reduction that fits the target, the reduction writes the
/// target itself). Writing a placeholder that already holds a value
/// (an `inout`, or a second write) is an in-place update, recorded as
/// Inductor records mutations: a StarDep on the old buffer and WeakDeps on
/// its earlier readers.
///
/// Sizes are run-time values, so the graph carries size hints: axes that
/// broadcasting proves equal share a symbol, each symbol gets a distinct
/// prime as its hint, and two iteration spaces have equal hinted numel
/// exactly when they are products of the same symbols.
#pragma once
#include <cstdint>  // std::int64_t
#include <string>   // std::string
#include <utility>  // std::move
#include <vector>   // std::vector

#include <fusedsl/core/hana.hpp>                // hana: walking statement and node types
#include <fusedsl/expr/traverse.hpp>            // subexpressions, unique_types
#include <fusedsl/graph/detail/index_expr.hpp>  // detail::to_decimal
#include <fusedsl/graph/graph.hpp>              // graph, node_spec, deps
#include <fusedsl/program/program.hpp>          // program, placeholder, role

namespace fusedsl {

namespace lowering_detail {

/// An axis known to have size 1 (a kept reduced axis); other axes are symbol ids.
inline constexpr int unit_axis = -1;

/// A memory read of `buffer`, whose axes (symbols or unit_axis) align with
/// the reading node's space at the innermost axis.
struct read {
  std::string buffer;
  std::vector<int> axes;
  std::int64_t itemsize = 4;  ///< bytes per element of `buffer`
};

/// Appends a read (member by member: nvcc's constexpr mishandles aggregates holding strings).
constexpr void add_read(std::vector<read>& reads, const std::string& buffer, const std::vector<int>& axes,
                        std::int64_t itemsize) {
  reads.emplace_back();
  reads.back().buffer = buffer;
  reads.back().axes = axes;
  reads.back().itemsize = itemsize;
}

/// A node before size hints are known.
struct pending_node {
  std::string buffer;  ///< the buffer it writes (also the node's name)
  node_kind kind = node_kind::pointwise;
  std::vector<int> space;     ///< iteration axes (a reduction: its operand's axes)
  std::vector<bool> reduced;  ///< per space axis
  std::vector<read> reads;
  std::vector<std::string> star_reads;
  std::vector<std::pair<std::string, std::string>> weak_reads;  ///< (buffer, mutating buffer)
  std::string dtype;                                            ///< torch spelling, for byte sizes
  int statement = -1;                                           ///< the statement it comes from
  int distinct = -1;           ///< its position among the statement's distinct nodes; -1: the statement's value
  bool writes_target = false;  ///< it writes the statement's target
};

/// A placeholder's state while lowering: its axes and its current buffer.
struct leaf_state {
  std::string name;
  std::vector<int> axes;
  int version = 0;          ///< writes so far
  bool holds_value = true;  ///< version 0 is a value (inputs, inout) rather than unwritten memory
  std::string dtype;
  std::int64_t itemsize = 4;  ///< bytes per element of the current buffer (that of the node that wrote it)
  constexpr std::string buffer() const {
    // Not `?:`: g++ 12 cannot copy a string out of a conditional in constant evaluation.
    if (version == 0) return name;
    return name + "@" + detail::to_decimal(version);
  }
};

constexpr const char* torch_dtype(dtype d) {
  constexpr const char* names[] = {"torch.float64", "torch.float32", "torch.float16", "torch.bfloat16", "torch.int64",
                                   "torch.int32",   "torch.int16",   "torch.int8",    "torch.uint8",    "torch.bool"};
  return names[static_cast<int>(d)];
}

/// The name of placeholder or param `L` as a std::string, copied character
/// by character: std::string's string_view constructor compares the data
/// pointer with null, which g++ cannot fold for a template parameter object
/// (the name) when null-pointer checks are kept (-fsanitize=address,undefined).
template <class L>
constexpr std::string name_of() {
  std::string name;
  for (char c : L::name.view()) name.push_back(c);
  return name;
}

/// The whole lowering state of one program.
struct lowering {
  std::vector<int> parent;  ///< union-find over symbols
  std::vector<leaf_state> leaves;
  std::vector<pending_node> nodes;
  std::vector<std::string> outputs;

  constexpr int new_symbol() {
    parent.push_back(static_cast<int>(parent.size()));
    return static_cast<int>(parent.size()) - 1;
  }
  constexpr int find(int s) const {
    while (parent[static_cast<std::size_t>(s)] != s) s = parent[static_cast<std::size_t>(s)];
    return s;
  }
  constexpr void unite(int a, int b) {
    a = find(a), b = find(b);
    if (a != b) parent[static_cast<std::size_t>(a > b ? a : b)] = a < b ? a : b;
  }

  /// The numpy broadcast of two symbolic shapes: equal-position axes that are
  /// both symbols are the same size; a unit axis takes the other's.
  constexpr std::vector<int> broadcast(const std::vector<int>& a, const std::vector<int>& b) {
    const std::vector<int>& longer = a.size() >= b.size() ? a : b;
    const std::vector<int>& shorter = a.size() >= b.size() ? b : a;
    std::vector<int> result = longer;
    const std::size_t offset = longer.size() - shorter.size();
    for (std::size_t i = 0; i < shorter.size(); ++i) {
      int& r = result[offset + i];
      const int s = shorter[i];
      if (r == unit_axis) r = s;
      else if (s != unit_axis) unite(r, s);
    }
    return result;
  }

  template <class L>
  constexpr leaf_state& leaf() {
    for (auto& l : leaves)
      if (l.name == L::name.view()) return l;
    leaf_state l;  // filled member by member: nvcc's constexpr mishandles aggregates holding strings
    l.name = name_of<L>();
    l.holds_value = true;
    l.dtype = torch_dtype(L::value_dtype);
    l.itemsize = detail::dtype_itemsize(l.dtype);
    if constexpr (requires { L::role_of; }) l.holds_value = L::role_of == role::in || L::role_of == role::inout;
    // A dynamic rank is planned as one axis: the executor checks the real
    // shapes of every fused group before it runs it fused.
    for (int i = 0; i < (L::rank == dynamic_rank ? 1 : L::rank); ++i) l.axes.push_back(new_symbol());
    leaves.push_back(l);
    return leaves.back();
  }

  /// Nodes that read `buffer` so far (for the WeakDeps of a later in-place update).
  constexpr std::vector<int> readers(const std::string& buffer) const {
    std::vector<int> found;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (const read& r : nodes[i].reads)
        if (r.buffer == buffer) {
          found.push_back(static_cast<int>(i));
          break;
        }
    return found;
  }
};

/// Lowering of one statement (index `Index`, value type `V`).
template <class V, std::size_t Index>
struct statement_lowering {
  static constexpr auto distinct = distinct_nodes<V>();
  lowering& state;
  std::vector<std::string> buffers = std::vector<std::string>(hana::length(distinct).value);
  std::vector<std::vector<int>> shapes = std::vector<std::vector<int>>(hana::length(distinct).value);
  int tensors = 0;  ///< tensors met so far (each an input of its own)

  /// The symbolic shape of `E`, adding its reads to `reads` and lowering the
  /// nodes below it on first sight.
  template <class E>
  constexpr std::vector<int> visit(std::vector<read>& reads) {
    if constexpr (makes_node<E>) {
      constexpr std::size_t k = type_index<E>(distinct);
      if (buffers[k].empty()) lower_node<E>(k);
      add_read(reads, buffers[k], shapes[k], detail::dtype_itemsize(torch_dtype(E::value_dtype)));
      return shapes[k];
    } else if constexpr (is_pointwise_node<E>) {
      std::vector<int> result;
      // A fold rather than hana::for_each: nvcc's front end cannot call
      // through for_each's function pointer in constant evaluation.
      hana::unpack(detail::children<E>::value, [&](auto... t) {
        ((result = state.broadcast(result, visit<typename decltype(t)::type>(reads))), ...);
      });
      return result;
    } else if constexpr (requires { E::role_of; }) {
      const leaf_state& l = state.template leaf<E>();
      add_read(reads, l.buffer(), l.axes, l.itemsize);
      return l.axes;
    } else if constexpr (requires { std::declval<E>().view; }) {  // a tensor inside the expression: an input
      const std::vector<int> axes{state.new_symbol()};
      add_read(reads, "tensor" + detail::to_decimal(tensors++), axes, 4);  // planned as float32
      return axes;
    } else {
      return {};  // constants and params: scalars, no memory
    }
  }

  template <class E>
  constexpr void lower_node(std::size_t k) {
    pending_node node;
    if constexpr (is_reduction_node<E>) {
      using A = decltype(std::declval<E>().arg);
      node.kind = node_kind::reduction;
      node.space = visit<A>(node.reads);
      if (A::rank == dynamic_rank && E::axes_type::count > 0)  // planned as one kept and one reduced axis
        node.space = {state.new_symbol(), state.new_symbol()};
      const int rank = static_cast<int>(node.space.size());
      node.reduced.assign(node.space.size(), E::axes_type::count == 0);
      if (A::rank == dynamic_rank && E::axes_type::count > 0) node.reduced[1] = true;
      else
        for (int i = 0; i < E::axes_type::count; ++i) {
          const int a = E::axes_type::values[i];
          node.reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
        }
      for (std::size_t d = 0; d < node.space.size(); ++d) {
        if (!node.reduced[d]) shapes[k].push_back(node.space[d]);
        else if (E::keep_axes) shapes[k].push_back(unit_axis);
      }
    } else {  // realize
      using A = std::remove_cvref_t<decltype(hana::at_c<0>(std::declval<E>().args))>;
      node.space = visit<A>(node.reads);
      node.reduced.assign(node.space.size(), false);
      shapes[k] = node.space;
    }
    node.dtype = torch_dtype(E::value_dtype);
    node.statement = static_cast<int>(Index);
    node.distinct = static_cast<int>(k);
    buffers[k] = node.buffer = "s" + detail::to_decimal(Index) + "." + node_name<E>() + detail::to_decimal(k);
    state.nodes.push_back(std::move(node));
  }

  template <class E>
  static constexpr std::string node_name() {
    if constexpr (is_reduction_node<E>) return E::op_type::name;
    else return "realize";
  }
};

/// Lowers statement `S` (at position `Index`) into `state`.
template <std::size_t Index, class S>
constexpr void lower_statement(lowering& state) {
  using V = typename S::value_type;
  using T = typename S::target_type;
  statement_lowering<V, Index> lowering_of{state};
  std::vector<read> reads;
  std::vector<int> value = lowering_of.template visit<V>(reads);

  leaf_state& target = state.template leaf<T>();
  const std::string old_buffer = target.buffer();
  const bool in_place = target.version > 0 || target.holds_value;
  // The value broadcasts into the target: aligned symbols are equal.
  while (value.size() > target.axes.size() && value.front() == unit_axis) value.erase(value.begin());
  // The value's own node writes the target when it covers it one to one: no
  // kept reduced (size-1) axis would have to broadcast into the target.
  bool direct = makes_node<V> && value.size() == target.axes.size();
  for (int v : value) direct = direct && v != unit_axis;
  for (std::size_t i = 0; i < value.size() && i < target.axes.size(); ++i) {
    const int v = value[value.size() - 1 - i];
    if (v != unit_axis) state.unite(v, target.axes[target.axes.size() - 1 - i]);
  }
  ++target.version;
  const std::string new_buffer = target.buffer();

  pending_node node;
  if (direct) {  // the value's own node writes the target
    node = std::move(state.nodes.back());
    state.nodes.pop_back();
  } else {
    node.space = target.axes;
    node.reduced.assign(node.space.size(), false);
    node.reads = reads;
    node.dtype = torch_dtype(T::value_dtype);
    node.statement = static_cast<int>(Index);
  }
  node.buffer = new_buffer;
  node.writes_target = true;
  if (in_place) {
    node.star_reads.push_back(old_buffer);
    for (int r : state.readers(old_buffer)) {
      node.weak_reads.emplace_back();
      node.weak_reads.back().first = state.nodes[static_cast<std::size_t>(r)].buffer;
      node.weak_reads.back().second = new_buffer;
    }
  }
  target.itemsize = detail::dtype_itemsize(node.dtype);
  state.nodes.push_back(std::move(node));
}

/// The strides of a contiguous buffer with `axes` read over a node's
/// variables (`space` axes listed in `order`; "4096*d0 + d1" as {4096, 1}),
/// and the sizes of the variables it uses.
struct strided_index {
  std::vector<std::int64_t> strides, sizes;
};
/// The size hint of axis symbol `a` (1 for a size-1 axis, `unit_axis`).
constexpr std::int64_t axis_hint(const std::vector<std::int64_t>& hint, int a) {
  return a == unit_axis ? std::int64_t{1} : hint[static_cast<std::size_t>(a)];
}

constexpr strided_index index_of(const std::vector<int>& axes, const std::vector<int>& space,
                                 const std::vector<std::size_t>& order, const std::vector<std::int64_t>& hint) {
  const std::ptrdiff_t offset = static_cast<std::ptrdiff_t>(space.size()) - static_cast<std::ptrdiff_t>(axes.size());
  strided_index result;
  for (std::size_t position : order) {
    const std::ptrdiff_t b = static_cast<std::ptrdiff_t>(position) - offset;
    if (b < 0 || axes[static_cast<std::size_t>(b)] == unit_axis) continue;
    std::int64_t stride = 1;
    for (std::size_t c = static_cast<std::size_t>(b) + 1; c < axes.size(); ++c) stride *= axis_hint(hint, axes[c]);
    result.strides.push_back(stride);
    result.sizes.push_back(axis_hint(hint, space[position]));
  }
  return result;
}

/// The graph of the lowered nodes, with prime size hints per symbol class.
constexpr graph build_graph(const lowering& state) {
  constexpr std::int64_t primes[] = {31,  37,  41,  43,  47,  53,  59,  61,  67,  71,  73,  79,  83,  89,  97,
                                     101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173,
                                     179, 181, 191, 193, 197, 199, 211, 223, 227, 229, 233, 239, 241, 251};
  std::vector<std::int64_t> hint(state.parent.size(), 0);
  std::size_t classes = 0;
  for (std::size_t s = 0; s < state.parent.size(); ++s) {
    const auto root = static_cast<std::size_t>(state.find(static_cast<int>(s)));
    if (hint[root] == 0) hint[root] = primes[classes++ % std::size(primes)];
    hint[s] = hint[root];
  }
  graph g;
  for (const pending_node& n : state.nodes) {
    std::vector<std::size_t> order;  // kept axes, then reduced axes (Inductor's ranges)
    for (std::size_t d = 0; d < n.space.size(); ++d)
      if (!n.reduced[d]) order.push_back(d);
    for (std::size_t d = 0; d < n.space.size(); ++d)
      if (n.reduced[d]) order.push_back(d);
    node_spec spec;
    spec.name = n.buffer;
    spec.kind = n.kind;
    spec.dtype = n.dtype;
    for (std::size_t d = 0; d < n.space.size(); ++d)
      (n.reduced[d] ? spec.rnumel : spec.numel) *= axis_hint(hint, n.space[d]);
    const auto memory = [&](const std::string& buffer, const std::vector<int>& axes, std::int64_t itemsize) {
      const strided_index index = index_of(axes, n.space, order, hint);
      std::int64_t bytes = itemsize;
      for (std::int64_t s : index.sizes) bytes *= s;
      return affine_dep(buffer, 0, index.strides, index.sizes, bytes);
    };
    for (const read& r : n.reads) spec.reads.push_back(memory(r.buffer, r.axes, r.itemsize));
    for (const std::string& b : n.star_reads) spec.reads.push_back(star_dep(b));
    for (const auto& [b, m] : n.weak_reads) spec.reads.push_back(weak_dep(b, m));
    std::vector<int> written = n.space;  // the kept-axes shape of the output
    for (std::size_t d = 0; d < written.size(); ++d)
      if (n.reduced[d]) written[d] = unit_axis;
    spec.writes.push_back(memory(n.buffer, written, detail::dtype_itemsize(n.dtype)));
    g.add_node(std::move(spec));
  }
  for (const leaf_state& l : state.leaves)
    for (const std::string& o : state.outputs)
      if (o == l.name && l.version > 0) g.add_output(l.buffer());
  g.finalize();
  return g;
}

}  // namespace lowering_detail

/// The lowering of program `P`: its nodes before size hints, in order.
template <class P>
constexpr lowering_detail::lowering lower() {
  lowering_detail::lowering state;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (lowering_detail::lower_statement<I, std::remove_cvref_t<decltype(hana::at_c<I>(std::declval<P>().statements))>>(
         state),
     ...);
  }
  (std::make_index_sequence<decltype(hana::length(std::declval<P>().statements))::value>{});
  hana::unpack(P::named_leaves, [&](auto... t) {
    const auto add_output = [&](auto leaf) {
      using L = typename decltype(leaf)::type;
      if constexpr (requires { L::role_of; })
        if constexpr (L::role_of == role::out || L::role_of == role::inout)
          state.outputs.push_back(lowering_detail::name_of<L>());
    };
    (add_output(t), ...);
  });
  return state;
}

/// The scheduler graph of program `P` (computable in constant evaluation).
template <class P>
constexpr graph graph_of() {
  return lowering_detail::build_graph(lower<P>());
}
/// The scheduler graph of `prog`.
template <class... S>
constexpr graph graph_of(const program<S...>&) {
  return graph_of<program<S...>>();
}

}  // namespace fusedsl
