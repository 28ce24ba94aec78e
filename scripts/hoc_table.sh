#!/bin/sh
# Higher-order collectives' speed-up table (docs/PERFORMANCE.md and
# docs/FUSED.md, "Higher-order collectives"): testbench/mpi/hoc_bench.c on
# N-node tori, PGEMM (N x N doubles) and a banded SpMV (columns per rank,
# half-bandwidth), each run four ways on the same hardware:
#   offloaded  the multiply in the CGRA at ingress, the sums in the switches
#   host+sw    the host baseline: the kernel on the host (not charged), the
#              switch's reduce-scatter (ISVP_MPI_HOC_THRESHOLD=0)
#   host+sw @  the same, the host kernel charged MAC_PS ps per
#              multiply-accumulate (ISVP_MPI_HOST_MAC_PS)
#   software   --offload off: host kernel (not charged) and software reduce-scatter
# Prints a Markdown table of simulated µs (the slowest rank, second round).
#   scripts/hoc_table.sh [BUILD_DIR] [PGEMM_N] [SPMV_COLS] [SPMV_W] [MAC_PS]
build=${1:-build}
gemm_n=${2:-128}
cols=${3:-64}
w=${4:-4}
mac_ps=${5:-100}
isvp=$build/platform/isvp
bench=$build/testbench/mpi/hoc_bench
fail() {
    echo "hoc_table.sh: $*" >&2
    exit 1
}
[ -x "$isvp" ] ||
    fail "$isvp is not an executable (usage: scripts/hoc_table.sh [BUILD_DIR] [PGEMM_N] [SPMV_COLS] [SPMV_W] [MAC_PS])"
[ -x "$bench" ] || fail "$bench is not an executable (build it: cmake --build $build)"
run() {  # nodes torus offload env... -- args
    nodes=$1 torus=$2 offload=$3
    shift 3
    env "$@" "$isvp" run -n "$nodes" --offload "$offload" --set topology.torus="$torus" -- "$bench" $args |
        sed -n 's/.*time_us \([0-9.]*\).*/\1/p'
}
echo "| kernel | nodes | offloaded (µs) | host kernel + switch reduce-scatter (µs) | same, host kernel at $mac_ps ps/MAC (µs) | host software (µs) | speed-up vs host software | vs charged host baseline |"
echo "|---|---|---|---|---|---|---|---|"
for kernel in pgemm spmv; do
    if [ $kernel = pgemm ]; then args="pgemm $gemm_n"; name="PGEMM $gemm_n×$gemm_n×$gemm_n"; else
        args="spmv $cols $w"; name="SpMV band w=$w, $cols rows/rank"; fi
    for shape in "16 4x2x2" "32 4x4x2" "64 4x4x4" "128 8x4x4"; do
        set -- $shape
        nodes=$1 torus=$2
        off=$(run $nodes $torus on X=1)
        base=$(run $nodes $torus on ISVP_MPI_HOC_THRESHOLD=0)
        charged=$(run $nodes $torus on ISVP_MPI_HOC_THRESHOLD=0 ISVP_MPI_HOST_MAC_PS=$mac_ps)
        soft=$(run $nodes $torus off X=1)
        [ -n "$off" ] && [ -n "$base" ] && [ -n "$charged" ] && [ -n "$soft" ] ||
            fail "$kernel on $nodes nodes ($torus): a run printed no time_us (its messages are above)"
        s1=$(awk "BEGIN { printf \"%.2fx\", $soft / $off }")
        s2=$(awk "BEGIN { printf \"%.2fx\", $charged / $off }")
        echo "| $name | $nodes | $off | $base | $charged | $soft | $s1 | $s2 |"
    done
done
