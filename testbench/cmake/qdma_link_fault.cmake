# The QDMA's link-fault report to the driver (ERROR_STATUS.LINK_FAULT, the
# LINK_FAULT register queue, the error MSI-X vector): models/qdma/README.md.
isvp_systemc_testbench(qdma_link_fault_tb isvp_pcie isvp_memory isvp_qdma)
add_test(NAME qdma_link_fault_register_queue_and_interrupt COMMAND qdma_link_fault_tb)
set_tests_properties(qdma_link_fault_register_queue_and_interrupt PROPERTIES LABELS "qdma;link_fault" TIMEOUT 60)
