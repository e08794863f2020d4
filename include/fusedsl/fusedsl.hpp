/// @file fusedsl.hpp
/// The umbrella header: everything a user needs to write and run programs.
/// `namespace fx = fusedsl;`. Interop is included on its own:
/// <fusedsl/interop/inductor.hpp> (Inductor's dumps, a JSON reader) and
/// <fusedsl/interop/dlpack.hpp> (DLPack, which needs dlpack.h).
#pragma once

#include <fusedsl/core/version.hpp>          // FUSEDSL_VERSION_MAJOR, _MINOR, _PATCH
#include <fusedsl/core/dtype.hpp>            // dtypes, half, bfloat16
#include <fusedsl/core/error.hpp>            // fusedsl::error
#include <fusedsl/core/promote.hpp>          // promote, promote_t
#include <fusedsl/core/shape.hpp>            // shape, broadcasting
#include <fusedsl/tensor/copy.hpp>           // copy, contiguous
#include <fusedsl/tensor/tensor.hpp>         // tensor
#include <fusedsl/tensor/tensor_view.hpp>    // tensor_view
#include <fusedsl/expr/pointwise.hpp>        // pointwise ops and operators
#include <fusedsl/expr/reduce.hpp>           // reductions, axis, axes
#include <fusedsl/expr/scan.hpp>             // scans: cumsum, cumprod, cummax, cummin, logcumsumexp
#include <fusedsl/expr/index.hpp>            // index: positions along axes
#include <fusedsl/expr/gather.hpp>           // take_along_axis, index_select
#include <fusedsl/expr/tensor_leaf.hpp>      // tensors inside expressions
#include <fusedsl/expr/print.hpp>            // to_string(expr)
#include <fusedsl/program/placeholder.hpp>   // in, out, inout, local, param
#include <fusedsl/program/program.hpp>       // program
#include <fusedsl/program/reference.hpp>     // run_reference: the oracle
#include <fusedsl/runtime/eval.hpp>          // eval
#include <fusedsl/graph/graph.hpp>           // graph: scheduler nodes, deps, buffers
#include <fusedsl/lower/lowering.hpp>        // graph_of(prog)
#include <fusedsl/schedule/fuse_nodes.hpp>   // fuse_nodes, kernel_count, check_fusion
#include <fusedsl/schedule/explain.hpp>      // explain, possible_fusions, to_dot, to_json
#include <fusedsl/plan/program_plan.hpp>     // plan_of, kernel_count, explain of programs
#include <fusedsl/backend/cpu/executor.hpp>  // prog.run(fx::cpu, ...)
#ifdef __CUDACC__
#  include <fusedsl/backend/cuda/executor.hpp>  // prog.run(fx::cuda(stream), ...)
#endif
