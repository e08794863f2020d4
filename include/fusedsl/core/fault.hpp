/// @file fault.hpp
/// Errors found inside kernels, where nothing may throw: an op reports a
/// fault, and the run that executes the kernel throws it afterwards (CPU) or
/// the kernel stops with a device-side error (CUDA).
#pragma once
#include <atomic>   // std::atomic
#include <cstdint>  // std::int64_t
#include <cstdio>   // printf (device)
#include <string>   // std::string

#include <fusedsl/core/config.hpp>  // FUSEDSL_HOST_DEVICE, FUSEDSL_DEVICE_CODE
#include <fusedsl/core/error.hpp>   // error

namespace fusedsl::detail {

/// The faults an op may report, as bits of a run's fault word.
enum class fault : unsigned {
  integer_division_by_zero = 1,  // an integer `%` or fx::fmod by 0
  index_out_of_range = 2,        // a gather's index outside its axis
};

/// What a run's kernels reported: the fault bits, and the first index out
/// of range that a gather met (for the message).
struct run_faults {
  std::atomic<unsigned> bits{0};
  std::atomic<bool> index_recorded{false};
  const char* index_op = nullptr;  ///< the gather's name (fx::take_along_axis, fx::index_select)
  int index_axis = 0;
  std::int64_t index = 0, index_size = 0;  ///< the index and the size of the axis
};

/// The faults of the run the calling thread works for: set by `fault_scope`
/// around a run on the thread that calls it and in each of its parallel regions.
inline thread_local run_faults* current_faults = nullptr;

/// Makes `faults` the calling thread's fault record until the end of the scope.
class fault_scope {
 public:
  explicit fault_scope(run_faults* faults) : previous_(current_faults) { current_faults = faults; }
  fault_scope(const fault_scope&) = delete;
  fault_scope& operator=(const fault_scope&) = delete;
  ~fault_scope() { current_faults = previous_; }

 private:
  run_faults* previous_;
};

/// Records fault `f` for the current run (host); stops the kernel (device),
/// which the next CUDA call of the run reports.
FUSEDSL_HOST_DEVICE inline void report_fault(fault f) {
#if FUSEDSL_DEVICE_CODE
  (void)f;
  __trap();
#else
  if (current_faults) current_faults->bits.fetch_or(static_cast<unsigned>(f), std::memory_order_relaxed);
#endif
}

/// Records that gather `op` met index `index` on axis `axis` of `size`
/// elements (host: the first such index is kept for the message; device: it
/// is printed, then the kernel stops as report_fault stops it).
FUSEDSL_HOST_DEVICE inline void report_index_fault(const char* op, int axis, std::int64_t index, std::int64_t size) {
#if FUSEDSL_DEVICE_CODE
  printf("fusedsl: fx::%s: index %lld out of range for axis %d of size %lld\n", op, static_cast<long long>(index), axis,
         static_cast<long long>(size));
  __trap();
#else
  run_faults* faults = current_faults;
  if (!faults) return;
  // The winner of the exchange writes the details once; they are read after the run's
  // threads have joined.
  if (!faults->index_recorded.exchange(true, std::memory_order_relaxed)) {
    faults->index_op = op;
    faults->index_axis = axis;
    faults->index = index;
    faults->index_size = size;
  }
  faults->bits.fetch_or(static_cast<unsigned>(fault::index_out_of_range), std::memory_order_relaxed);
#endif
}

/// Runs `f()` with a fresh fault word as the calling thread's (parallel
/// regions inside take it over with a `fault_scope` of their own), then
/// throws `error` for the faults recorded; `what` names the run.
template <class F>
void run_checking_faults(const char* what, F&& f) {
  run_faults faults;
  {
    const fault_scope scope(&faults);
    f();
  }
  const unsigned bits = faults.bits.load(std::memory_order_relaxed);
  if (bits & static_cast<unsigned>(fault::integer_division_by_zero))
    throw error(std::string("fusedsl: ") + what +
                ": integer division by zero: a divisor of an integer `%` or fx::fmod was 0 (as torch's "
                "ZeroDivisionError; floating-point operands give NaN there); the outputs are incomplete");
  if (bits & static_cast<unsigned>(fault::index_out_of_range))
    throw error(std::string("fusedsl: ") + what + ": fx::" + faults.index_op + ": index " +
                std::to_string(faults.index) + " is out of range for axis " + std::to_string(faults.index_axis) +
                " of x, of size " + std::to_string(faults.index_size) + ": indices must be in [0, " +
                std::to_string(faults.index_size) +
                ") (a negative index does not count from the end); the outputs are incomplete");
}

}  // namespace fusedsl::detail
