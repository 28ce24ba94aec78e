# Simulator speed (issue 12): larger runs than the other goldens cover (256
# nodes, offloaded and in software) must give exactly the simulated figures
# recorded before the speed work (testbench/golden/torus_8x8x4_*.txt).
if(NOT ISVP_PYTHON3)
  find_program(ISVP_PYTHON3 python3 REQUIRED)
endif()
set(golden_bench ${CMAKE_SOURCE_DIR}/testbench/scripts/golden_bench.py)
add_test(NAME speed_torus_8x8x4_offload_simulated_times_unchanged
         COMMAND ${ISVP_PYTHON3} ${golden_bench} ${CMAKE_SOURCE_DIR}/testbench/golden/torus_8x8x4_offload.txt --
                 $<TARGET_FILE:isvp> bench collectives --topology torus:8x8x4 --collectives allreduce,bcast,barrier
                 --sizes 8,1K --iterations 2)
add_test(NAME speed_torus_8x8x4_software_simulated_times_unchanged
         COMMAND ${ISVP_PYTHON3} ${golden_bench} ${CMAKE_SOURCE_DIR}/testbench/golden/torus_8x8x4_software.txt --
                 $<TARGET_FILE:isvp> bench collectives --topology torus:8x8x4 --collectives allreduce --sizes 8
                 --iterations 1 --offload off)
set_tests_properties(speed_torus_8x8x4_offload_simulated_times_unchanged
                     speed_torus_8x8x4_software_simulated_times_unchanged PROPERTIES LABELS "speed;bench" TIMEOUT 300)
