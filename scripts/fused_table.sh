#!/bin/sh
# SmartFuse speed-up table (docs/PERFORMANCE.md, "SmartFuse fused
# collectives"): the two patterns of testbench/mpi/fused_bench.c on N-node
# tori, each run three ways on the same hardware: fused (the default
# threshold: the switch and its CGRA), unfused with the switch's collectives
# (ISVP_MPI_FUSED_THRESHOLD=0: the plain calls, the op on the host) and host
# software (--offload off). Prints a Markdown table of simulated µs.
#   scripts/fused_table.sh [BUILD_DIR] [ELEMENTS_PER_RANK]
build=${1:-build}
elements=${2:-4}
isvp=$build/platform/isvp
bench=$build/testbench/mpi/fused_bench
fail() {
    echo "fused_table.sh: $*" >&2
    exit 1
}
[ -x "$isvp" ] || fail "$isvp is not an executable (usage: scripts/fused_table.sh [BUILD_DIR] [ELEMENTS_PER_RANK])"
[ -x "$bench" ] || fail "$bench is not an executable (build it: cmake --build $build)"
case $elements in
'' | *[!0-9]* | 0 | 0[0-9]*) fail "ELEMENTS_PER_RANK must be a positive whole number, got '$elements'" ;;
esac
run() {  # nodes torus pattern [env] [offload]
    env ${4:-X=1} "$isvp" run -n "$1" --offload "${5:-on}" --set topology.torus="$2" -- "$bench" "$3" "$elements" |
        sed -n 's/.*time_us \([0-9.]*\).*/\1/p'
}
echo "| pattern | nodes | fused in the switch (µs) | unfused, switch collectives (µs) | host software (µs) | speed-up vs host software |"
echo "|---|---|---|---|---|---|"
for pattern in is fem; do
    for shape in "8 2x2x2" "16 4x2x2" "32 4x4x2" "64 4x4x4"; do
        set -- $shape
        fused=$(run "$1" "$2" $pattern)
        unfused=$(run "$1" "$2" $pattern ISVP_MPI_FUSED_THRESHOLD=0)
        host=$(run "$1" "$2" $pattern X=1 off)
        [ -n "$fused" ] && [ -n "$unfused" ] && [ -n "$host" ] ||
            fail "$pattern on $1 nodes ($2): a run printed no time_us (its messages are above)"
        speedup=$(awk "BEGIN { printf \"%.2fx\", $host / $fused }")
        name=$([ $pattern = is ] && echo "Allreduce→op→Alltoall (IS)" || echo "Allgather→prefix→Allgatherv (FEM)")
        echo "| $name | $1 | $fused | $unfused | $host | $speedup |"
    done
done
