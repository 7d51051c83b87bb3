#!/bin/sh
# update_golden.sh PGRTT [NAME...] - regenerate expected outputs on purpose
# (all tests when no NAME is given).  Review the diff before committing.
set -eu
pgrtt=$(realpath "$1")
shift
src=$(cd "$(dirname "$0")/.." && pwd)
names=${*:-$(grep -v '^#' "$src/tests/TESTLIST" | awk 'NF {print $1}')}
for n in $names; do
	"$src/tests/run_golden.sh" "$pgrtt" "$src" "$n" --update
done
