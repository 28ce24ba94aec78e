# MPI shim tests of datatype attributes and names, the Fortran datatypes,
# MPI_Type_create_darray and external32 packing (sw/mpi/attributes.cpp,
# external32.cpp, datatypes.cpp). Included after mpi.cmake (the glob is
# sorted); programs compiled by isvp_mpi_program, run by isvp_mpi_test with
# offload on and off.
isvp_mpi_program(mpi_type_attributes mpi_type_attributes.c)
isvp_mpi_program(mpi_fortran_types mpi_fortran_types.c)
isvp_mpi_program(mpi_darray mpi_darray.c)
isvp_mpi_program(mpi_pack_external mpi_pack_external.c)
isvp_mpi_program(mpi_type_bounds mpi_type_bounds.c)
add_custom_target(isvp_mpi_misc_programs ALL
                  DEPENDS ${isvp_mpi_test_binaries}/mpi_type_attributes ${isvp_mpi_test_binaries}/mpi_fortran_types
                          ${isvp_mpi_test_binaries}/mpi_darray ${isvp_mpi_test_binaries}/mpi_pack_external
                          ${isvp_mpi_test_binaries}/mpi_type_bounds)

isvp_mpi_test(type_attributes_and_names 2 2x1x1 mpi_type_attributes)
isvp_mpi_test(fortran_types 3 3x1x1 mpi_fortran_types)
isvp_mpi_test(darray 4 2x2x1 mpi_darray)
isvp_mpi_test(pack_external 2 2x1x1 mpi_pack_external)
isvp_mpi_test(type_bounds 2 2x1x1 mpi_type_bounds)

# The Fortran types' reductions take the offload decision's path: INTEGER SUM,
# REAL MAX, DOUBLE PRECISION SUM and LOGICAL LAND go to the switch, COMPLEX,
# 2REAL, 2DOUBLE_PRECISION and DOUBLE_COMPLEX run in software (every rank:
# 4 of 8 offloaded; none with offload off).
foreach(offload on off)
  if(offload STREQUAL "on")
    set(offloaded 4)
  else()
    set(offloaded 0)
  endif()
  add_test(NAME mpi_fortran_types_offload_decision_offload_${offload}
           COMMAND sh -c "out=$(ISVP_MPI_STATS=1 $<TARGET_FILE:isvp> run -n 3 --offload ${offload} --set topology.torus=3x1x1 -- ${isvp_mpi_test_binaries}/mpi_fortran_types offload) || exit 1; echo \"$out\"; test $(echo \"$out\" | grep -c 'collectives offloaded ${offloaded} of 8') -eq 3")
  set_tests_properties(mpi_fortran_types_offload_decision_offload_${offload} PROPERTIES TIMEOUT 300 LABELS mpi)
endforeach()
