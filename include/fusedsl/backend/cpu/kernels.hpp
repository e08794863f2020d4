/// @file kernels.hpp
/// The CPU loops that run one node over part of its iteration space, one
/// kernel class per header: a pointwise node over a range of its elements
/// (pointwise.hpp), a reduction over a range of its kept elements (rows,
/// rows.hpp), split across chunks of the reduced elements (split.hpp), or
/// over column blocks (columns.hpp), and a scan over a range of its lines
/// (scans.hpp). What they share: chunk evaluation
/// (chunks.hpp), streaming stores (streaming.hpp), index math
/// (indexing.hpp) and a reduction's axes (reduction_axes.hpp). A fused
/// kernel calls them tile by tile, so that the data one node writes is
/// still in cache when the next node reads it.
#pragma once
#include <fusedsl/backend/cpu/columns.hpp>    // accumulate_columns, reduction_columns
#include <fusedsl/backend/cpu/pointwise.hpp>  // pointwise_chunk, pointwise_range, pointwise_node_range
#include <fusedsl/backend/cpu/rows.hpp>       // accumulate, reduction_rows
#include <fusedsl/backend/cpu/scans.hpp>      // scan_rows
#include <fusedsl/backend/cpu/split.hpp>      // reduction_split, for_each_split_step, split_part
