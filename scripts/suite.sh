#!/usr/bin/env bash
# Runs one step of `make test` quietly (scripts/test-all.sh):
#   scripts/suite.sh NAME COMMAND [ARGS]
# The command's whole output goes to build/logs/NAME.log; one line is printed:
# the name, ok or FAILED, what passed (read from the log: pytest's, Swift Testing's
# and mypy's own summaries, else the number of checks the script reported as
# "== ..." or "...: ok" lines), the seconds it took and the processor seconds it used. A failing step also
# prints the last 40 lines of its log (and appends its last 25 to the file
# $ENCORE_FAILURES names, if set). The line is appended to
# build/logs/summary.tsv for the table at the end. Exits with the command's status.
set -uo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: suite.sh NAME COMMAND [ARGS]}
shift
mkdir -p build/logs
log=build/logs/$name.log
start=$(date +%s.%N)
"$@" > "$log" 2>&1 < /dev/null
status=$?
seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }')
# The processor time the step used (user + system, of every process it
# waited for): against its seconds, how much of the machine it kept busy,
# which says what running steps side by side could gain.
# (`times` in this shell, not in a $(...) subshell, whose children are not the step.)
times > "$log.times"
cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.0f", t }' "$log.times")
rm -f "$log.times"

# What ran, in the words of the tool that ran it.
counts() {
    local line
    # pytest -q: "3 failed, 120 passed, 2 skipped in 12.34s" (the last such line: test-wheel runs one pytest).
    line=$(grep -E '^=*[ ]*[0-9]+ (passed|failed|error|errors|skipped)\b.* in [0-9.]+s' "$log" | tail -n 1)
    if [[ -n $line ]]; then
        sed -E 's/^=+ //; s/ in [0-9.]+s.*$//; s/ =+$//' <<<"$line"
        return
    fi
    # Swift Testing: "Test run with 512 tests in 40 suites passed after ..." / "... failed after ... with 3 issues."
    line=$(grep -E 'Test run with [0-9]+ tests?' "$log" | tail -n 1)
    if [[ -n $line ]]; then
        local tests issues
        tests=$(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<<"$line")
        if grep -q 'with [0-9]* issues\?' <<<"$line"; then
            issues=$(sed -E 's/.* with ([0-9]+) issues?.*/\1/' <<<"$line")
            echo "$tests tests, $issues issues"
        else
            echo "$tests tests passed"
        fi
        return
    fi
    # mypy: "Success: no issues found in 24 source files" / "Found 3 errors in 2 files (checked 24 source files)".
    line=$(grep -E '^(Success: no issues found in|Found [0-9]+ errors? in) ' "$log" | tail -n 1)
    if [[ -n $line ]]; then
        sed -E 's/^Success: no issues found in ([0-9]+) source files?$/\1 files type-checked, no issues/;
                s/^Found ([0-9]+) (errors?) in ([0-9]+) files? \(checked ([0-9]+) source files?\)$/\1 \2 in \4 files checked/' <<<"$line"
        return
    fi
    # The builds (scripts/build.sh): one "build: PRODUCT (...) ... done in N s" line each.
    local n
    n=$(grep -cE '^build: .* done in [0-9]+ s$' "$log")
    if ((n)); then
        echo "$n products built or up to date"
        return
    fi
    # Our shell suites: one "== what" line per program run, one "...: ok" line per check passed.
    n=$(grep -cE '^== |: ok$' "$log")
    if ((status == 0)); then echo "$n checks passed"; else echo "$n checks passed, then a failure"; fi
}
what=$(counts)
if ((status == 0)); then verdict=ok; else verdict=FAILED; fi
printf '%-15s %-7s %-44s %5s s %5s s\n' "$name" "$verdict" "$what" "$seconds" "$cpu"
printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$verdict" "$what" "$seconds" "$cpu" >> build/logs/summary.tsv
if ((status != 0)); then
    # The toolchain's own warning about mktemp in static Foundation is not ours.
    tail_of_log=$(grep -v "the use of \`mktemp' is dangerous" "$log" | tail -n 40 | sed 's/^/    | /')
    echo "$tail_of_log"
    echo "    (the whole log: $log)"
    # make test-all repeats every failure at its very end, where a CI page
    # that shows only the last lines of a long run still has them.
    if [[ -n ${ENCORE_FAILURES:-} ]]; then
        { echo "$name FAILED (status $status); the end of $log:"; tail -n 25 <<<"$tail_of_log"; } >> "$ENCORE_FAILURES"
    fi
fi
exit "$status"
