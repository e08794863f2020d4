# Fails unless `CPP --cells` and `PYTHON PEERS --cells` list the same cells (run by CTest
# with -D CPP, PYTHON, PEERS and OUT, a folder for the two listings).
execute_process(COMMAND ${CPP} --cells OUTPUT_FILE ${OUT}/cells_cpp.txt RESULT_VARIABLE cpp_result)
execute_process(COMMAND ${PYTHON} ${PEERS} --cells OUTPUT_FILE ${OUT}/cells_peers.txt RESULT_VARIABLE peers_result)
if(NOT cpp_result EQUAL 0 OR NOT peers_result EQUAL 0)
  message(FATAL_ERROR "listing the cells failed: bench_matrix_cpu ${cpp_result}, peers.py ${peers_result}")
endif()
file(READ ${OUT}/cells_cpp.txt cpp)
file(READ ${OUT}/cells_peers.txt peers)
if(NOT cpp STREQUAL peers)
  message(FATAL_ERROR "bench_matrix_cpu and peers.py read workloads.txt differently: compare "
                      "${OUT}/cells_cpp.txt with ${OUT}/cells_peers.txt")
endif()
string(REGEX MATCHALL "\n" lines "${cpp}")
list(LENGTH lines count)
message(STATUS "${count} cells, the same on both sides")
