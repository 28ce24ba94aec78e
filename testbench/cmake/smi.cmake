# On-FPGA kernels and SMI streaming messages (models/kernel, docs/SMI.md,
# issue 14): SMI's examples and microbenchmarks as `isvp bench smi` runs whose
# results are checked against plain C++ references (a `# check: ... FAILED`
# line or exit status 1 fails the test), the error paths, determinism.
set(smi_tests "")
function(isvp_smi_test name)
  add_test(NAME ${name} COMMAND $<TARGET_FILE:isvp> bench smi ${ARGN})
  set_tests_properties(${name} PROPERTIES FAIL_REGULAR_EXPRESSION "FAILED;deadlock" LABELS smi TIMEOUT 300)
endfunction()

isvp_smi_test(smi_stencil_2_fpgas --nodes 2 --test stencil --count 64 --iterations 50)
isvp_smi_test(smi_stencil_8_fpgas --nodes 8 --test stencil --count 128 --iterations 20)
isvp_smi_test(smi_stencil_64_fpgas --topology torus:4x4x4 --test stencil --count 32 --iterations 10)
isvp_smi_test(smi_pingpong_two_fpgas --nodes 2 --test pingpong --sizes 8,1K --iterations 4)
# The simulated end time in full after the rows (their 3-digit precision
# once turned 3,3xx us into "3.3e+03").
isvp_smi_test(smi_pingpong_simulated_time_in_full --nodes 2 --test pingpong --sizes 8:64K)
set_tests_properties(smi_pingpong_simulated_time_in_full PROPERTIES PASS_REGULAR_EXPRESSION
                     "\n# simulated [0-9][0-9][0-9][0-9]\\.[0-9]+ us in [^\n]* s wall")
# A ping-pong row moves the size it is labelled with: 1:16 once ran 1, 2
# and 4 bytes as 8 (rows "8" four times), 256M failed in the kernel.
isvp_smi_test(smi_pingpong_refuses_sizes_not_whole_elements --nodes 2 --test pingpong --sizes 1:16)
isvp_smi_test(smi_pingpong_refuses_sizes_beyond_the_kernel_limit --nodes 2 --test pingpong --sizes 8,256M)
set_tests_properties(smi_pingpong_refuses_sizes_not_whole_elements PROPERTIES PASS_REGULAR_EXPRESSION
                     "bench smi: --sizes 1: ping-pong sizes are bytes of 8-byte SMI_DOUBLE elements, a positive multiple of 8 up to 128M")
set_tests_properties(smi_pingpong_refuses_sizes_beyond_the_kernel_limit PROPERTIES PASS_REGULAR_EXPRESSION
                     "bench smi: --sizes 268435456: ping-pong sizes are bytes")
isvp_smi_test(smi_bcast_2_fpgas --nodes 2 --test bcast --count 500)
isvp_smi_test(smi_bcast_8_fpgas_root_5 --nodes 8 --test bcast --count 300 --root 5)
isvp_smi_test(smi_reduce_8_fpgas_add_int --nodes 8 --test reduce --count 300 --root 3)
isvp_smi_test(smi_reduce_8_fpgas_max_double --nodes 8 --test reduce --count 200 --op max --datatype double)
isvp_smi_test(smi_reduce_2_fpgas_min_int --nodes 2 --test reduce --count 100 --op min)
isvp_smi_test(smi_reduce_64_fpgas_add_double --topology torus:4x4x4 --test reduce --count 64 --datatype double)
isvp_smi_test(smi_scatter_gather_8_fpgas --nodes 8 --test scatter_gather --count 20 --root 2)
isvp_smi_test(smi_stream_backpressure_no_loss --nodes 2 --test stream --count 3000 --pop-cycles 16)
isvp_smi_test(smi_errors_refused_and_fpga_keeps_working --nodes 2 --test errors)
isvp_smi_test(smi_reduce_on_fattree_routing_tables --topology fattree:radix=8,hosts=8 --test reduce --count 100)
# Kernels' packets share the network with nothing else here, but must not
# change the host path's simulated times either: the existing torus rows
# (topology_torus_simulated_times_unchanged) cover that.

add_test(NAME smi_deterministic_simulated_times
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/smi_checks.py deterministic $<TARGET_FILE:isvp>
                 --nodes 4 --test stencil --count 64 --iterations 10)
add_test(NAME smi_refuses_unknown_test
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/smi_checks.py refused $<TARGET_FILE:isvp>
                 "--test 'nosuch' is not one of" --nodes 2 --test nosuch)
set_tests_properties(smi_deterministic_simulated_times smi_refuses_unknown_test PROPERTIES LABELS smi TIMEOUT 300)

# The kernel unit at register level: launch, refusals, interrupts, results.
isvp_systemc_testbench(kernel_unit_tb isvp_kernel)
add_test(NAME smi_kernel_unit_registers COMMAND kernel_unit_tb)
set_tests_properties(smi_kernel_unit_registers PROPERTIES LABELS smi TIMEOUT 120)
