#!/usr/bin/env bash
# expect_job_failure.sh STATUS PATTERN -- COMMAND...
# The job must exit with STATUS, print PATTERN (grep -E), and leave no guest
# process or shared-memory segment of its own behind.
set -u
status=$1 pattern=$2; shift 3
# isvp's own segments only: other jobs on the machine (another test's
# mpiexec: Open MPI's vader segments) come and go meanwhile.
isvp_segments() { ls /dev/shm 2>/dev/null | grep -i isvp | sort; }
before=$(isvp_segments)
# The job runs in a session of its own (its id is the job's pid: a background
# job of a non-interactive shell is no group leader, so setsid execs in
# place), so "left behind" means processes of this job's session only, not
# another test's guests of the same name running meanwhile.
log=$(mktemp)
setsid --wait "$@" >"$log" 2>&1 &
session=$!
wait "$session"; got=$?
output=$(cat "$log"); rm -f "$log"
after=$(isvp_segments)
failed=0
echo "$output"
[[ $got == "$status" ]] || { echo "FAIL exit status $got, expected $status"; failed=1; }
grep -Eq "$pattern" <<<"$output" || { echo "FAIL output lacks /$pattern/"; failed=1; }
leaked=$(comm -13 <(echo "$before") <(echo "$after"))
[[ -z $leaked ]] || { echo "FAIL shared memory left behind: $leaked"; failed=1; }
guest=$(basename "${@: -2:1}")  # the guest program: the argument before its scenario
sleep 0.2
# The kernel keeps the first 15 characters of a process name (comm): match those.
if pgrep -s "$session" -x "${guest:0:15}" >/dev/null; then echo "FAIL $guest processes left behind"; failed=1; fi
echo "$((1 - failed)) passed, $failed failed"
exit $failed
