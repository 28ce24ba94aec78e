# `isvp topology` shows which switches hold collective engines (placement=
# switch) or SHArP aggregation nodes (mode=sharp), their addresses and the
# tree planner / aggregation manager; without them, no such line.
add_test(NAME topology_command_shows_sharp_aggregation_nodes
         COMMAND isvp topology --topology fattree:radix=8,hosts=12 --set collective.mode=sharp
                 --set collective.sharp_max_trees_per_an=4)
set_tests_properties(topology_command_shows_sharp_aggregation_nodes PROPERTIES LABELS topology PASS_REGULAR_EXPRESSION
  "SHArP aggregation node \\(AN\\) in every switch, network addresses 12..15.*manager \\(tree planner\\) is spine0; each AN serves 4 trees.*leaf0: [^\n]*AN at address 12\n.*spine0: [^\n]*AN at address 14 \\(planner\\)")
add_test(NAME topology_command_shows_switch_engines
         COMMAND isvp topology --topology fattree:radix=8,hosts=12 --set collective.placement=switch)
set_tests_properties(topology_command_shows_switch_engines PROPERTIES LABELS topology PASS_REGULAR_EXPRESSION
  "collective engine in every switch.*leaf1: [^\n]*engine at address 13\n" FAIL_REGULAR_EXPRESSION "AN at")
add_test(NAME topology_command_no_engines_at_the_nics
         COMMAND isvp topology --topology fattree:radix=8,hosts=12)
set_tests_properties(topology_command_no_engines_at_the_nics PROPERTIES LABELS topology
                     PASS_REGULAR_EXPRESSION "leaf0: 8 ports" FAIL_REGULAR_EXPRESSION "engine|AN at")
