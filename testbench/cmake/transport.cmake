# Transport tests (sw/transport). Included from testbench/CMakeLists.txt.
#
#   transport_guest       remote guest program (guests/), SystemC-free
#   transport_job_tb      one job (remote or local) against a fake device
#   transport_checks      runs jobs and checks timing, determinism, ordering,
#                         interrupts, deadlock, hostile clients, crashes, SIGINT,
#                         stall notices, job.* limits, prompt aborts, forked processes,
#                         local ranks as fibers and as threads

# The scenarios, shared by the remote guest program and local rank threads.
add_library(isvp_transport_test_scenarios STATIC guests/transport_scenarios.cpp)
target_include_directories(isvp_transport_test_scenarios PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/guests)
target_link_libraries(isvp_transport_test_scenarios PUBLIC isvp_transport_interface PRIVATE isvp_warnings)

add_executable(transport_guest guests/transport_guest.cpp)
target_link_libraries(transport_guest PRIVATE isvp_transport_guest isvp_transport_test_scenarios isvp_warnings)

isvp_systemc_testbench(transport_job_tb isvp_transport_host isvp_transport_test_scenarios)

add_executable(transport_checks systemc/transport_checks.cpp)
target_link_libraries(transport_checks PRIVATE isvp_warnings)

foreach(check timing determinism ordering interrupts deadlock hostile crash sigint stall limits abort fork fibers)
  add_test(NAME transport_${check}
           COMMAND transport_checks ${check} $<TARGET_FILE:transport_job_tb> $<TARGET_FILE:transport_guest>)
  set_tests_properties(transport_${check} PROPERTIES TIMEOUT 180 LABELS transport)
endforeach()
# Wall-time cost of a remote round trip and a posted write (printed).
add_test(NAME transport_bench
         COMMAND transport_checks bench $<TARGET_FILE:transport_job_tb> $<TARGET_FILE:transport_guest>)
set_tests_properties(transport_bench PROPERTIES TIMEOUT 300 LABELS "transport;bench")
