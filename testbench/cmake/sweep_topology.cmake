# scripts/sweep.py over several networks (--topology, issue 11): runs keyed by
# (nodes, topology) in the CSV, JSON, raw files and report; a torus and a fat
# tree of the same node count set side by side; torus-only sweeps unchanged;
# bad or repeated networks refused (testbench/scripts/sweep_topology_checks.py).
set(sweep_topology_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/sweep_topology_checks.py)
set(sweep_topology_out ${CMAKE_BINARY_DIR}/sweep_topology_checks)
add_test(NAME sweep_torus_and_fattree_side_by_side
         COMMAND ${ISVP_PYTHON3} ${sweep_topology_checks} side-by-side $<TARGET_FILE:isvp> ${sweep_topology_out}/side_by_side)
add_test(NAME sweep_torus_only_output_unchanged
         COMMAND ${ISVP_PYTHON3} ${sweep_topology_checks} torus-only $<TARGET_FILE:isvp> ${sweep_topology_out}/torus_only)
add_test(NAME sweep_fattree_timing_only
         COMMAND ${ISVP_PYTHON3} ${sweep_topology_checks} timing-only $<TARGET_FILE:isvp> ${sweep_topology_out}/timing_only)
add_test(NAME sweep_refuses_repeated_or_bad_topology
         COMMAND ${ISVP_PYTHON3} ${sweep_topology_checks} refused $<TARGET_FILE:isvp>)
set_tests_properties(sweep_torus_and_fattree_side_by_side sweep_torus_only_output_unchanged
                     sweep_fattree_timing_only sweep_refuses_repeated_or_bad_topology PROPERTIES LABELS bench TIMEOUT 300)

# An --out folder that cannot be made is refused before any run, in one line
# (it was a Python traceback).
add_test(NAME sweep_refuses_an_out_folder_it_cannot_make
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/sweep.py --isvp $<TARGET_FILE:isvp> --nodes 8
                 --out /dev/null/sweep)
set_tests_properties(sweep_refuses_an_out_folder_it_cannot_make PROPERTIES LABELS bench WILL_FAIL FALSE
                     PASS_REGULAR_EXPRESSION "sweep.py: error: --out /dev/null/sweep: cannot create the folder: Not a directory"
                     FAIL_REGULAR_EXPRESSION "Traceback")
