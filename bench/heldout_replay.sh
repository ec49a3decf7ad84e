#!/bin/bash
# Replay the held-out sample (bench/heldout/runs.txt: ID|check/diagnose args) offline and print each finding.
# Usage, from the repository root: bench/heldout_replay.sh [PYTHON [RUNS]]   (results: bench/results/heldout.txt;
# RUNS=bench/heldout/runs-catalog.txt replays the rows that lacked a bundled config or a GPU profile: heldout-catalog.txt;
# RUNS=bench/heldout/runs-unstated.txt, the engine named without its release: bench/results/heldout-unstated.txt)
set -u
python=${1:-python3}
runs=${2:-bench/heldout/runs.txt}
out=$(mktemp -d)
while IFS='|' read -r id args; do
  [ -z "$id" ] && continue
  read -r -a argv <<< "$args"
  extra=(--offline --format json)
  if [ "${argv[0]}" = check ]; then
    split=-1
    for i in "${!argv[@]}"; do [ "${argv[$i]}" = "--" ] && { split=$i; break; }; done
    if [ "$split" -ge 0 ]; then
      cmd=("${argv[@]:0:$split}" "${extra[@]}" "${argv[@]:$split}")
    else
      cmd=("${argv[@]}" "${extra[@]}")
    fi
  else
    cmd=("${argv[@]}" "${extra[@]}")
  fi
  "$python" -m doctor "${cmd[@]}" > "$out/$id.json" 2> "$out/$id.err"
  echo "== $id rc=$? :: $args"
  "$python" - "$out/$id.json" "$out/$id.err" <<'PY'
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except ValueError:
    print("  no json:", open(sys.argv[2]).read().strip()[:300])
    sys.exit()
for finding in report.get("findings") or []:
    print(f"  {finding['severity']:8} {finding['id']:9} {finding['title'][:150]}")
for explanation in report.get("explanations") or []:
    print(f"  explains {explanation['rule']} ({explanation['severity']}, {explanation['status']}): {explanation['title'][:120]}")
for match in report.get("public_reports") or []:
    print(f"  reported RPT001 (line {match['line']}) {match['url']}: fix {match['fix'][:110]}")
if "explained" in report:
    print(f"  explained={report['explained']}")
PY
done < "$runs"
rm -rf "$out"
