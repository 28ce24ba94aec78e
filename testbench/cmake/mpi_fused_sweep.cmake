# The SmartFuse offload-vs-host sweep (scripts/fused_sweep.py, docs/FUSED.md)
# run small: both proxy patterns on 4 nodes, three ways each, every run's
# results checked against fused_bench's C reference and its path, and the
# LogcN-style model computed beside the fused figure.
add_test(NAME fused_sweep_4_nodes_checked_with_model
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/fused_sweep.py --build ${CMAKE_BINARY_DIR} --nodes 4
                 --model)
set_tests_properties(fused_sweep_4_nodes_checked_with_model PROPERTIES LABELS "mpi;fused" TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "# check: every run's results equal the C reference")
