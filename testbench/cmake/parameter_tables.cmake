# Parameters declared once per block (models/common/isvp/parameter_table.h,
# issue 15 item 4): every parameter of every block (collective, qdma, driver,
# aurora, pcie, router, aglu, host/job, reliable, trace, kernel, network) refuses a bad
# value in the one error format, every name the sources read is declared, each
# is in its block's README, and no block declares one outside its table.
# (Unit side: testbench/unit/test_parameter_tables.cpp.)
set(parameter_tables_checks ${CMAKE_CURRENT_SOURCE_DIR}/scripts/parameter_tables_checks.py)
add_test(NAME parameter_tables_bad_value_of_each_parameter_one_format
         COMMAND ${ISVP_PYTHON3} ${parameter_tables_checks} bad_values $<TARGET_FILE:isvp>)
add_test(NAME parameter_tables_every_read_parameter_declared_and_documented
         COMMAND ${ISVP_PYTHON3} ${parameter_tables_checks} declared $<TARGET_FILE:isvp> ${CMAKE_SOURCE_DIR})
set_tests_properties(parameter_tables_bad_value_of_each_parameter_one_format
                     parameter_tables_every_read_parameter_declared_and_documented
                     PROPERTIES LABELS "parameters" TIMEOUT 120 PASS_REGULAR_EXPRESSION "1 passed, 0 failed")
