# An ingress kernel's collective that fails while the kernel still feeds it
# (arguments that disagree across the members): the next calls run in the
# switch and give the reference result (testbench/mpi/hoc_error_during_feed.c,
# docs/FUSED.md). Offload on only: on the host baseline the disagreement is
# not detected. Named after mpi.cmake so that it is read after it.
isvp_mpi_program(hoc_error_during_feed hoc_error_during_feed.c)
add_custom_target(isvp_mpi_hoc_error_during_feed_program ALL
                  DEPENDS ${isvp_mpi_test_binaries}/hoc_error_during_feed)
add_test(NAME mpi_hoc_error_during_the_kernel_feed_then_calls_run
         COMMAND isvp run -n 2 --offload on --set topology.torus=2x1x1 --
                 ${isvp_mpi_test_binaries}/hoc_error_during_feed)
set_tests_properties(mpi_hoc_error_during_the_kernel_feed_then_calls_run PROPERTIES TIMEOUT 120 LABELS "mpi;hoc"
  PASS_REGULAR_EXPRESSION "hoc_error_during_feed ok \\(rank 0\\)"
  FAIL_REGULAR_EXPRESSION "FAIL|failed|job aborted")
