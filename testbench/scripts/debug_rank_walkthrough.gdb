# The driver walkthrough of docs/DEBUGGING.md, run by the test
# debug_rank_walkthrough (testbench/scripts/debug_rank_checks.py):
#   isvp run -n 4 --set topology.torus=4x1x1 --debug-rank 2 \
#     --debugger "gdb -batch -x testbench/scripts/debug_rank_walkthrough.gdb --args" -- debug_rank
# A register read's value as the model returns it, then stepping over the
# H2C doorbell write of an MPI_Sendrecv, with the rank's simulated clock.
set pagination off
set style enabled off
break isvp::guest::Driver::probe_accelerator
run
step
print now_ps()
finish
print/x $
print transport_.now_ps()
delete
break isvp::guest::Driver::send
continue
break isvp::guest::MessageTransport::mmio_write32 if offset == 0x8000
continue
bt 2
print now_ps()
finish
print transport_.now_ps()
delete
continue
