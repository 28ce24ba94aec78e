# Collective engine (models/collective): N CollectiveEngines on a torus with
# fake hosts; every collective, world and split communicators, sizes 1..N,
# error paths, Send pass-through.
isvp_systemc_testbench(collective_tb isvp_collective isvp_torus_fabric)
foreach(shape 2x2x2 4x2x1)
  add_test(NAME collective_engine_${shape}_all_collectives COMMAND collective_tb --set topology.torus=${shape})
  # float64 results bit-identical across two timing configurations.
  add_test(NAME collective_engine_${shape}_float_digest_timing_independent
           COMMAND sh -c "a=$($<TARGET_FILE:collective_tb> --set topology.torus=${shape} | grep digest) && b=$($<TARGET_FILE:collective_tb> --set topology.torus=${shape} --set collective.clock_mhz=97 --set collective.packet_payload_bytes=128 --set aglu.pipeline_stages=9 --set aurora.latency_ns=700 | grep digest) && echo \"$a / $b\" && test -n \"$a\" && test \"$a\" = \"$b\"")
endforeach()
