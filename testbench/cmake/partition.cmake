# Distributed simulation (docs/PARTITIONS.md): `isvp bench collectives
# --partitions P` (P simulator processes under the system's mpiexec) prints
# the rows of one process; bad partitionings are refused. Kept small: each
# window makes the partitions take turns, so on a loaded machine a
# partitioned run's wall time grows with the machine's load (one iteration
# per row; the offloaded 64 KiB tests take about 30 s on a loaded machine).
set(partition_checks ${CMAKE_SOURCE_DIR}/testbench/scripts/partition_checks.py)

add_test(NAME partition_torus_software_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 2 --topology torus:4x4x2
                 --collectives all --sizes 8,16K --check --offload off --iterations 1)
add_test(NAME partition_torus_software_rows_identical_3
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 3 --topology torus:4x4x2
                 --collectives all --sizes 8,4K --check --offload off --iterations 1)
add_test(NAME partition_torus_offload_small_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 2 --topology torus:4x4x2
                 --collectives all --sizes 8 --check)
add_test(NAME partition_torus_offload_small_rows_identical_3
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 3 --topology torus:4x4x2
                 --collectives all --sizes 8 --check)
add_test(NAME partition_fattree_software_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 2 --topology fattree:radix=8,hosts=32
                 --collectives all --sizes 8,1K --check --offload off --iterations 1)
add_test(NAME partition_refuses_more_partitions_than_switches
         COMMAND ${ISVP_PYTHON3} ${partition_checks} refused $<TARGET_FILE:isvp> "each partition needs at least one switch"
                 --topology torus:2x2x1 --collectives barrier --partitions 5)
add_test(NAME partition_refuses_zero_partitions
         COMMAND ${ISVP_PYTHON3} ${partition_checks} refused $<TARGET_FILE:isvp> "--partitions must be at least 1"
                 --topology torus:2x2x1 --collectives barrier --partitions 0)
add_test(NAME partition_refuses_traces
         COMMAND ${ISVP_PYTHON3} ${partition_checks} refused $<TARGET_FILE:isvp> "does not write traces"
                 --topology torus:2x2x1 --collectives barrier --partitions 2 --set trace.file=/tmp/partition_trace.json)
# --partitions auto: one per CPU, at most one per 32 hosts (2 on a 2-core
# machine at 64 hosts, 1 at 32), and one where partitions are refused.
add_test(NAME partition_auto_one_per_cpu_rows_identical
         COMMAND ${ISVP_PYTHON3} ${partition_checks} auto $<TARGET_FILE:isvp> 64 64 --topology torus:4x4x4
                 --collectives allreduce,bcast,barrier --sizes 8,1K --check --iterations 1)
add_test(NAME partition_auto_small_topology_one_process
         COMMAND ${ISVP_PYTHON3} ${partition_checks} auto $<TARGET_FILE:isvp> 32 32 --topology torus:4x4x2
                 --collectives allreduce --sizes 8 --check --iterations 1)
add_test(NAME partition_auto_flow_model_one_process
         COMMAND ${ISVP_PYTHON3} ${partition_checks} auto $<TARGET_FILE:isvp> - 64 --topology torus:4x4x4
                 --collectives allreduce --sizes 8 --iterations 1 --set network.model=flow)
# A cut that cannot be planned (zero-latency cables): one partition, named why.
add_test(NAME partition_auto_zero_latency_cut_one_process
         COMMAND ${ISVP_PYTHON3} ${partition_checks} auto-fewer $<TARGET_FILE:isvp> 64 64 "zero latency"
                 --topology torus:4x4x4 --collectives allreduce --sizes 8 --check --iterations 1
                 --set aurora.latency_ns=0)
set_tests_properties(partition_auto_zero_latency_cut_one_process PROPERTIES SKIP_RETURN_CODE 77)
# Under the user's own mpiexec the job's size decides, even a job of one (no
# mpiexec inside it); --partitions 2 under mpiexec -n 1 is refused.
add_test(NAME partition_auto_own_mpiexec_takes_the_job_size
         COMMAND ${ISVP_PYTHON3} ${partition_checks} own-mpiexec-auto $<TARGET_FILE:isvp> --topology torus:4x2x2
                 --collectives allreduce,bcast --sizes 8,4K --check --iterations 1)
add_test(NAME partition_refuses_malformed_count
         COMMAND ${ISVP_PYTHON3} ${partition_checks} refused $<TARGET_FILE:isvp> "--partitions 2x: give a number of partitions or 'auto'"
                 --topology torus:2x2x1 --collectives barrier --partitions 2x)
add_test(NAME partition_refuses_a_count_beyond_any_number
         COMMAND ${ISVP_PYTHON3} ${partition_checks} refused $<TARGET_FILE:isvp> "--partitions 99999999999999 is more than one per switch"
                 --topology torus:2x2x1 --collectives barrier --partitions 99999999999999)
set_tests_properties(partition_auto_one_per_cpu_rows_identical partition_auto_small_topology_one_process
                     partition_auto_flow_model_one_process partition_auto_zero_latency_cut_one_process
                     partition_auto_own_mpiexec_takes_the_job_size partition_refuses_malformed_count
                     partition_refuses_a_count_beyond_any_number
                     PROPERTIES LABELS partition TIMEOUT 600)
set_tests_properties(partition_torus_software_rows_identical_2 partition_torus_software_rows_identical_3
                     partition_torus_offload_small_rows_identical_2 partition_torus_offload_small_rows_identical_3
                     partition_fattree_software_rows_identical_2 partition_refuses_more_partitions_than_switches
                     partition_refuses_zero_partitions partition_refuses_traces
                     PROPERTIES LABELS partition TIMEOUT 600)

# bench pingpong: rank 0 and its peer two hops away in different partitions.
add_test(NAME partition_pingpong_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same-pingpong $<TARGET_FILE:isvp> 2 --nodes 4 --hops 2
                 --sizes 8,4K,64K --iterations 3 --window 4)
set_tests_properties(partition_pingpong_rows_identical_2 PROPERTIES LABELS partition TIMEOUT 600)

# A partition that dies ends the whole job (mpiexec), nothing waits for it.
add_test(NAME partition_killed_partition_ends_the_job
         COMMAND ${ISVP_PYTHON3} ${partition_checks} killed $<TARGET_FILE:isvp> --topology torus:4x4x2
                 --collectives all --sizes 8,64K --iterations 20)
set_tests_properties(partition_killed_partition_ends_the_job PROPERTIES LABELS partition TIMEOUT 300)

# Offloaded multi-packet collectives (the engines order their same-time work
# themselves, docs/PARTITIONS.md "Determinism"): rows identical up to 64 KiB.
add_test(NAME partition_torus_offload_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 2 --topology torus:4x4x2
                 --collectives all --sizes 8,4K,64K --check --offload on --iterations 1)
add_test(NAME partition_torus_offload_rows_identical_3
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 3 --topology torus:4x4x2
                 --collectives all --sizes 8,4K,64K --check --offload on --iterations 1)
add_test(NAME partition_fattree_offload_rows_identical_2
         COMMAND ${ISVP_PYTHON3} ${partition_checks} same $<TARGET_FILE:isvp> 2 --topology fattree:radix=8,hosts=32
                 --collectives all --sizes 8,4K,64K --check --offload on --iterations 1)
# In one process: a SystemC method that only notifies itself (it changes the
# kernel's event-queue history, nothing of the model) leaves the rows of
# offloaded multi-packet collectives unchanged; before the engines ordered
# their same-time work themselves it moved them by up to a few percent.
add_test(NAME determinism_kernel_noise_offload_rows_identical
         COMMAND ${ISVP_PYTHON3} ${partition_checks} noise $<TARGET_FILE:isvp> 1000 --topology torus:4x4x2
                 --collectives allreduce,allgather,bcast,reduce_scatter --sizes 4K,64K --check --iterations 2)
add_test(NAME determinism_kernel_noise_switch_engines_rows_identical
         COMMAND ${ISVP_PYTHON3} ${partition_checks} noise $<TARGET_FILE:isvp> 1000
                 --topology fattree:radix=8,hosts=32 --collectives allreduce,bcast --sizes 4K,64K --check
                 --iterations 2 --set collective.placement=switch)
# The same with bit errors on the links (dropped, recovered end to end by the
# reliable-delivery layer): which packets meet the links' error draws, and so
# every retransmission and the rows, must not depend on SystemC's order of
# same-time processes either. Before the reliable endpoint acted only on
# what reached it in earlier delta cycles (session 22) both moved: e.g.
# 50,401 against 50,402 dropped packets, and rows by up to a few percent.
add_test(NAME determinism_kernel_noise_link_errors_rows_identical
         COMMAND ${ISVP_PYTHON3} ${partition_checks} noise $<TARGET_FILE:isvp> 1000 --topology torus:4x2x2
                 --collectives allreduce,allgather,bcast --sizes 4K,64K --check --iterations 2
                 --set aurora.on_crc_error=drop --set aurora.bit_error_rate=2e-5)
add_test(NAME determinism_kernel_noise_link_errors_switch_engines_rows_identical
         COMMAND ${ISVP_PYTHON3} ${partition_checks} noise $<TARGET_FILE:isvp> 1000
                 --topology fattree:radix=4,hosts=8 --collectives allreduce,bcast --sizes 4K,64K --check
                 --iterations 2 --set collective.placement=switch --set aurora.on_crc_error=drop
                 --set aurora.bit_error_rate=2e-5)
set_tests_properties(partition_torus_offload_rows_identical_2 partition_torus_offload_rows_identical_3
                     partition_fattree_offload_rows_identical_2
                     determinism_kernel_noise_offload_rows_identical
                     determinism_kernel_noise_switch_engines_rows_identical
                     determinism_kernel_noise_link_errors_rows_identical
                     determinism_kernel_noise_link_errors_switch_engines_rows_identical
                     PROPERTIES LABELS partition TIMEOUT 600)
