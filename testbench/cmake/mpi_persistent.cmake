# MPI 4.0 persistent collectives (sw/mpi/persistent.cpp): every *_init
# against a reference, starts in different orders on different ranks,
# inactive-request semantics, float results equal to the blocking call's;
# on a power-of-two and a non-power-of-two world, offload on and off.
isvp_mpi_program(coll_persistent coll_persistent.c)
add_custom_target(isvp_mpi_persistent_programs ALL DEPENDS ${isvp_mpi_test_binaries}/coll_persistent)
isvp_mpi_test(coll_persistent_8_ranks 8 2x2x2 coll_persistent)
isvp_mpi_test(coll_persistent_6_ranks 6 3x2x1 coll_persistent)
set_tests_properties(mpi_coll_persistent_8_ranks_offload_on mpi_coll_persistent_8_ranks_offload_off
                     mpi_coll_persistent_6_ranks_offload_on mpi_coll_persistent_6_ranks_offload_off
                     PROPERTIES LABELS "mpi;collective")
# The offloaded starts really go to the switch: 6 starts of collectives the
# switch runs, all 6 offloaded per rank with offload on, none with it off.
foreach(mode "on;6" "off;0")
  list(GET mode 0 offload)
  list(GET mode 1 offloaded)
  add_test(NAME mpi_coll_persistent_offload_${offload}_counted
           COMMAND sh -c "out=$(ISVP_MPI_STATS=1 $<TARGET_FILE:isvp> run -n 4 --offload ${offload} --set topology.torus=2x2x1 -- ${isvp_mpi_test_binaries}/coll_persistent count) || exit 1; echo \"$out\"; test $(echo \"$out\" | grep -c 'collectives offloaded ${offloaded} of 6') -eq 4")
  set_tests_properties(mpi_coll_persistent_offload_${offload}_counted PROPERTIES TIMEOUT 300 LABELS "mpi;collective")
endforeach()

# MPI_Alltoall_init offloads as the blocking MPI_Alltoall (the engine's
# Alltoall, any size): contiguous, strided and in-place requests, three
# outstanding on one communicator; 6 starts, all offloaded per rank with
# offload on, none with it off; on 4 (power of two) and 6 ranks. Their
# results are checked by the program (also in the 8/6-rank runs above).
foreach(case "4;2x2x1" "6;3x2x1")
  list(GET case 0 ranks)
  list(GET case 1 torus)
  foreach(mode "on;6" "off;0")
    list(GET mode 0 offload)
    list(GET mode 1 offloaded)
    add_test(NAME mpi_coll_persistent_alltoall_${ranks}_ranks_offload_${offload}_counted
             COMMAND sh -c "out=$(ISVP_MPI_STATS=1 $<TARGET_FILE:isvp> run -n ${ranks} --offload ${offload} --set topology.torus=${torus} -- ${isvp_mpi_test_binaries}/coll_persistent alltoall) || exit 1; echo \"$out\"; test $(echo \"$out\" | grep -c 'collectives offloaded ${offloaded} of 6') -eq ${ranks}")
    set_tests_properties(mpi_coll_persistent_alltoall_${ranks}_ranks_offload_${offload}_counted
                         PROPERTIES TIMEOUT 300 LABELS "mpi;collective")
  endforeach()
endforeach()

# More persistent collectives than the switch has communicator-table rows:
# some offloaded, the rest agreed into software, all right (41 decisions:
# the 40 starts and an Allreduce on a communicator made afterwards).
add_test(NAME mpi_coll_persistent_more_than_the_switch_holds
         COMMAND sh -c "out=$(ISVP_MPI_STATS=1 $<TARGET_FILE:isvp> run -n 4 --set topology.torus=2x2x1 -- ${isvp_mpi_test_binaries}/coll_persistent many) || exit 1; echo \"$out\"; test $(echo \"$out\" | grep -c 'collectives offloaded [1-9][0-9]* of 41') -eq 4 && test $(echo \"$out\" | grep -c 'offloaded 41 of 41') -eq 0")
set_tests_properties(mpi_coll_persistent_more_than_the_switch_holds PROPERTIES TIMEOUT 300 LABELS "mpi;collective")

# MPI 4.0 point-to-point additions (MPI_Isendrecv, MPI_Isendrecv_replace)
# and the large-count _c forms (sw/mpi/large_count.cpp).
isvp_mpi_program(mpi_large_count mpi_large_count.c)
add_custom_target(isvp_mpi_large_count_programs ALL DEPENDS ${isvp_mpi_test_binaries}/mpi_large_count)
isvp_mpi_test(large_count_and_isendrecv 3 3x1x1 mpi_large_count)

# Generalized requests, MPI_Comm_idup(_with_info), MPI_Comm_create_group
# (sw/mpi/comm_nonblocking.cpp, point_to_point.cpp).
isvp_mpi_program(mpi_requests_comms mpi_requests_comms.c)
add_custom_target(isvp_mpi_requests_comms_programs ALL DEPENDS ${isvp_mpi_test_binaries}/mpi_requests_comms)
isvp_mpi_test(requests_and_communicators 5 5x1x1 mpi_requests_comms)
