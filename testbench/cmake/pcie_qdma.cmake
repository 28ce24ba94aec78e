# Host memory, PCIe endpoint and QDMA: register-level SystemC testbenches.
# Each executable prints one line per check and ends with "N passed, M failed".
isvp_systemc_testbench(pcie_endpoint_tb isvp_pcie isvp_memory isvp_qdma)
add_test(NAME pcie_endpoint_config_mmio_msix_dma COMMAND pcie_endpoint_tb)
isvp_systemc_testbench(qdma_datapath_tb isvp_pcie isvp_memory isvp_qdma)
add_test(NAME qdma_h2c_c2h_loopback_packets_rings_and_streaming COMMAND qdma_datapath_tb)
isvp_systemc_testbench(qdma_interrupts_tb isvp_pcie isvp_memory isvp_qdma)
add_test(NAME qdma_interrupt_coalescing_arming_and_msix_masking COMMAND qdma_interrupts_tb)
isvp_systemc_testbench(qdma_backpressure_tb isvp_pcie isvp_memory isvp_qdma)
add_test(NAME qdma_backpressure_without_loss COMMAND qdma_backpressure_tb)
isvp_systemc_testbench(qdma_errors_tb isvp_pcie isvp_memory isvp_qdma)
add_test(NAME qdma_queue_errors_stop_report_and_reset COMMAND qdma_errors_tb)
isvp_systemc_testbench(qdma_registers_tb isvp_pcie isvp_memory isvp_qdma)
add_test(NAME qdma_registers_identity_scratch_unmapped_and_tables COMMAND qdma_registers_tb)
# Determinism: two runs print the same checks, times and trace digest.
add_test(NAME qdma_datapath_runs_are_bit_identical
         COMMAND sh -c "\"$0\" > run1.log 2>&1 && \"$0\" > run2.log 2>&1 && cmp run1.log run2.log"
                 $<TARGET_FILE:qdma_datapath_tb>
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
isvp_systemc_testbench(qdma_stream_tb isvp_pcie isvp_memory isvp_qdma)
add_test(NAME qdma_h2c_stream_rate_512b_at_250mhz COMMAND qdma_stream_tb)
add_test(NAME qdma_h2c_sends_only_with_credits COMMAND qdma_stream_tb --router-buffer-one-packet)
