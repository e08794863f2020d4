/// @file fault.hpp
/// Errors found inside kernels, where nothing may throw: an op reports a
/// fault, and the run that executes the kernel throws it afterwards (CPU) or
/// the kernel stops with a device-side error (CUDA).
#pragma once
#include <atomic>  // std::atomic
#include <string>  // std::string

#include <fusedsl/core/config.hpp>  // FUSEDSL_HOST_DEVICE, FUSEDSL_DEVICE_CODE
#include <fusedsl/core/error.hpp>   // error

namespace fusedsl::detail {

/// The faults an op may report, as bits of a run's fault word.
enum class fault : unsigned {
  integer_division_by_zero = 1,  // an integer `%` or fx::fmod by 0
};

/// The fault word of the run the calling thread works for: set by `fault_scope`
/// around a run on the thread that calls it and in each of its parallel regions.
inline thread_local std::atomic<unsigned>* current_faults = nullptr;

/// Makes `faults` the calling thread's fault word until the end of the scope.
class fault_scope {
 public:
  explicit fault_scope(std::atomic<unsigned>* faults) : previous_(current_faults) { current_faults = faults; }
  fault_scope(const fault_scope&) = delete;
  fault_scope& operator=(const fault_scope&) = delete;
  ~fault_scope() { current_faults = previous_; }

 private:
  std::atomic<unsigned>* previous_;
};

/// Records fault `f` for the current run (host); stops the kernel (device),
/// which the next CUDA call of the run reports.
FUSEDSL_HOST_DEVICE inline void report_fault(fault f) {
#if FUSEDSL_DEVICE_CODE
  (void)f;
  __trap();
#else
  if (current_faults) current_faults->fetch_or(static_cast<unsigned>(f), std::memory_order_relaxed);
#endif
}

/// Runs `f()` with a fresh fault word as the calling thread's (parallel
/// regions inside take it over with a `fault_scope` of their own), then
/// throws `error` for the faults recorded; `what` names the run.
template <class F>
void run_checking_faults(const char* what, F&& f) {
  std::atomic<unsigned> faults{0};
  {
    const fault_scope scope(&faults);
    f();
  }
  if (faults.load(std::memory_order_relaxed) & static_cast<unsigned>(fault::integer_division_by_zero))
    throw error(std::string("fusedsl: ") + what +
                ": integer division by zero: a divisor of an integer `%` or fx::fmod was 0 (as torch's "
                "ZeroDivisionError; floating-point operands give NaN there); the outputs are incomplete");
}

}  // namespace fusedsl::detail
