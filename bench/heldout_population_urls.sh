#!/bin/bash
# A population draw (the twelfth and later held-out samples) takes reports whether or not the tree already holds
# them, so this check reports, for each URL of SAMPLE/urls.txt, where a ref of the repository already has it instead
# of failing on it. Columns: IN (in the folders a held-out draw skips: ledger, cases, known-good corpus, diagnose
# corpus, the other held-out samples), ELSEWHERE (anywhere else in the tree), new (nowhere), then the status of the
# ledger entry whose url is that report (encoded / not-encoded / not-actionable, with its reason), or "-" when no
# ledger entry has it. URLs are normalised as in bench/heldout_check_urls.sh: /pull/ = /issues/, lower case, no
# fragment, no trailing slash. Usage, from the repository root: bench/heldout_population_urls.sh SAMPLE [REF]
# (SAMPLE e.g. bench/heldout13; REF defaults to main). Exit status 0 whatever it finds.
set -u
sample=$1
ref=${2:-main}
where=$(bash "$(dirname "$0")/heldout_check_urls.sh" "$sample" "$ref")
ledger=$(mktemp -d)
git ls-tree -r --name-only "$ref" -- ledger | grep -E '\.toml$' | while read -r f; do
  git show "$ref:$f" > "$ledger/$(basename "$f")"
done
python3 - "$ledger" <<'PY' > "$ledger/status.txt"
import re, sys, tomllib
from pathlib import Path

def norm(url):
    url = re.sub(r"#.*", "", url).replace("/pull/", "/issues/").rstrip("/").lower()
    return url

for path in sorted(Path(sys.argv[1]).glob("*.toml")):
    for report in tomllib.loads(path.read_text()).get("report", []):
        reason = report.get("reason", "")
        reason = f" ({reason[:90]})" if reason else ""
        print(f"{norm(report['url'])}\t{path.name}: {report.get('status', '?')}{reason}")
PY
echo "$where" | while read -r kind id url rest; do
  case "$kind" in IN|ELSEWHERE|new) ;; *) echo "$kind $id $url $rest"; continue ;; esac
  n=$(echo "$url" | sed -E 's/#.*//; s#/pull/#/issues/#; s#/+$##' | tr 'A-Z' 'a-z')
  status=$(awk -F'\t' -v u="$n" '$1 == u {print $2}' "$ledger/status.txt" | head -1)
  printf '%-9s %-4s %s  [ledger: %s]\n' "$kind" "$id" "$url" "${status:--}"
done
rm -rf "$ledger"
