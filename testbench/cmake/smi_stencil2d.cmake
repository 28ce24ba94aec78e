# SMI's 2D stencil (issue 14 item 2): halos exchanged through channels in both
# dimensions, every rank's tile checked bit for bit against a serial C++
# reference (stencil2d_reference). Named after smi.cmake so that it is read
# after it (isvp_smi_test).
isvp_smi_test(smi_stencil2d_4_fpgas --nodes 4 --test stencil2d --count 12 --iterations 8)
isvp_smi_test(smi_stencil2d_16_fpgas --topology torus:4x4x1 --test stencil2d --count 8 --iterations 6)
isvp_smi_test(smi_stencil2d_8_fpgas_2x4_grid --topology torus:2x2x2 --test stencil2d --count 10 --iterations 5)
add_test(NAME smi_stencil2d_refuses_a_tile_beyond_the_window
         COMMAND ${ISVP_PYTHON3} ${CMAKE_SOURCE_DIR}/testbench/scripts/smi_checks.py refused $<TARGET_FILE:isvp>
                 "the stencil2d tile side) must be at most 512, got 513" --nodes 4 --test stencil2d --count 513)
set_tests_properties(smi_stencil2d_refuses_a_tile_beyond_the_window PROPERTIES LABELS smi TIMEOUT 120)
