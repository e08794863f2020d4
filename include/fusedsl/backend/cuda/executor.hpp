/// @file executor.hpp
/// Runs a program on a CUDA device: each fused group of the plan is one
/// launch of one kernel class (kernels.hpp), chosen from the group's shape
/// at run time: pointwise (all nodes over one space), rows (reductions and
/// scans over the same axes with pointwise nodes over their operand; a scan
/// alone along any axis), columns (a
/// reduction over leading axes: two launches), split (few long rows: two
/// launches). Other groups, and every group with `fx::cuda_unfused`, run
/// node by node. Values that stay inside a group live in registers; buffers
/// between groups come from a device pool kept per program, device and
/// stream and reused across runs. Every launch is checked.
#pragma once
#include <algorithm>  // std::min, std::max
#include <array>      // std::array
#include <atomic>     // std::atomic
#include <bit>        // std::bit_ceil, std::countr_one, std::popcount, std::has_single_bit
#include <cstdint>    // std::int64_t, std::uint64_t, std::uintptr_t
#include <cstring>    // std::memcpy
#include <deque>      // std::deque
#include <mutex>      // std::mutex, std::lock_guard
#include <string>     // std::string
#include <utility>    // std::exchange
#include <vector>     // std::vector

#include <cuda_runtime_api.h>  // cudaGetLastError, cudaMalloc, cudaDeviceGetAttribute

#include <fusedsl/backend/cuda/kernels.hpp>        // the kernels, group_args, is_param_leaf
#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_index, node_table
#include <fusedsl/core/config.hpp>                 // FUSEDSL_CUDA_* knobs
#include <fusedsl/core/error.hpp>                  // error
#include <fusedsl/lower/lowering.hpp>              // lower: node names for messages
#include <fusedsl/program/program.hpp>             // program
#include <fusedsl/runtime/cuda_target.hpp>         // cuda_target
#include <fusedsl/runtime/describe_nodes.hpp>      // call_state, describe, find_node_entry
#include <fusedsl/runtime/kernel_class.hpp>        // kernel_class, solo_class, shape_of_group
#include <fusedsl/runtime/run_program.hpp>         // run_program
#include <fusedsl/tensor/detail/cuda_memory.hpp>   // check_cuda, cuda_allocate, cuda_free

namespace fusedsl {

namespace cuda_detail {

using detail::address;
using detail::buffer_home;
using detail::call_state;
using detail::group_schedule;
using detail::group_shape;
using detail::kernel_class;
using detail::node_runtime;
using detail::split_rule;

/// Most threads per row (the row kernel's launch bound); rows get
/// `chunk_elements` elements per thread and chunk.
inline constexpr int row_threads = FUSEDSL_CUDA_ROW_THREADS;
static_assert(std::has_single_bit(static_cast<unsigned>(row_threads)) && row_threads >= 256 && row_threads <= 1024,
              "fusedsl: FUSEDSL_CUDA_ROW_THREADS must be a power of two from 256 to 1024");
/// Most threads per row and per block of the row kernel's `Packed` form.
inline constexpr int packed_row_threads = FUSEDSL_CUDA_PACKED_ROW_THREADS;
static_assert(std::has_single_bit(static_cast<unsigned>(packed_row_threads)) && packed_row_threads >= 32 &&
                  packed_row_threads <= 1024,
              "fusedsl: FUSEDSL_CUDA_PACKED_ROW_THREADS must be a power of two from 32 to 1024");

/// Device memory that grows on demand and is kept for the next run.
class device_buffer {
 public:
  device_buffer() = default;
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  device_buffer& operator=(device_buffer&&) = delete;
  ~device_buffer() { detail::cuda_free(data_); }
  /// At least `bytes` bytes (contents not kept when it grows).
  void* reserve(std::size_t bytes) {
    if (bytes > bytes_) {
      detail::cuda_free(data_);
      data_ = nullptr, bytes_ = 0;
      data_ = detail::cuda_allocate(bytes);
      bytes_ = bytes;
    }
    return data_;
  }
  /// At least `bytes` bytes, zero when first handed out (set on `stream`
  /// when it grows); users leave it zero again (`last_to_arrive`).
  void* reserve_zeroed(std::size_t bytes, cudaStream_t stream) {
    if (bytes <= bytes_) return data_;
    reserve(bytes);
    detail::check_cuda(cudaMemsetAsync(data_, 0, bytes_, stream), "cudaMemsetAsync");
    return data_;
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Device buffers of one program between its groups, kept across runs. One
/// program may run at the same time on several devices, streams and host
/// threads: each run leases a set of buffers of its own, from its device and
/// stream. A set is reused only on the stream it was last used on, whose
/// order keeps the earlier run's kernels before the next run's writes.
class device_pool {
  struct entry {
    int device;
    cudaStream_t stream;
    bool in_use;
    std::vector<device_buffer> buffers;
  };

 public:
  /// A set of buffers held by one run; returned to the pool when destroyed.
  class lease {
   public:
    lease(device_pool& pool, entry& held) : pool_(pool), held_(held) {}
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;
    ~lease() {
      const std::lock_guard<std::mutex> hold(pool_.mutex_);
      held_.in_use = false;
    }
    std::vector<device_buffer>& buffers() { return held_.buffers; }

   private:
    device_pool& pool_;
    entry& held_;  // a deque's elements stay where they are while others are added
  };

  /// `count` buffers of the current device for a run on `stream`.
  lease acquire(cudaStream_t stream, std::size_t count) {
    int device = 0;
    detail::check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    const std::lock_guard<std::mutex> hold(mutex_);
    for (entry& e : entries_)
      if (!e.in_use && e.device == device && e.stream == stream) {
        e.in_use = true;
        return lease(*this, e);
      }
    entries_.push_back(entry{device, stream, true, std::vector<device_buffer>(count)});
    return lease(*this, entries_.back());
  }

 private:
  std::mutex mutex_;
  std::deque<entry> entries_;
};

/// Throws a `fusedsl::error` naming the kernel class, its nodes and the
/// CUDA message when the last launch failed.
inline void check_launch(const char* kernel_class, const std::string& nodes) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    throw error(std::string("fusedsl: CUDA ") + kernel_class + " kernel for nodes [" + nodes +
                "] failed: " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

/// Multiprocessors of the current device.
inline int multiprocessors() {
  int device = 0, count = 0;
  detail::check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  detail::check_cuda(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return count;
}

/// Per program slot: bytes of a param's value (0 for other leaves), the
/// placeholder it reads (-1 for none), its element size, the node it reads
/// (-1 for none), whether the kernels compute it from its offsets
/// (`is_computed_leaf`: no load of its own at the element).
struct slot_info {
  int param_bytes = 0, placeholder = -1, element_bytes = 0, producer = -1;
  bool computed = false;
  bool held = false;  ///< inside the operand its node reads from its held source (rows.hpp, `held_source`)
};
template <class D, int J, std::size_t S>
constexpr void add_slot_infos(slot_info* infos) {
  if constexpr (S < leaf_slots<loop_t<D, J>>()) {
    using L = leaf_at<loop_t<D, J>, S>;
    infos[slot_base<D>[J] + static_cast<int>(S)] = {is_param_leaf<L>
                                                        ? static_cast<int>(sizeof(element_t<L::value_dtype>))
                                                        : 0,
                                                    memory_leaf_index<D, L>(),
                                                    static_cast<int>(sizeof(leaf_storage_t<L>)),
                                                    producer<D, J, L>(),
                                                    is_computed_leaf<L>,
                                                    held_slot<D, J, S>()};
    add_slot_infos<D, J, S + 1>(infos);
  }
}
/// Per node: stored sizes and the largest accumulator state.
struct node_info {
  int value_bytes = 0, target_bytes = 0, state_bytes = 0;
  bool reduction = false, scan = false;
  int held_source = -1;  ///< rows.hpp, `held_source`
};
template <class D>
struct program_info {
  std::array<slot_info, slot_base<D>[node_count<D>] + 1> slots{};
  std::array<node_info, node_count<D>> nodes{};
  int smallest_bytes = 16;
  bool any_reduction = false;  ///< a reduction or a scan: the row kernels are instantiated
};
template <class D, int... J>
constexpr program_info<D> make_program_info(std::integer_sequence<int, J...>) {
  program_info<D> info;
  (add_slot_infos<D, J, 0>(info.slots.data()), ...);
  ((info.nodes[J] = {static_cast<int>(sizeof(value_t<D, J>)), static_cast<int>(sizeof(target_element_t<D, J>)),
                     state_bytes_of<D, J>(), is_reduction_at<D, J>, is_scan_at<D, J>, held_source<D, J>}),
   ...);
  for (const slot_info& s : info.slots)
    if (s.element_bytes > 0 && s.param_bytes == 0) info.smallest_bytes = std::min(info.smallest_bytes, s.element_bytes);
  for (const node_info& n : info.nodes) {
    info.smallest_bytes = std::min({info.smallest_bytes, n.value_bytes, n.target_bytes});
    info.any_reduction = info.any_reduction || n.reduction || n.scan;
  }
  return info;
}
/// What the host needs to know of program `D`'s nodes and slots.
template <class D>
inline constexpr program_info<D> info_of = make_program_info<D>(std::make_integer_sequence<int, node_count<D>>{});

/// Elements per thread of the vectorized pointwise kernel: 16 bytes of the
/// smallest element type the program stores or loads.
template <class D>
inline constexpr int vector_width = 16 / info_of<D>.smallest_bytes;

/// The entry points of node (S, K) of program `P` in the CUDA executor.
template <class P>
struct cuda_node_entry {
  using D = device_program_of<P>;
  using describe_fn = void (*)(call_state<P>&, node_runtime&);
  describe_fn describe = nullptr;
  int index = -1;  ///< in node_table<D>
  std::size_t element_size = 0;

  template <std::size_t S, int K>
  static cuda_node_entry make() {
    return {&detail::describe<S, K, P>, node_index<D>(static_cast<int>(S), K), detail::node_element_size<P, S, K>};
  }
};

/// Threads of a block of the split kernel.
inline constexpr int split_threads = 512;

/// Fewest elements of a row per block of the split kernel (small rows):
/// 8 per thread, two passes of its unrolled loads.
inline constexpr std::int64_t split_chunk = 4096;

/// When a CUDA device splits rows across blocks (runtime/kernel_class.hpp):
/// fewer rows than 2 per multiprocessor, each at least 16384 elements long.
inline split_rule cuda_split_rule(int sms) { return {2 * std::int64_t{sms}, 16384}; }

// The launches, as templates of the device description alone (deduced from
// the arguments), so that nvcc's host stubs name the kernels by `D`'s own
// type and never through a type that holds a placeholder's name.

/// A pointwise group: 32- or 64-bit indices.
template <class... N, class... L>
void launch_pointwise(const node_objects<device_program<std::tuple<N...>, std::tuple<L...>>>& objects,
                      const group_args<device_program<std::tuple<N...>, std::tuple<L...>>>& a, bool wide,
                      unsigned blocks, int threads, cudaStream_t stream) {
  using D = device_program<std::tuple<N...>, std::tuple<L...>>;
  constexpr int V = vector_width<D>;
  if (wide) pointwise_kernel<D, std::int64_t, V><<<blocks, threads, 0, stream>>>(objects, a);
  else pointwise_kernel<D, int, V><<<blocks, threads, 0, stream>>>(objects, a);
}

/// A row group: vectorized along the rows or not; `held`: vectorized, with
/// `held_reduction`'s operand values kept for its readers; `packed`:
/// vectorized, in the kernel's `Packed` form (rows.hpp), and held where
/// the program has a `held_reduction`.
template <class... N, class... L>
void launch_rows(const node_objects<device_program<std::tuple<N...>, std::tuple<L...>>>& objects,
                 const group_args<device_program<std::tuple<N...>, std::tuple<L...>>>& a, bool vectorized, bool held,
                 bool packed, unsigned blocks, int threads, cudaStream_t stream) {
  using D = device_program<std::tuple<N...>, std::tuple<L...>>;
  constexpr int V = vector_width<D>;
  const auto shared = static_cast<std::size_t>(merge_shared_bytes<D>(threads));
  if constexpr (has_packed_form<D, V>) {
    if (packed) {  // held, where the program has a `held_reduction` (the host's condition)
      row_kernel<D, V, held_reduction<D> >= 0, true><<<blocks, threads, shared, stream>>>(objects, a);
      return;
    }
  }
  if constexpr (held_reduction<D> >= 0) {
    if (held) {
      row_kernel<D, V, true><<<blocks, threads, shared, stream>>>(objects, a);
      return;
    }
  }
  if (vectorized) row_kernel<D, vector_width<D>><<<blocks, threads, shared, stream>>>(objects, a);
  else row_kernel<D, 1><<<blocks, threads, shared, stream>>>(objects, a);
}

/// A row group of short rows: a thread per row, `rows` rows per block.
template <class... N, class... L>
void launch_short_rows(const node_objects<device_program<std::tuple<N...>, std::tuple<L...>>>& objects,
                       const group_args<device_program<std::tuple<N...>, std::tuple<L...>>>& a, unsigned blocks,
                       int rows, std::size_t shared, cudaStream_t stream) {
  using D = device_program<std::tuple<N...>, std::tuple<L...>>;
  short_row_kernel<D><<<blocks, rows, shared, stream>>>(objects, a);
}

/// The partial states of a column group (vectorized along the columns or
/// not: `column_kernel`) or a split group (vectorized along the rows or not).
template <class... N, class... L>
void launch_partials(const node_objects<device_program<std::tuple<N...>, std::tuple<L...>>>& objects,
                     const group_args<device_program<std::tuple<N...>, std::tuple<L...>>>& a, bool columns,
                     bool vectorized, dim3 blocks, dim3 threads, cudaStream_t stream) {
  using D = device_program<std::tuple<N...>, std::tuple<L...>>;
  if (columns) {
    const auto shared = static_cast<std::size_t>(256 * largest_state<D>);
    if (vectorized) column_kernel<D, vector_width<D>><<<blocks, threads, shared, stream>>>(objects, a);
    else column_kernel<D, 1><<<blocks, threads, shared, stream>>>(objects, a);
  } else {
    // With row barriers, a cooperative launch: the runtime refuses a grid whose blocks cannot all be resident.
    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = blocks;
    config.blockDim = threads;
    config.dynamicSmemBytes = static_cast<std::size_t>(merge_shared_bytes<D>(split_threads));
    config.stream = stream;
    config.attrs = &cooperative;
    config.numAttrs = a.row_barriers ? 1 : 0;
    detail::check_cuda(vectorized ? cudaLaunchKernelEx(&config, split_kernel<D, vector_width<D>>, objects, a)
                                  : cudaLaunchKernelEx(&config, split_kernel<D, 1>, objects, a),
                       "cudaLaunchKernelEx (split rows)");
  }
}

/// Blocks of `threads` threads of the kernel `Scalar` or `Vector` (with
/// `shared` bytes of shared memory each, the same at every call) resident
/// per multiprocessor of the current device: asked of the runtime once per
/// kernel and device (devices of one process may differ).
template <auto Scalar, auto Vector>
int resident_blocks(bool vectorized, int threads, std::size_t shared) {
  constexpr int cached_devices = 64;                                // a device numbered beyond asks every time
  static std::array<std::atomic<int>, 2 * cached_devices> known{};  // 0: not asked yet
  int device = 0;
  detail::check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  std::atomic<int>* slot =
      device < cached_devices ? &known[static_cast<std::size_t>(2 * device + vectorized)] : nullptr;
  if (slot && slot->load(std::memory_order_relaxed) > 0) return slot->load(std::memory_order_relaxed);
  const void* kernel = vectorized ? reinterpret_cast<const void*>(Vector) : reinterpret_cast<const void*>(Scalar);
  int blocks = 0;
  detail::check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared),
                     "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  blocks = std::max(blocks, 1);
  if (slot) slot->store(blocks, std::memory_order_relaxed);
  return blocks;
}

/// Blocks of the column kernel (vectorized or not) resident per multiprocessor.
template <class... N, class... L>
int resident_column_blocks(const node_objects<device_program<std::tuple<N...>, std::tuple<L...>>>&, bool vectorized) {
  using D = device_program<std::tuple<N...>, std::tuple<L...>>;
  const auto shared = static_cast<std::size_t>(256 * largest_state<D>);
  return resident_blocks<&column_kernel<D, 1>, &column_kernel<D, vector_width<D>>>(vectorized, 256, shared);
}

/// Blocks of the split kernel (vectorized or not) resident per multiprocessor.
template <class... N, class... L>
int resident_split_blocks(const node_objects<device_program<std::tuple<N...>, std::tuple<L...>>>&, bool vectorized) {
  using D = device_program<std::tuple<N...>, std::tuple<L...>>;
  return resident_blocks<&split_kernel<D, 1>, &split_kernel<D, vector_width<D>>>(
      vectorized, split_threads, static_cast<std::size_t>(merge_shared_bytes<D>(split_threads)));
}

/// Bytes of the current device's L2 cache.
inline std::int64_t l2_bytes() {
  int device = 0, bytes = 0;
  detail::check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  detail::check_cuda(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute");
  return bytes;
}

/// The second stage of a column group.
template <class... N, class... L>
void launch_finish(const node_objects<device_program<std::tuple<N...>, std::tuple<L...>>>& objects,
                   const group_args<device_program<std::tuple<N...>, std::tuple<L...>>>& a, unsigned blocks,
                   cudaStream_t stream) {
  using D = device_program<std::tuple<N...>, std::tuple<L...>>;
  finish_kernel<D><<<blocks, 256, static_cast<std::size_t>(merge_shared_bytes<D>(256)), stream>>>(objects, a);
}

/// The kernel launches of one call of program `P`.
template <class P>
struct launcher {
  using D = device_program_of<P>;
  call_state<P>& call;
  const node_objects<D>& objects;
  cudaStream_t stream;
  std::vector<device_buffer>& pool;  ///< per lowered node, then partial states and split rows' arrival counters
  const std::vector<std::string>& names;
  int sms;

  /// Runs `members` (lowered positions) as one kernel of class `k`;
  /// `registers` says which members' values their readers take from
  /// registers, `per_row` which are pointwise nodes over the rows of a row
  /// group (`row_value`; spread over its space: `spread_over_rows`).
  void launch(const std::vector<int>& members, kernel_class k, const std::vector<bool>& registers,
              const std::vector<bool>& per_row) {
    constexpr auto& info = info_of<D>;
    group_args<D> a;
    const node_runtime& first = call.nodes[static_cast<std::size_t>(members[0])];
    unsigned mask = 0;
    std::string node_names;
    for (int m : members) {
      const node_runtime& n = call.nodes[static_cast<std::size_t>(m)];
      if (n.reduction) mask = n.reduced_mask;
      node_names += (node_names.empty() ? "" : ", ") + names[static_cast<std::size_t>(m)];
    }
    // Kept axes, then reduced axes, each in order; operands' strides split alike.
    int kept_axes[max_rank], reduced_axes[max_rank], nk = 0, nr = 0;
    for (int d = 0; d < first.space.rank(); ++d) (mask & (1u << d) ? reduced_axes[nr++] : kept_axes[nk++]) = d;
    struct pending {
      operand* target;
      const shape* strides;
      int bytes;              ///< element size
      bool computed = false;  ///< a computed slot: no vector load (`vector_friendly` skips it)
      bool output = false;    ///< a node's output, not a leaf
    };
    std::vector<pending> memory;
    for (std::size_t i = 0; i < members.size(); ++i) {
      const node_runtime& n = call.nodes[static_cast<std::size_t>(members[i])];
      const int j = entry_index(members[i]);
      a.active |= std::uint64_t{1} << j;
      if (registers[i]) a.in_registers |= std::uint64_t{1} << j;
      if (n.writes_target) a.stores_target |= std::uint64_t{1} << j;
      if (per_row[i]) a.per_row |= std::uint64_t{1} << j;
      for (std::size_t s = 0; s < n.leaves.size(); ++s) {
        const int slot = slot_base<D>[static_cast<std::size_t>(j)] + static_cast<int>(s);
        const address& from = n.leaves[s];
        operand& to = a.leaves[slot];
        const slot_info& si = info.slots[static_cast<std::size_t>(slot)];
        if (si.param_bytes > 0) {
          std::memcpy(&to.value, from.data, static_cast<std::size_t>(si.param_bytes));
        } else if (from.scratch < 0) {
          to.data = from.data;
          to.gathered_stride = from.gathered_stride;
          to.gathered_size = from.gathered_size;
          memory.push_back({&to, &from.strides, si.element_bytes, si.computed});
        }
      }
      if (n.out.data != nullptr && n.out.scratch < 0) {
        a.outs[j].data = n.out.data;
        const node_info& ni = info.nodes[static_cast<std::size_t>(j)];
        memory.push_back({&a.outs[j], &n.out.strides, n.writes_target ? ni.target_bytes : ni.value_bytes, false, true});
      }
    }
    coalesce(first.space, kept_axes, nk, reduced_axes, nr, memory, a.space);
    if (a.space.outer == 0) return;

    const std::int64_t total = a.space.outer * a.space.inner;
    bool wide = total >= (std::int64_t{1} << 31);
    for (const pending& p : memory) {
      std::int64_t reach = 0;
      for (int d = 0; d < a.space.kept_rank; ++d)
        reach += (a.space.kept[d] - 1) * (p.target->kept[d] < 0 ? -p.target->kept[d] : p.target->kept[d]);
      for (int d = 0; d < a.space.reduced_rank; ++d)
        reach += (a.space.reduced[d] - 1) * (p.target->reduced[d] < 0 ? -p.target->reduced[d] : p.target->reduced[d]);
      if (p.target->gathered_size > 1)  // a gathered leaf also reaches along its axis
        reach += (p.target->gathered_size - 1) *
                 (p.target->gathered_stride < 0 ? -p.target->gathered_stride : p.target->gathered_stride);
      wide = wide || reach >= (std::int64_t{1} << 31);
    }

    if (k == kernel_class::pointwise) {
      // Vectors of V along the innermost axis when it allows them for every operand (V divides
      // it, strides 0 or 1); otherwise vectors of the flattened space, each operand's contiguous
      // over the space or read element by element, the last vector cut at the space's end.
      constexpr int V = vector_width<D>;
      if (!(a.space.kept_rank > 0 && a.space.kept[a.space.kept_rank - 1] % V == 0 &&
            vector_friendly(memory, a.space, V, false)))
        for (pending& p : memory)
          p.target->access = contiguous_over(*p.target, a.space) ? vector_access::contiguous : vector_access::elements;
      const std::int64_t vectors = a.space.outer / V + (a.space.outer % V != 0);
      const int threads = 256;
      const auto blocks =
          static_cast<unsigned>(std::min<std::int64_t>((vectors + threads - 1) / threads, std::int64_t{sms} * 64));
      launch_pointwise(objects, a, wide, blocks, threads, stream);
      check_launch(name(k), node_names);
    } else if constexpr (!info.any_reduction) {
      // No reduction, so no group of another class: their kernels are not instantiated (compile time).
      throw error("fusedsl: internal: a program without reductions planned a reduction kernel");
    } else if (k == kernel_class::rows && a.space.kept_rank <= 1 && a.space.reduced_rank == 1 &&
               a.space.inner <= short_row_limit) {
      // Short rows (short_rows.hpp): a row per thread; from FUSEDSL_CUDA_SHORT_ROW_STAGED
      // elements on, the cached placeholder's rows and the pointwise nodes' outputs go through
      // shared memory where their rows are contiguous.
      const bool staged = a.space.inner >= FUSEDSL_CUDA_SHORT_ROW_STAGED;
      if (staged) choose_cached(members, a);
      if (a.cached >= 0 && !contiguous_rows(a.leaves[a.cache_source], a.space)) a.cached = -1;
      int out_bytes = 0;
      for (int m : members) {
        const int j = entry_index(m);
        const node_info& ni = info.nodes[static_cast<std::size_t>(j)];
        operand& o = a.outs[j];
        if (staged && !ni.reduction && o.data != nullptr && contiguous_rows(o, a.space)) {
          o.access = vector_access::contiguous;
          out_bytes = std::max(out_bytes, a.stores_target >> j & 1u ? ni.target_bytes : ni.value_bytes);
        }
      }
      const int inner = static_cast<int>(a.space.inner);
      int rows = 256;
      const auto shared = [&] {
        return (a.cached >= 0 ? staged_tile_bytes<D>(rows, inner) : 0) + rows * short_row_pitch(inner) * out_bytes;
      };
      while (rows > 32 && shared() > 48 * 1024) rows /= 2;  // the default limit of a block's shared memory
      const auto blocks =
          static_cast<unsigned>(std::min<std::int64_t>((a.space.outer + rows - 1) / rows, std::int64_t{sms} * 32));
      launch_short_rows(objects, a, blocks, rows, static_cast<std::size_t>(shared()), stream);
      check_launch(name(k), node_names);
    } else if (k == kernel_class::rows) {
      constexpr int V = vector_width<D>;
      const bool vectorized = rows_vectorize(memory, a, members, wide);
      const auto threads_for = [&](std::int64_t per_thread) {
        return static_cast<int>(
            std::min<std::uint64_t>(row_threads,
                                    std::bit_ceil(static_cast<std::uint64_t>(
                                        std::max<std::int64_t>(1, (a.space.inner + per_thread - 1) / per_thread)))));
      };
      // Rows of one chunk keep a placeholder several nodes read in registers
      // (rows.hpp, `row_registers`); without one, vectorized rows take two
      // chunks per thread, up to 32 elements: half the threads and merge
      // steps per row (a slightly faster row sum; bench/RESULTS.md); more
      // would leave a 64-wide bf16 row to one thread, which is slower.
      // The `Packed` form (rows.hpp, `has_packed_form`) halves a row's fixed
      // costs per element, its merges above all, at a lower occupancy: it runs
      // vectorized rows from FUSEDSL_CUDA_PACKED_ROW_MIN elements up to one
      // chunk of its own where the group merges two or more reductions per row
      // (softmax, layernorm, var_mean; with one, as in rmsnorm or argmax, the
      // lower occupancy cost more than it saved: bench/RESULTS.md); in its
      // `Held` variant only, where the program has a `held_reduction` (one
      // more kernel per program, not two).
      int reductions = 0;
      for (int m : members) reductions += info.nodes[static_cast<std::size_t>(entry_index(m))].reduction ? 1 : 0;
      bool packed = has_packed_form<D, V> && vectorized && reductions >= 2 &&
                    a.space.inner >= FUSEDSL_CUDA_PACKED_ROW_MIN &&
                    a.space.inner <= std::int64_t{packed_row_threads} * packed_chunk_elements<D, V>;
      bool held = false;
      const auto plan = [&] {
        const int per_thread = packed       ? packed_chunk_elements<D, V>
                               : vectorized ? chunk_elements<D, V>
                                            : chunk_elements<D, 1>;
        a.threads_per_row = threads_for(per_thread);
        a.cached = -1;
        if (a.space.inner <= std::int64_t{a.threads_per_row} * per_thread) choose_cached(members, a);
        if (a.cached < 0 && vectorized && !packed)
          a.threads_per_row = threads_for(std::max(per_thread, std::min(2 * per_thread, 32)));
        held = vectorized && a.space.inner <= std::int64_t{a.threads_per_row} * per_thread && holds_operand(members, a);
      };
      plan();
      if (packed && held_reduction<D> >= 0 && !held) {
        packed = false;
        plan();
      }
      const int threads = std::max(a.threads_per_row, packed ? std::min(256, packed_row_threads) : 256);
      const int rows_per_block = threads / a.threads_per_row;
      const auto blocks = static_cast<unsigned>(
          std::min<std::int64_t>((a.space.outer + rows_per_block - 1) / rows_per_block, std::int64_t{sms} * 64));
      launch_rows(objects, a, vectorized, held, packed, blocks, threads, stream);
      check_launch(name(k), node_names);
    } else {
      // Columns (`column_kernel`; vectorized: 16-byte loads and 32-bit
      // offsets): blocks of x vectors of columns (32, fewer when there are
      // fewer) by y rows, the rows cut into chunks so that the grid fills the
      // device once (one wave, no tail), each thread adding at least
      // FUSEDSL_CUDA_COLUMN_ROWS rows of a chunk. The partition depends on the sizes,
      // the device and the kernel's occupancy: the same for given sizes with
      // one build on one device. Split: chunks of 65536 elements, at most 1024 per row; more
      // and shorter ones (down to `split_chunk`) where that leaves multiprocessors without two
      // blocks (one wave: 4 per multiprocessor would make a wave and a third).
      const bool columns = k == kernel_class::columns;
      constexpr int V = vector_width<D>;
      const bool vectorized = columns ? V > 1 && !wide && a.space.kept_rank > 0 &&
                                            a.space.kept[a.space.kept_rank - 1] % V == 0 &&
                                            vector_friendly(memory, a.space, V, false)
                                      : rows_vectorize(memory, a, members, wide);
      dim3 blocks, threads(split_threads);  // columns: set below
      if (columns) {
        const std::int64_t vectors = a.space.outer / (vectorized ? V : 1);
        const int x = static_cast<int>(std::min<std::uint64_t>(32, std::bit_ceil(static_cast<std::uint64_t>(vectors))));
        const int y = 256 / x;
        const std::int64_t column_blocks = (vectors + x - 1) / x;
        const std::int64_t resident = std::int64_t{sms} * resident_column_blocks(objects, vectorized);
        a.chunks = std::clamp<std::int64_t>(resident / column_blocks, 1,
                                            std::max<std::int64_t>(1, a.space.inner / (std::int64_t{y} *
                                                                                       FUSEDSL_CUDA_COLUMN_ROWS)));
        a.chunks = std::min<std::int64_t>(a.chunks, 65535);
        blocks = dim3(static_cast<unsigned>(column_blocks), static_cast<unsigned>(a.chunks));
        threads = dim3(static_cast<unsigned>(x), static_cast<unsigned>(y));
      } else {
        // Chunks of whole passes (split.hpp).
        const std::int64_t pass = vectorized ? split_pass<D, V>(threads.x) : split_pass<D, 1>(threads.x);
        const std::int64_t passes = (a.space.inner + pass - 1) / pass;
        std::vector<int> reductions;  // the members before the one at hand that are reductions
        for (int m : members) {
          if (!reductions.empty() && reads_member({m}, reductions)) a.meet_before |= std::uint64_t{1} << entry_index(m);
          if (call.nodes[static_cast<std::size_t>(m)].reduction) reductions.push_back(m);
          else a.row_barriers = true;
        }
        a.row_barriers = a.row_barriers || a.meet_before != 0;
        if (a.row_barriers && !vectorized) {
          // The split kernel meets a row's blocks in its vectorized form only (one kernel less
          // to compile per program): node by node, each with the class it has alone.
          const split_rule rule = cuda_split_rule(sms);
          for (int m : members)
            launch({m}, solo_class(call.nodes[static_cast<std::size_t>(m)], rule), {false}, {false});
          return;
        }
        std::int64_t wave = a.space.outer;
        if (a.row_barriers) {
          // Every block of a row slot waits for the others: all resident at once (a cooperative
          // launch). The rows run in waves whose rows touch at most FUSEDSL_CUDA_SPLIT_WAVE_L2
          // percent of the L2 cache (each operand's data once, none constant over the rows or
          // along them), so that the passes after a wave's first read its rows from there, where the
          // passes saved from memory (every node's but the first) outweigh the meetings added
          // (FUSEDSL_CUDA_SPLIT_MEETING_L2). Chunks: as many as fill the device, each of as many
          // passes as the longest needs (no block waits for one longer).
          const std::int64_t capacity = std::int64_t{sms} * resident_split_blocks(objects, vectorized);
          std::int64_t row_bytes = 0, read_bytes = 0;
          for (std::size_t i = 0; i < memory.size(); ++i) {
            bool first = memory[i].target->kept[0] != 0 && memory[i].target->reduced[0] != 0;
            for (std::size_t j = 0; j < i; ++j) first = first && memory[j].target->data != memory[i].target->data;
            if (first) row_bytes += memory[i].bytes, read_bytes += memory[i].output ? 0 : memory[i].bytes;
          }
          row_bytes = std::max<std::int64_t>(1, row_bytes * a.space.inner);
          const std::int64_t l2 = l2_bytes(), wave_bytes = l2 * FUSEDSL_CUDA_SPLIT_WAVE_L2 / 100;
          std::int64_t fitting = wave_bytes > 0 ? std::max<std::int64_t>(1, wave_bytes / row_bytes) : a.space.outer;
          fitting = std::min(fitting, capacity);
          std::int64_t waves = (a.space.outer + fitting - 1) / fitting;
          const std::int64_t meetings = std::max(1, std::popcount(a.meet_before));  // per row and wave
          const auto passes_saved = static_cast<std::int64_t>(members.size()) - 1;
          const std::int64_t saved = passes_saved * read_bytes * a.space.inner * a.space.outer;
          if (saved <= (waves - 1) * meetings * l2 * FUSEDSL_CUDA_SPLIT_MEETING_L2 / 100) waves = 1;
          wave = std::min((a.space.outer + waves - 1) / waves, capacity);  // rows at once: each needs a resident block
          a.chunks = std::clamp<std::int64_t>(capacity / wave, 1, std::min<std::int64_t>(passes, 1024));
          const std::int64_t longest = (passes + a.chunks - 1) / a.chunks;  // passes of a chunk
          a.chunks = (passes + longest - 1) / longest;
        } else {
          const std::int64_t filling = (2 * std::int64_t{sms} + a.space.outer - 1) / a.space.outer;
          a.chunks =
              std::clamp<std::int64_t>(std::max(a.space.inner / 65536, std::min(filling, a.space.inner / split_chunk)),
                                       1, 1024);
          a.chunks = std::min(a.chunks, passes);
        }
        blocks = dim3(static_cast<unsigned>(a.chunks), static_cast<unsigned>(wave));
      }
      std::size_t bytes = 0;
      for (int m : members) {
        const int j = entry_index(m);
        a.work_offset[j] = static_cast<std::int64_t>(bytes);
        bytes += static_cast<std::size_t>(
                     a.space.outer * a.chunks * info.nodes[static_cast<std::size_t>(j)].state_bytes + 16) /
                 16 * 16;
      }
      a.workspace = static_cast<char*>(pool[pool.size() - 2].reserve(bytes));
      // Split rows: one launch; counters per row slot (split.hpp).
      if (!columns)
        a.arrivals = static_cast<unsigned*>(pool.back().reserve_zeroed(2 * blocks.y * sizeof(unsigned), stream));
      a.threads_per_row =
          static_cast<int>(std::min<std::uint64_t>(256, std::bit_ceil(static_cast<std::uint64_t>(a.chunks))));
      launch_partials(objects, a, columns, vectorized, blocks, threads, stream);
      check_launch(name(k), node_names);
      // Columns in several chunks: a second kernel merges them (one chunk: the column kernel
      // finishes the columns itself). (Merging in the column kernel's last
      // blocks, as split rows do, measured slower for many columns: one block per column
      // block merges what a whole grid merges here.)
      if (columns && a.chunks > 1) {
        const int per_block = 256 / a.threads_per_row;
        launch_finish(objects, a, static_cast<unsigned>((a.space.outer + per_block - 1) / per_block), stream);
        check_launch("reduction finish", node_names);
      }
    }
  }

  /// True when a node of `members` reads another one of `sources` (lowered
  /// positions): its value, or the target it writes (through the target's
  /// placeholder; the nodes are described).
  bool reads_member(const std::vector<int>& members, const std::vector<int>& sources) const {
    constexpr auto& info = info_of<D>;
    std::uint64_t group = 0;
    for (int m : sources) group |= std::uint64_t{1} << entry_index(m);
    for (int m : members) {
      const int j = entry_index(m);
      for (int s = slot_base<D>[static_cast<std::size_t>(j)]; s < slot_base<D>[static_cast<std::size_t>(j) + 1]; ++s) {
        const int from = info.slots[static_cast<std::size_t>(s)].producer;
        if (from >= 0 && (group >> from & 1u)) return true;
      }
      for (int source : sources) {
        const node_runtime& written = call.nodes[static_cast<std::size_t>(source)];
        if (source == m || !written.writes_target) continue;
        for (const address& leaf : call.nodes[static_cast<std::size_t>(m)].leaves)
          if (leaf.data == written.out.data) return true;
      }
    }
    return false;
  }

  int entry_index(int position) const {
    return node_index<D>(call.plan.statement[static_cast<std::size_t>(position)],
                         call.plan.distinct[static_cast<std::size_t>(position)]);
  }

  /// True when a row or split group runs the vectorized kernels (rows.hpp,
  /// `chunk_offset`, `uniform_leaf`): 16-byte vectors along the rows, one
  /// kept and one reduced axis, 32-bit offsets (not `wide`), reductions read
  /// constant along a row.
  template <class Pending>
  bool rows_vectorize(const std::vector<Pending>& memory, const group_args<D>& a, const std::vector<int>& members,
                      bool wide) const {
    constexpr int V = vector_width<D>;
    return V > 1 && !wide && a.space.kept_rank <= 1 && a.space.reduced_rank == 1 && a.space.reduced[0] % V == 0 &&
           vector_friendly(memory, a.space, V, true) && reductions_constant_along_rows(members, a);
  }

  /// True when every reduction's result the group reads from memory (one
  /// of another group) is constant along the group's rows (stride 0).
  bool reductions_constant_along_rows(const std::vector<int>& members, const group_args<D>& a) const {
    constexpr auto& info = info_of<D>;
    for (int m : members) {
      const int j = entry_index(m);
      for (int s = slot_base<D>[static_cast<std::size_t>(j)]; s < slot_base<D>[static_cast<std::size_t>(j) + 1]; ++s) {
        const int from = info.slots[static_cast<std::size_t>(s)].producer;
        if (from >= 0 && info.nodes[static_cast<std::size_t>(from)].reduction && a.leaves[s].data != nullptr &&
            a.leaves[s].reduced[0] != 0)
          return false;
      }
    }
    return true;
  }

  /// The first placeholder read by two or more nodes of the group and
  /// written by none is kept in registers for the row (a row of one chunk):
  /// the row kernel reads each of its elements from memory once.
  void choose_cached(const std::vector<int>& members, group_args<D>& a) const {
    constexpr auto& info = info_of<D>;
    int readers[memory_leaf_count<D> + 1] = {}, source[memory_leaf_count<D> + 1] = {};
    for (int m : members) {
      const int j = entry_index(m);
      bool seen[memory_leaf_count<D> + 1] = {};
      for (int s = slot_base<D>[static_cast<std::size_t>(j)]; s < slot_base<D>[static_cast<std::size_t>(j) + 1]; ++s) {
        const int p = info.slots[static_cast<std::size_t>(s)].placeholder;
        if (p >= 0 && a.leaves[s].data != nullptr && !seen[p]) {
          seen[p] = true;
          if (readers[p]++ == 0) source[p] = s;
        }
      }
    }
    for (int p = 0; p < memory_leaf_count<D>; ++p) {
      if (readers[p] < 2) continue;
      bool written = false;
      for (int m : members) written = written || a.outs[entry_index(m)].data == a.leaves[source[p]].data;
      if (written) continue;
      a.cached = p, a.cache_source = source[p];
      return;
    }
  }

  /// True when a row group (of rows of one chunk) runs the row kernel's
  /// `Held` form: `held_reduction` is in the group, so that a later node
  /// reads its operand values instead of computing them again (rows.hpp,
  /// `held_source`), and no later node reads the cached placeholder, whose
  /// registers then hold those values, other than inside that operand.
  bool holds_operand(const std::vector<int>& members, const group_args<D>& a) const {
    constexpr int source = held_reduction<D>;
    if constexpr (source < 0) {
      return false;
    } else {
      constexpr auto& info = info_of<D>;
      if (!(a.active >> source & 1u)) return false;
      bool read = false;
      for (int m : members) {
        const int j = entry_index(m);
        const bool reads_held = info.nodes[static_cast<std::size_t>(j)].held_source == source;
        read = read || reads_held;
        if (j <= source || a.cached < 0) continue;
        for (int s = slot_base<D>[static_cast<std::size_t>(j)]; s < slot_base<D>[static_cast<std::size_t>(j) + 1];
             ++s) {
          const slot_info& si = info.slots[static_cast<std::size_t>(s)];
          if (si.placeholder == a.cached && a.leaves[s].data != nullptr && !(reads_held && si.held)) return false;
        }
      }
      return read;
    }
  }

  /// Drops size-1 axes and merges neighbouring axes that every operand
  /// steps through as one, separately for the kept and the reduced axes.
  template <class Pending>
  static void coalesce(const shape& space, const int* kept_axes, int nk, const int* reduced_axes, int nr,
                       std::vector<Pending>& memory, space_args& out) {
    const auto merge = [&](const int* axes, int count, std::int64_t* sizes, int& rank, bool reduced) {
      int kept_here[max_rank], n = 0;
      for (int i = 0; i < count; ++i)
        if (space[axes[i]] != 1) kept_here[n++] = axes[i];
      rank = 0;
      for (int i = 0; i < n; ++i) {
        const int d = kept_here[i];
        bool joins = rank > 0;
        for (const Pending& p : memory) joins = joins && (*p.strides)[kept_here[i - 1]] == (*p.strides)[d] * space[d];
        if (joins) {
          sizes[rank - 1] *= space[d];
          for (Pending& p : memory) (reduced ? p.target->reduced : p.target->kept)[rank - 1] = (*p.strides)[d];
        } else {
          sizes[rank] = space[d];
          for (Pending& p : memory) (reduced ? p.target->reduced : p.target->kept)[rank] = (*p.strides)[d];
          ++rank;
        }
      }
    };
    merge(kept_axes, nk, out.kept, out.kept_rank, false);
    merge(reduced_axes, nr, out.reduced, out.reduced_rank, true);
    out.outer = 1, out.inner = 1;
    for (int d = 0; d < out.kept_rank; ++d) out.outer *= out.kept[d];
    for (int d = 0; d < out.reduced_rank; ++d) out.inner *= out.reduced[d];
    for (int d = 0; d < nk; ++d)
      if (space[kept_axes[d]] == 0) out.outer = 0;
    for (int d = 0; d < nr; ++d)
      if (space[reduced_axes[d]] == 0) out.inner = 0;
  }

  /// True when operand `o`'s rows (one kept and one reduced axis) lie one
  /// after another, each contiguous: the short-row kernel stages them.
  static bool contiguous_rows(const operand& o, const space_args& s) {
    return o.reduced[0] == 1 && (s.kept_rank == 0 || s.kept[0] == 1 || o.kept[0] == s.inner);
  }

  /// True when operand `o` is contiguous over the kept axes of `s` (row
  /// major) and 16-byte aligned: the pointwise kernel's `vector_access::contiguous`.
  static bool contiguous_over(const operand& o, const space_args& s) {
    if (reinterpret_cast<std::uintptr_t>(o.data) % 16 != 0) return false;
    std::int64_t stride = 1;
    for (int d = s.kept_rank - 1; d >= 0; --d) {
      if (s.kept[d] != 1 && o.kept[d] != stride) return false;
      stride *= s.kept[d];
    }
    return true;
  }

  /// True when every memory operand steps by 0 or 1 along the axis vectors
  /// run along (the innermost reduced axis when `along_reduced`: rows; else
  /// the innermost kept axis: pointwise groups, columns) and each vector of
  /// `V` starts 16-byte aligned. Computed slots (index and gathered leaves:
  /// their offsets at each element of a vector, then no load or an indirect
  /// one) take any strides.
  template <class Pending>
  static bool vector_friendly(const std::vector<Pending>& memory, const space_args& s, int V, bool along_reduced) {
    for (const Pending& p : memory) {
      if (p.computed) continue;
      const std::int64_t* kept = p.target->kept;
      const std::int64_t* reduced = p.target->reduced;
      const std::int64_t inner = along_reduced ? reduced[s.reduced_rank - 1] : kept[s.kept_rank - 1];
      if (inner == 0) continue;
      if (inner != 1 || reinterpret_cast<std::uintptr_t>(p.target->data) % 16 != 0 || V * p.bytes % 16 != 0)
        return false;
      for (int d = 0; d < s.kept_rank - (along_reduced ? 0 : 1); ++d)
        if (kept[d] * p.bytes % 16 != 0) return false;
      for (int d = 0; d < s.reduced_rank - (along_reduced ? 1 : 0); ++d)
        if (reduced[d] * p.bytes % 16 != 0) return false;
    }
    return true;
  }
};

/// Node `n`, pointwise over the rows of reduction `anchor` (`over_rows_of`),
/// as a node of the anchor's space whose leaves and output step by 0 along
/// the reduced axes: the row kernels' operands of a value per row.
inline void spread_over_rows(node_runtime& n, const node_runtime& anchor) {
  const bool dropped = n.space.rank() < anchor.space.rank();  // else the reduced axes are there, of size 1
  const auto spread = [&](shape& strides) {
    shape result;
    for (int d = 0, own = 0; d < anchor.space.rank(); ++d) {
      const bool reduced = anchor.reduced_mask & (1u << d);
      result.push_back(reduced ? 0 : strides[own]);
      if (!reduced || !dropped) ++own;
    }
    strides = result;
  };
  for (address& leaf : n.leaves) spread(leaf.strides);
  spread(n.out.strides);
  n.space = anchor.space;
}

/// Runs one group of the schedule.
template <class P>
void run_group(launcher<P>& run, const group_schedule::group& g, bool fuse) {
  using entry = cuda_node_entry<P>;
  call_state<P>& call = run.call;
  const std::size_t count = g.nodes.size();
  const std::vector<entry> entries = detail::describe_group_spaces<P, entry>(call, g);
  std::vector<const node_runtime*> members;
  for (int m : g.nodes) members.push_back(&call.nodes[static_cast<std::size_t>(m)]);
  const split_rule rule = cuda_split_rule(run.sms);
  const node_runtime* anchor_ptr = nullptr;
  const group_shape shape = shape_of_group(members, anchor_ptr, true);
  bool fused = fuse && shape != group_shape::mixed;
  kernel_class k = shape == group_shape::rows ? kernel_class::rows : kernel_class::pointwise;
  // Few long rows: split across blocks (split.hpp). Reductions only, none
  // reading another, with reduced axes leading: columns. A group with a
  // scan runs as rows (a block's threads per row, each row whole) whatever
  // its rows.
  if (fused && k == kernel_class::rows && !detail::has_scan(members)) {
    bool only_reductions = !run.reads_member(g.nodes, g.nodes);
    for (const auto* n : members) only_reductions = only_reductions && n->reduction;
    const node_runtime& anchor = *anchor_ptr;
    if (few_long_rows(anchor, rule)) k = kernel_class::split;
    else if (only_reductions && anchor.inner > 0 && reduces_leading(anchor)) k = kernel_class::columns;
  }
  const bool row_class = k == kernel_class::rows || k == kernel_class::split;
  // Pointwise nodes over the rows of a row group (cross-entropy's loss after its logsumexp) run
  // in one thread of each row (`row_value`): a group with a node reading one runs node by node
  // (the row's other threads would not wait for the value).
  std::vector<bool> per_row(count, false);
  std::vector<int> row_values;
  if (fused && row_class)
    for (std::size_t i = 0; i < count; ++i)
      if (members[i]->space != anchor_ptr->space) {
        per_row[i] = true;
        row_values.push_back(g.nodes[i]);
      }
  if (!row_values.empty() && run.reads_member(g.nodes, row_values)) {
    fused = false;
    per_row.assign(count, false);
  }
  // Registers: values inside a fused pointwise group; reductions inside a fused row group (a
  // scan's values, one per element, go to memory: each thread reads back those it wrote).
  std::vector<bool> in_registers(count, false);
  for (std::size_t i = 0; i < count; ++i)
    in_registers[i] =
        fused && (k == kernel_class::pointwise || (row_class && members[i]->reduction && !members[i]->scan));
  for (std::size_t i = 0; i < count; ++i) {
    const auto m = static_cast<std::size_t>(g.nodes[i]);
    auto& n = call.nodes[m];
    buffer_home& home = call.homes[m];
    home.sizes = n.out_sizes;
    home.strides = contiguous_strides(n.out_sizes);
    if (n.writes_target) continue;
    if (in_registers[i] && g.kernel_local[i] && k != kernel_class::split) {
      home.scratch = 0;  // registers: never in memory (a split group may yet run node by node: launcher::launch)
    } else {
      home.data = run.pool[m].reserve(static_cast<std::size_t>(std::max<std::int64_t>(1, n.out_sizes.numel())) *
                                      entries[i].element_size);
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    node_runtime& n = call.nodes[static_cast<std::size_t>(g.nodes[i])];
    entries[i].describe(call, n);
    if (per_row[i]) spread_over_rows(n, *anchor_ptr);
  }
  if (fused) {
    run.launch(g.nodes, k, in_registers, per_row);
  } else {
    for (std::size_t i = 0; i < count; ++i) run.launch({g.nodes[i]}, solo_class(*members[i], rule), {false}, {false});
  }
}

/// The names of program `P`'s lowered nodes (for error messages).
template <class P>
std::vector<std::string> node_names() {
  std::vector<std::string> names;
  for (const auto& n : lower<P>().nodes) names.push_back(n.buffer);
  return names;
}

}  // namespace cuda_detail

/// Runs programs on a CUDA device.
template <>
struct executor<cuda_target> {
  template <class... Statements, class... Bindings>
  static void run(const program<Statements...>& prog, cuda_target target, const Bindings&... bindings) {
    using P = program<Statements...>;
    using D = cuda_detail::device_program_of<P>;
    static_assert(cuda_detail::node_count<D> <= cuda_detail::max_nodes,
                  "fusedsl: a program may have at most 64 nodes on the CUDA backend");
    static_assert(
        sizeof(cuda_detail::group_args<D>) + sizeof(cuda_detail::node_objects<D>) <= 32000,
        "fusedsl: this program's kernel parameters exceed CUDA's 32 KB limit: split it into smaller programs");
    static const std::vector<std::string> names = cuda_detail::node_names<P>();
    static cuda_detail::device_pool pool;
    detail::run_program(
        prog, device::cuda, target.fuse,
        [&](detail::call_state<P>& call) {
          // A buffer per lowered node, then partial states and split rows' arrival counters.
          cuda_detail::device_pool::lease buffers = pool.acquire(target.stream, call.plan.statement.size() + 2);
          const cuda_detail::node_objects<D> objects(prog);
          cuda_detail::launcher<P> launcher{call,          objects,
                                            target.stream, buffers.buffers(),
                                            names,         cuda_detail::multiprocessors()};
          for (const auto& g : call.plan.groups) cuda_detail::run_group(launcher, g, target.fuse);
        },
        bindings...);
  }
};

}  // namespace fusedsl
