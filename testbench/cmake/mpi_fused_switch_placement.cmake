# Fused and higher-order collectives with switch-resident engines
# (collective.placement = switch, and SHArP mode, collective.mode = sharp)
# on a radix-4 fat tree (docs/FUSED.md, "Switch-resident engines"): which
# path each call takes and that the results equal the references (integers
# bit for bit; the software way's too).
#
# placement = switch: the first collective (IS's allreduce, FEM's allgather
# of the counts, PGEMM's and SpMV's reduce-scatter) runs in the switches'
# tree, the CGRA at the member's NIC engine on its result, and the chained
# collective the tree does not run (IS's alltoall, FEM's unequal-count
# allgather) on the NIC engines: every pattern fully fused.
set(fused_switch_number "[0-9]+\\.[0-9]+")
set(fused_switch_row "+${fused_switch_number} +([0-9.]+|-) +${fused_switch_number} +${fused_switch_number} +${fused_switch_number}x")
add_test(NAME bench_fused_switch_placement_fully_fused_checked
         COMMAND isvp bench fused --topology fattree:radix=4,hosts=8 --set collective.placement=switch --check)
set_tests_properties(bench_fused_switch_placement_fully_fused_checked PROPERTIES TIMEOUT 120 LABELS "bench;fused"
  PASS_REGULAR_EXPRESSION "is +8 +4 ${fused_switch_row} +fully [^\n]*\nfem +8 +4 ${fused_switch_row} +fully [^\n]*\npgemm +8 +128 ${fused_switch_row} +fully [^\n]*\nspmv +8 +64 ${fused_switch_row} +fully [^\n]*\n# switch placement: [1-9][0-9]* rank calls through the switches' trees, [1-9][0-9]* on the NIC engines \\(the tree does not run them\\), [1-9][0-9]* CGRA runs[^\n]*\n# simulated [^\n]*\n# check: every result equals the C\\+\\+ reference"
  FAIL_REGULAR_EXPRESSION "mismatch|job failed|# [a-z]+ size [0-9]+: fused path")
# SHArP mode offloads the reductions only: IS semi-fused (the allreduce and
# its op in the switches, the alltoall in host software), FEM, PGEMM and
# SpMV the fallback; the bench names the reason, the LogcN model predicts
# the same paths.
add_test(NAME bench_fused_sharp_semi_and_fallback_with_the_reason
         COMMAND isvp bench fused --topology fattree:radix=4,hosts=8 --set collective.mode=sharp --check)
set_tests_properties(bench_fused_sharp_semi_and_fallback_with_the_reason PROPERTIES TIMEOUT 120 LABELS "bench;fused"
  PASS_REGULAR_EXPRESSION "is +8 +4 ${fused_switch_row} +semi [^\n]*\nfem +8 +4 ${fused_switch_row} +fallback [^\n]*\npgemm +8 +128 ${fused_switch_row} +fallback [^\n]*\nspmv +8 +64 ${fused_switch_row} +fallback [^\n]*\n# is size 4: fused path semi: the switches offload reductions only \\(collective.mode=sharp: ACCEL_CAPABILITIES.REDUCTIONS_ONLY\\): the engine chains no alltoall[^\n]*\n# fem size 4: fused path fallback: the switches offload reductions only [^\n]*no allgather in the switches[^\n]*\n# pgemm size 128: fused path fallback: [^\n]*no reduce-scatter in the switches[^\n]*\n# spmv size 64: fused path fallback: [^\n]*\n# switch placement: [^\n]*\n# simulated [^\n]*\n# check: every result equals the C\\+\\+ reference"
  FAIL_REGULAR_EXPRESSION "mismatch|job failed")
# The MPI shim's MPIX_ calls (testbench/mpi/fused_collectives.c): each
# call's MPIX_Fused_last_offloaded() and its results against C references,
# offload on (fully fused) and off (the software version), 8 ranks and 12
# (not a power of two: the chained alltoall folds on the NIC engines).
foreach(n 8 12)
  foreach(offload on off)
    add_test(NAME mpi_fused_collectives_fattree_${n}_switch_placement_offload_${offload}
             COMMAND isvp run -n ${n} --offload ${offload} --topology fattree:radix=4,hosts=${n}
                     --set collective.placement=switch -- ${isvp_mpi_test_binaries}/fused_collectives)
    set_tests_properties(mpi_fused_collectives_fattree_${n}_switch_placement_offload_${offload} PROPERTIES
      TIMEOUT 300 LABELS "mpi;fused" PASS_REGULAR_EXPRESSION "fused_collectives ok" FAIL_REGULAR_EXPRESSION "FAIL|exited with status")
  endforeach()
  # SHArP mode: the program expects the reductions-only paths (IS 1, FEM and
  # the semi-fused allgather 0) and the same results.
  add_test(NAME mpi_fused_collectives_fattree_${n}_sharp_reductions_only
           COMMAND isvp run -n ${n} --topology fattree:radix=4,hosts=${n} --set collective.mode=sharp --
                   ${isvp_mpi_test_binaries}/fused_collectives reductions-only)
  set_tests_properties(mpi_fused_collectives_fattree_${n}_sharp_reductions_only PROPERTIES
    TIMEOUT 300 LABELS "mpi;fused" PASS_REGULAR_EXPRESSION "fused_collectives ok" FAIL_REGULAR_EXPRESSION "FAIL|exited with status")
endforeach()
