#!/usr/bin/env bash
# launcher_checks.sh CHECK ISVP BIN_DIR MPI_LAUNCHER LAUNCHER_GUEST
# `isvp run` behaves like mpirun (docs/MPI.md "Using it"): one CHECK per
# CTest entry (testbench/cmake/mpi_launcher.cmake). Prints what it ran and
# "1 passed, 0 failed" or what failed.
set -u
check=$1 isvp=$2 bin=$3 prog=$4 guest=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# run ARGS...: the command's stdout in $work/out, stderr in $work/err, status in $status.
run() {
    echo "+ $*"
    timeout 60 "$@" >"$work/out" 2>"$work/err"
    status=$?
    echo "--- status $status; stdout:"; cat "$work/out"; echo "--- stderr:"; cat "$work/err"; echo "---"
}
expect_status() { [[ $status == "$1" ]] || fail "exit status $status, expected $1"; }
# expect_lines FILE EXPECTED: FILE's lines, sorted, are exactly EXPECTED (sorted).
expect_lines() {
    local got want
    got=$(sort "$1") want=$(sort <<<"$2")
    [[ $got == "$want" ]] || { fail "$(basename "$1") differs from what was expected:"; diff <(echo "$want") <(echo "$got"); }
}
two=(-n 2 --set topology.torus=2x1x1)
three=(-n 3 --set topology.torus=3x1x1)

case $check in
program-args)
    # Words after the program are the program's, options included, without "--".
    run "$isvp" run "${two[@]}" "$prog" args -m 4:4096 -l --tag-output -n 8 -- x
    expect_status 0
    expect_lines "$work/out" "rank 0 of 2 args: -m 4:4096 -l --tag-output -n 8 -- x
rank 1 of 2 args: -m 4:4096 -l --tag-output -n 8 -- x"
    # -np and -n4 spellings, and "--" still accepted.
    run "$isvp" run -np 2 --set=topology.torus=2x1x1 -- "$prog" args -m 4:4096
    expect_status 0
    expect_lines "$work/out" "rank 0 of 2 args: -m 4:4096
rank 1 of 2 args: -m 4:4096"
    run "$isvp" run -n2 --set topology.torus=2x1x1 "$prog" args
    expect_status 0
    expect_lines "$work/out" "rank 0 of 2 args:
rank 1 of 2 args:"
    ;;
unknown-option)
    # An option the launcher does not know, before the program, is refused.
    run "$isvp" run "${two[@]}" --bogus 3 "$prog" args
    expect_status 2
    grep -q "unrecognised option '--bogus'" "$work/err" || fail "no error naming --bogus"
    run "$isvp" run "${two[@]}"
    expect_status 2
    grep -q "no program given" "$work/err" || fail "no error for the missing program"
    run "$isvp" run "${two[@]}" -l --tag-output "$prog" args
    expect_status 2
    grep -q "give one" "$work/err" || fail "-l with --tag-output not refused"
    ;;
mpiexec)
    # bin/isvp-mpiexec and `isvp mpiexec` are `isvp run`.
    run "$bin/isvp-mpiexec" "${two[@]}" "$prog" args -m 4:4096
    expect_status 0
    expect_lines "$work/out" "rank 0 of 2 args: -m 4:4096
rank 1 of 2 args: -m 4:4096"
    run "$isvp" mpiexec "${two[@]}" "$prog" args -x
    expect_status 0
    expect_lines "$work/out" "rank 0 of 2 args: -x
rank 1 of 2 args: -x"
    run "$bin/isvp-mpiexec" -n 2
    expect_status 2
    grep -q "^isvp mpiexec: no program given" "$work/err" || fail "mpiexec's error does not name mpiexec"
    ;;
output-plain)
    # Default: unlabelled, stdout and stderr apart, lines never mixed.
    run "$isvp" run "${three[@]}" "$prog" streams
    expect_status 0
    long_a=long\ $(printf 'a%.0s' $(seq 4096)) long_b=long\ $(printf 'b%.0s' $(seq 4096))
    long_c=long\ $(printf 'c%.0s' $(seq 4096))
    expect_lines "$work/out" "stdout line from rank 0
stdout line from rank 1
stdout line from rank 2
$long_a
$long_b
$long_c"
    expect_lines "$work/err" "stderr line from rank 0
stderr line from rank 1
stderr line from rank 2"
    ;;
output-prepend-rank)
    for option in -l --prepend-rank -prepend-rank; do
        run "$isvp" run "${two[@]}" $option "$prog" args z
        expect_status 0
        expect_lines "$work/out" "[0] rank 0 of 2 args: z
[1] rank 1 of 2 args: z"
    done
    run "$isvp" run "${three[@]}" -l "$prog" streams
    expect_status 0
    grep -qx '\[2\] stderr line from rank 2' "$work/err" || fail "stderr not labelled [2]"
    [[ $(grep -c '^\[[0-2]\] long ' "$work/out") == 3 ]] || fail "long lines not labelled"
    ;;
output-tag)
    run "$isvp" run "${two[@]}" --tag-output "$prog" streams
    expect_status 0
    grep -qx '\[1,0\]<stdout>:stdout line from rank 0' "$work/out" || fail "stdout not tagged [1,0]<stdout>:"
    grep -qx '\[1,1\]<stdout>:stdout line from rank 1' "$work/out" || fail "stdout not tagged [1,1]<stdout>:"
    expect_lines "$work/err" "[1,0]<stderr>:stderr line from rank 0
[1,1]<stderr>:stderr line from rank 1"
    ;;
non-mpi)
    # Programs that are not MPI programs run as under mpirun.
    run "$isvp" run "${two[@]}" hostname
    expect_status 0
    expect_lines "$work/out" "$(hostname)
$(hostname)"
    [[ ! -s $work/err ]] || fail "stderr is not empty"
    run "$isvp" run "${two[@]}" -- printf 'no newline'
    expect_status 0
    [[ $(cat "$work/out") == "no newlineno newline" ]] || fail "output not passed on byte for byte"
    run "$isvp" run "${two[@]}" false
    expect_status 1
    run "$isvp" run "${two[@]}" -- sh -c 'exit $((ISVP_RANK + 3))'
    [[ $status == 3 || $status == 4 ]] || fail "exit status $status, expected a rank's (3 or 4)"
    # One rank never starts MPI while the other does: the job fails, naming it.
    run "$isvp" run "${two[@]}" --set job.kill_grace_ms=300 -- sh -c \
        'if [ "$ISVP_RANK" = 0 ]; then exit 0; else exec "$0" args; fi' "$prog"
    expect_status 1
    grep -q "rank 0 never connected to the platform" "$work/err" || fail "the rank that never connected is not named"
    ;;
warning-flood)
    # 100,000 unmapped MMIO writes: stdout stays empty, stderr is bounded.
    run "$isvp" run -n 1 --set topology.torus=1x1x1 "$guest" flood 100000
    expect_status 0
    [[ ! -s $work/out ]] || fail "stdout is not empty"
    bytes=$(wc -c <"$work/err")
    ((bytes < 8192)) || fail "stderr has $bytes bytes"
    grep -q "suppressed 99990 more 'isvp/qdma' warnings" "$work/err" || fail "no count of the suppressed warnings"
    [[ $(grep -c "unmapped or refused offset" "$work/err") == 10 ]] || fail "not the first 10 warnings in full"
    ;;
*)
    echo "unknown check $check"; exit 2 ;;
esac
echo "$((1 - failed)) passed, $failed failed"
exit $failed
