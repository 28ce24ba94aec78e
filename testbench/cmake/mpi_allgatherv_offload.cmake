# MPI_Allgatherv in the switch (the engine's allgather with unequal counts;
# docs/MPI.md, "Offload policy"): results against a C reference on 2, 8 and
# 16 ranks with offload on and off, and (offload on) every call decided for
# the switch (ISVP_MPI_STATS). Named after mpi.cmake (its functions).
isvp_mpi_program(allgatherv_offload allgatherv_offload.c)
add_custom_target(isvp_mpi_allgatherv_offload_programs ALL DEPENDS ${isvp_mpi_test_binaries}/allgatherv_offload)
isvp_mpi_test(allgatherv_offload_2_ranks 2 2x1x1 allgatherv_offload)
isvp_mpi_test(allgatherv_offload_8_ranks 8 2x2x2 allgatherv_offload)
isvp_mpi_test(allgatherv_offload_16_ranks 16 4x2x2 allgatherv_offload)
add_test(NAME mpi_allgatherv_offload_goes_to_the_switch
         COMMAND sh -c "ISVP_MPI_STATS=1 $<TARGET_FILE:isvp> run -n 8 --set topology.torus=2x2x2 -- ${isvp_mpi_test_binaries}/allgatherv_offload 2>&1")
set_tests_properties(mpi_allgatherv_offload_goes_to_the_switch PROPERTIES TIMEOUT 300 LABELS mpi
                     PASS_REGULAR_EXPRESSION "rank 0 collectives offloaded 9 of 9"
                     FAIL_REGULAR_EXPRESSION "FAIL")
