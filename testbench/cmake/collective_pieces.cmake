# The collective engine's reusable pieces (models/collective/README.md).
# CreditedOutPort: credits gate packets (VC 0, credits in flight count from
# their arrival), urgent packets overtake, the serialiser spaces packets by
# length, the owner's hook sees each one leave.
isvp_systemc_testbench(credited_port_tb isvp_collective)
add_test(NAME collective_credited_port COMMAND credited_port_tb)
set_tests_properties(collective_credited_port PROPERTIES LABELS collective PASS_REGULAR_EXPRESSION "PASSED")
