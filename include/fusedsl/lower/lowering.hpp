/// @file lowering.hpp
/// Lowering of a program to the scheduler's graph, in constant evaluation:
/// each distinct reduction, scan (and each `fx::realize`d value) of a
/// statement becomes a node that writes a buffer; the rest of the statement's value is
/// inlined into one pointwise node that writes the target (or, when the
/// value is just a reduction that fits the target, the reduction writes the
/// target itself). A scan is a reduction node, as Inductor's `ir.Scan` is:
/// its space is (the axes it keeps, its axis as the reduced one), but it
/// writes every element of that space. Writing a placeholder that already holds a value
/// (an `inout`, or a second write) is an in-place update, recorded as
/// Inductor records mutations: a StarDep on the old buffer and WeakDeps on
/// its earlier readers.
///
/// Sizes are run-time values, so the graph carries size hints: axes that
/// broadcasting proves equal share a symbol, each symbol gets a distinct
/// prime as its hint, and two iteration spaces have equal hinted numel
/// exactly when they are products of the same symbols.
#pragma once
#include <algorithm>    // std::find
#include <array>        // std::array
#include <cstdint>      // std::int64_t
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include <fusedsl/expr/traverse.hpp>            // post_order, first_index_of, makes_node, is_index_node
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
  bool indirect = false;      ///< a gather's read at loaded indices: a StarDep (docs/fusion.md)
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
  bool scan = false;          ///< a scan: it writes its whole space, reduced axis included
  std::vector<read> reads;
  std::vector<std::string> star_reads;
  std::vector<std::pair<std::string, std::string>> weak_reads;  ///< (buffer, mutating buffer)
  dtype value_dtype = dtype::f32;                               ///< element type of the buffer it writes
  int statement = -1;                                           ///< the statement it comes from
  int distinct = -1;           ///< its position among the statement's distinct nodes; -1: the statement's value
  bool writes_target = false;  ///< it writes the statement's target
};

/// A placeholder's state while lowering: its axes and its current buffer.
struct leaf_state {
  std::string name;
  std::vector<int> axes;
  int version = 0;            ///< writes so far
  bool holds_value = true;    ///< version 0 is a value (inputs, inout) rather than unwritten memory
  std::string buffer;         ///< the current buffer: the name, then name@1, name@2, ... after each write
  std::int64_t itemsize = 4;  ///< bytes per element of the current buffer (that of the node that wrote it)
  /// A write: the next version becomes the current buffer.
  constexpr void write() {
    ++version;
    buffer = name + "@" + detail::to_decimal(version);
  }
};

/// What the lowering needs to know of one subexpression: the kind of thing it is.
enum class cell_kind : unsigned char {
  node,         ///< a reduction, a scan or a realized value: a node of its own
  pointwise,    ///< inlined into the loop that reads it
  placeholder,  ///< a named tensor
  tensor,       ///< a tensor inside the expression: an input of its own
  scalar,       ///< constants and params: no memory
  index,        ///< `fx::index<A>`: no memory (Inductor's index expressions), size 1 on each of its axes
  gathered,     ///< a gather's x (its operand): the whole buffer read at indices, size 1 along the axis
};

/// One subexpression of a statement's value, as plain data. A statement is
/// lowered from its subexpressions in post-order (operands before their node),
/// so that a program instantiates one small description per subexpression
/// type and the lowering itself is ordinary code, compiled once.
struct cell {
  cell_kind kind = cell_kind::scalar;
  int arity = 0;                   ///< operands (pointwise nodes; a node has one)
  int first = 0;                   ///< nodes: the first cell of the same type (a repeated subexpression is one node)
  dtype value_dtype = dtype::f32;  ///< element type of its value
  std::string_view name;           ///< placeholders: the name
  const char* op = nullptr;        ///< nodes: the reduction's or scan's name, or "realize"
  bool holds_value = false;        ///< placeholders: version 0 is a value (in, inout)
  int rank = 0;                    ///< placeholders and index leaves: their rank; nodes: the operand's rank
  bool reduction = false;          ///< nodes: a reduction or a scan (else a realized value)
  bool scan = false;               ///< nodes: a scan (its value keeps its axis)
  bool keep_axes = false;          ///< reductions: reduced axes stay as size-1 axes; gathered leaves: the axis too
  int axis_count = 0;              ///< reductions: reduced axes listed (0: all); scans: 1
  const int* axes = nullptr;       ///< reductions and scans: the axes listed, negative ones from the end
  int gathered_axis = 0;           ///< gathered leaves: the gathered axis of x
  int index_trailing = 0;          ///< gathers: innermost axes their indices (operand 1) lack (index_trailing_axes)
};

/// Operand count of a pointwise node.
template <class E>
inline constexpr int arity_of = 0;
template <class Op, class... Args>
inline constexpr int arity_of<pointwise<Op, Args...>> = sizeof...(Args);

/// The description of subexpression `E`.
template <class E>
constexpr cell cell_of() {
  cell c;
  c.value_dtype = E::value_dtype;
  if constexpr (makes_node<E>) {
    c.kind = cell_kind::node;
    c.arity = 1;
    if constexpr (is_reduction_node<E> || is_scan_node<E>) {
      c.reduction = true;
      if constexpr (is_scan_node<E>) c.scan = true;
      else c.keep_axes = E::keep_axes;
      c.op = E::op_type::name;
      c.rank = decltype(std::declval<E>().arg)::rank;
      c.axis_count = E::axes_type::count;
      c.axes = E::axes_type::values;
    } else {
      c.op = "realize";
    }
  } else if constexpr (is_pointwise_node<E>) {
    c.kind = cell_kind::pointwise;
    c.arity = arity_of<E>;
    c.index_trailing = index_trailing_axes<E>;
  } else if constexpr (is_gathered_leaf<E>) {
    c.kind = cell_kind::gathered;
    c.arity = 1;
    c.gathered_axis = E::axis;
    c.keep_axes = E::rank == E::source_type::rank;
  } else if constexpr (requires { E::role_of; }) {
    c.kind = cell_kind::placeholder;
    c.name = E::name.view();
    c.holds_value = E::role_of == role::in || E::role_of == role::inout;
    c.rank = E::rank;
  } else if constexpr (requires { std::declval<E>().view; }) {
    c.kind = cell_kind::tensor;
  } else if constexpr (is_index_node<E>) {
    c.kind = cell_kind::index;
    c.rank = E::rank;
  }
  return c;
}

/// Cell `c` with its `first`.
constexpr cell with_first(cell c, std::size_t first) {
  c.first = static_cast<int>(first);
  return c;
}

/// The subexpressions of a statement's value (a post-order type list), described once per value type.
template <class List>
struct cells_of;
template <class... E>
struct cells_of<detail::type_list<E...>> {
  static constexpr std::array<cell, sizeof...(E)> value{with_first(cell_of<E>(), detail::first_index_of<E, E...>())...};
};

/// A placeholder as a cell (a statement's target).
template <class L>
inline constexpr cell target_cell = cell_of<L>();

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

  /// The state of placeholder `p` (a placeholder cell), created on first sight.
  constexpr leaf_state& leaf(const cell& p) {
    for (auto& l : leaves)  // one placeholder type per name: program checks it
      if (l.name == p.name) return l;
    leaf_state l;  // filled member by member: nvcc's constexpr mishandles aggregates holding strings
    // Copied character by character: std::string's string_view constructor
    // compares the data pointer with null, which g++ cannot fold for a
    // template parameter object (the name) when null-pointer checks are kept
    // (-fsanitize=address,undefined).
    for (char c : p.name) l.name.push_back(c);
    l.buffer = l.name;
    l.holds_value = p.holds_value;
    l.itemsize = static_cast<std::int64_t>(size_of(p.value_dtype));
    // A dynamic rank is planned as one axis: the executor checks the real
    // shapes of every fused group before it runs it fused.
    for (int i = 0; i < (p.rank == dynamic_rank ? 1 : p.rank); ++i) l.axes.push_back(new_symbol());
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

/// Lowering of one statement's value (statement `index`, subexpressions `cells` in post-order).
struct statement_lowering {
  // Pointers, not a reference and a span: nvcc's front end takes a class
  // with those members for a non-literal type.
  lowering* state;
  const cell* cells;
  std::size_t index;
  std::vector<int> operands, operand_start;  ///< per cell, its operands' positions: operands[operand_start[i]...]
  std::vector<int> distinct;                 ///< the first node cell of each node type, in order
  std::vector<std::string> buffers;          ///< per distinct node, once lowered
  std::vector<std::vector<int>> shapes;      ///< per distinct node, once lowered
  int tensors = 0;                           ///< tensors met so far (each an input of its own)

  constexpr statement_lowering(lowering& s, std::span<const cell> c, std::size_t i)
      : state(&s), cells(c.data()), index(i) {
    std::vector<int> stack;  // roots of the subtrees read so far
    for (std::size_t p = 0; p < c.size(); ++p) {
      const cell& e = cells[p];
      operand_start.push_back(static_cast<int>(operands.size()));
      operands.insert(operands.end(), stack.end() - e.arity, stack.end());
      stack.resize(stack.size() - static_cast<std::size_t>(e.arity));
      stack.push_back(static_cast<int>(p));
      if (e.kind == cell_kind::node && e.first == static_cast<int>(p)) distinct.push_back(e.first);
    }
    operand_start.push_back(static_cast<int>(operands.size()));
    buffers.resize(distinct.size());
    shapes.resize(distinct.size());
  }

  /// The symbolic shape of cell `p`, adding its reads to `reads` and lowering
  /// the nodes below it on first sight.
  constexpr std::vector<int> visit(int p, std::vector<read>& reads) {
    const cell& e = cells[static_cast<std::size_t>(p)];
    switch (e.kind) {
      case cell_kind::node: {
        const auto k =
            static_cast<std::size_t>(std::find(distinct.begin(), distinct.end(), e.first) - distinct.begin());
        if (buffers[k].empty()) lower_node(p, k);
        add_read(reads, buffers[k], shapes[k], static_cast<std::int64_t>(size_of(e.value_dtype)));
        return shapes[k];
      }
      case cell_kind::pointwise: {
        std::vector<int> result;
        const int first = operand_start[static_cast<std::size_t>(p)];
        for (int o = first; o < operand_start[static_cast<std::size_t>(p) + 1]; ++o) {
          const std::size_t before = reads.size();
          std::vector<int> axes = visit(operands[static_cast<std::size_t>(o)], reads);
          if (o == first + 1 && e.index_trailing > 0) {  // index_select's indices stand along its axis
            for (std::size_t r = before; r < reads.size(); ++r)
              reads[r].axes.insert(reads[r].axes.end(), static_cast<std::size_t>(e.index_trailing), unit_axis);
            axes.insert(axes.end(), static_cast<std::size_t>(e.index_trailing), unit_axis);
          }
          result = state->broadcast(result, axes);
        }
        return result;
      }
      case cell_kind::gathered: {
        const std::size_t before = reads.size();
        std::vector<int> axes =
            visit(operands[static_cast<std::size_t>(operand_start[static_cast<std::size_t>(p)])], reads);
        for (std::size_t r = before; r < reads.size(); ++r) reads[r].indirect = true;
        // The indices give the positions along the gathered axis: size 1, or dropped.
        if (e.keep_axes) axes[static_cast<std::size_t>(e.gathered_axis)] = unit_axis;
        else axes.erase(axes.begin() + e.gathered_axis);
        return axes;
      }
      case cell_kind::placeholder: {
        const leaf_state& l = state->leaf(e);
        add_read(reads, l.buffer, l.axes, l.itemsize);
        return l.axes;
      }
      case cell_kind::tensor: {
        const std::vector<int> axes{state->new_symbol()};
        add_read(reads, "tensor" + detail::to_decimal(tensors++), axes, 4);  // planned as float32
        return axes;
      }
      case cell_kind::index: return std::vector<int>(static_cast<std::size_t>(e.rank), unit_axis);
      default: return {};
    }
  }

  constexpr void lower_node(int p, std::size_t k) {
    const cell& e = cells[static_cast<std::size_t>(p)];
    const int operand = operands[static_cast<std::size_t>(operand_start[static_cast<std::size_t>(p)])];
    pending_node node;
    node.space = visit(operand, node.reads);
    if (e.reduction) {
      node.kind = node_kind::reduction;
      const bool dynamic = e.rank == dynamic_rank && e.axis_count > 0;
      if (dynamic) node.space = {state->new_symbol(), state->new_symbol()};  // planned as one kept and one reduced axis
      const int rank = static_cast<int>(node.space.size());
      node.reduced.assign(node.space.size(), e.axis_count == 0);
      if (dynamic) node.reduced[1] = true;
      else
        for (int i = 0; i < e.axis_count; ++i) {
          const int a = e.axes[i];
          node.reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
        }
      node.scan = e.scan;
      for (std::size_t d = 0; d < node.space.size(); ++d) {
        if (!node.reduced[d] || e.scan) shapes[k].push_back(node.space[d]);
        else if (e.keep_axes) shapes[k].push_back(unit_axis);
      }
    } else {  // realize
      node.reduced.assign(node.space.size(), false);
      shapes[k] = node.space;
    }
    node.value_dtype = e.value_dtype;
    node.statement = static_cast<int>(index);
    node.distinct = static_cast<int>(k);
    buffers[k] = node.buffer = "s" + detail::to_decimal(static_cast<std::int64_t>(index)) + "." + e.op +
                               detail::to_decimal(static_cast<std::int64_t>(k));
    state->nodes.push_back(std::move(node));
  }
};

/// Lowers statement `index` (value `cells`, in post-order; target `target`) into `state`.
constexpr void lower_statement(lowering& state, std::size_t index, std::span<const cell> cells,
                               const cell& target_leaf) {
  statement_lowering lowering_of(state, cells, index);
  std::vector<read> reads;
  reads.reserve(cells.size());  // at most one per cell: no read is moved to a larger array
  std::vector<int> value = lowering_of.visit(static_cast<int>(cells.size()) - 1, reads);
  const cell& root = cells.back();

  leaf_state& target = state.leaf(target_leaf);
  const std::string old_buffer = target.buffer;
  const bool in_place = target.version > 0 || target.holds_value;
  const bool old_written_here = target.version > 0;  // by an earlier statement of this program
  // The value broadcasts into the target: aligned symbols are equal.
  while (value.size() > target.axes.size() && value.front() == unit_axis) value.erase(value.begin());
  // The value's own node writes the target when it covers it one to one: no
  // kept reduced (size-1) axis would have to broadcast into the target.
  bool direct = root.kind == cell_kind::node && value.size() == target.axes.size();
  for (int v : value) direct = direct && v != unit_axis;
  for (std::size_t i = 0; i < value.size() && i < target.axes.size(); ++i) {
    const int v = value[value.size() - 1 - i];
    if (v != unit_axis) state.unite(v, target.axes[target.axes.size() - 1 - i]);
  }
  target.write();
  const std::string& new_buffer = target.buffer;

  pending_node node;
  if (direct) {  // the value's own node writes the target
    node = std::move(state.nodes.back());
    state.nodes.pop_back();
  } else {
    node.space = target.axes;
    node.reduced.assign(node.space.size(), false);
    node.reads = std::move(reads);
    node.value_dtype = target_leaf.value_dtype;
    node.statement = static_cast<int>(index);
  }
  node.buffer = new_buffer;
  node.writes_target = true;
  if (in_place) {
    // The write waits for the previous version's writer (a StarDep), unless that writer is
    // an earlier statement, this node reads the version it replaces and nothing else does:
    // the read orders the two already, and a StarDep on the writer's own buffer would keep
    // them apart ("memory deps did not match"). Inductor, whose graphs are functionalized,
    // sees such updates as a chain of values with one write back, and fuses them.
    bool reads_old = false;
    for (const read& r : node.reads) reads_old = reads_old || r.buffer == old_buffer;
    if (!(old_written_here && reads_old && state.readers(old_buffer).empty())) node.star_reads.push_back(old_buffer);
    for (int r : state.readers(old_buffer)) {
      node.weak_reads.emplace_back();
      node.weak_reads.back().first = state.nodes[static_cast<std::size_t>(r)].buffer;
      node.weak_reads.back().second = new_buffer;
    }
  }
  target.itemsize = static_cast<std::int64_t>(size_of(node.value_dtype));
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

/// The smallest prime above `p`: the size hint of the next symbol class.
constexpr std::int64_t next_prime_after(std::int64_t p) {
  for (std::int64_t q = p + 1;; ++q) {
    bool prime = q > 1;
    for (std::int64_t d = 2; prime && d * d <= q; ++d) prime = q % d != 0;
    if (prime) return q;
  }
}

/// The first size hint: small primes (2, 3, ...) would make products of other
/// symbols coincide with a single symbol's hint too easily.
inline constexpr std::int64_t first_size_hint = 31;

/// The graph of the lowered nodes, with a distinct prime size hint per symbol
/// class (31, 37, 41, ...; as many as there are classes).
constexpr graph build_graph(const lowering& state) {
  std::vector<std::int64_t> hint(state.parent.size(), 0);
  std::int64_t last_hint = first_size_hint - 1;
  for (std::size_t s = 0; s < state.parent.size(); ++s) {
    const auto root = static_cast<std::size_t>(state.find(static_cast<int>(s)));
    if (hint[root] == 0) hint[root] = last_hint = next_prime_after(last_hint);
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
    spec.reads.reserve(n.reads.size() + n.star_reads.size() + n.weak_reads.size());
    spec.name = n.buffer;
    spec.kind = n.kind;
    spec.dtype = element_type_of(n.value_dtype);
    for (std::size_t d = 0; d < n.space.size(); ++d)
      (n.reduced[d] ? spec.rnumel : spec.numel) *= axis_hint(hint, n.space[d]);
    const auto memory = [&](const std::string& buffer, const std::vector<int>& axes, std::int64_t itemsize) {
      const strided_index index = index_of(axes, n.space, order, hint);
      std::int64_t bytes = itemsize;
      for (std::int64_t s : index.sizes) bytes *= s;
      return affine_dep(buffer, 0, index.strides, index.sizes, bytes);
    };
    for (const read& r : n.reads) {
      if (r.indirect) {  // the whole buffer: its size hint
        std::int64_t bytes = r.itemsize;
        for (int a : r.axes) bytes *= axis_hint(hint, a);
        spec.reads.push_back(star_dep(r.buffer, bytes));
      } else {
        spec.reads.push_back(memory(r.buffer, r.axes, r.itemsize));
      }
    }
    for (const std::string& b : n.star_reads) spec.reads.push_back(star_dep(b));
    for (const auto& [b, m] : n.weak_reads) spec.reads.push_back(weak_dep(b, m));
    std::vector<int> written = n.space;  // the kept-axes shape of the output (a scan's: all of it)
    for (std::size_t d = 0; d < written.size(); ++d)
      if (n.reduced[d] && !n.scan) written[d] = unit_axis;
    spec.writes.push_back(memory(n.buffer, written, static_cast<std::int64_t>(size_of(n.value_dtype))));
    g.add_node(std::move(spec));
  }
  for (const leaf_state& l : state.leaves)
    for (const std::string& o : state.outputs)
      if (o == l.name && l.version > 0) g.add_output(l.buffer);
  g.finalize();
  return g;
}

}  // namespace lowering_detail

namespace lowering_detail {
/// True for a placeholder whose final value the program must store (out, inout).
template <class L>
constexpr bool is_output_leaf() {
  if constexpr (requires { L::role_of; }) return L::role_of == role::out || L::role_of == role::inout;
  else return false;
}

/// The lowering of the program of statements `S`, then its outputs (among named leaves `L`).
template <class... S, class... L>
constexpr lowering lower_program(detail::type_list<S...>, detail::type_list<L...>) {
  lowering state;
  std::size_t index = 0;
  (lower_statement(state, index++, cells_of<typename detail::post_order<typename S::value_type>::type>::value,
                   target_cell<typename S::target_type>),
   ...);
  const auto add_output = [&](std::string_view name) {
    state.outputs.emplace_back();
    for (char c : name) state.outputs.back().push_back(c);  // see lowering::leaf
  };
  ((is_output_leaf<L>() ? add_output(L::name.view()) : void()), ...);
  return state;
}
}  // namespace lowering_detail

/// The lowering of program `P`: its nodes before size hints, in order.
template <class P>
constexpr lowering_detail::lowering lower() {
  return lowering_detail::lower_program(typename P::statement_list{}, typename P::named_leaf_list{});
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
