# shellcheck shell=bash
# Sourced by tools/figures-cpu.sh and tools/figures-gpu-host.sh: the loop that
# runs a lab.json's figure runs, so that both run them the same way.
#   run_figure_runs OUT_DIR BUILD_DIR TIMEOUT_S RUNS
# RUNS: lab_manifest figure-runs' lines (the lab, the run's name, the
# shell-quoted command). Each run's --json lines are added to OUT_DIR/LAB.jsonl,
# its stderr to OUT_DIR/LAB.err; a run that fails or outlasts TIMEOUT_S is
# reported and the rest go on. Returns 1 if any run failed.
run_figure_runs() {
  local out=$1 build=$2 limit=$3 runs=$4 lab command start rc status=0
  for lab in $(printf '%s\n' "$runs" | cut -f1 | uniq); do rm -f "$out/$lab.jsonl" "$out/$lab.err"; done
  while IFS=$'\t' read -r lab _ command; do
    start=$SECONDS
    # The command is lab_manifest's, shell-quoted.
    eval "timeout $limit $command --json" >> "$out/$lab.jsonl" 2>> "$out/$lab.err" < /dev/null
    rc=$?
    echo "  $lab: ${command#"$build/labs/"}: exit $rc after $((SECONDS - start)) s"
    [ $rc = 0 ] || status=1
  done <<< "$runs"
  return $status
}
