#!/bin/sh
# run_golden.sh PGRTT SRCDIR NAME [--update] - run one TESTLIST line from the
# source directory (so paths in the output are relative) and compare stdout,
# stderr and the exit status with tests/golden/EXPECTED.
set -eu
pgrtt=$1 src=$2 name=$3 update=${4:-}
line=$(grep -E "^$name[[:space:]]" "$src/tests/TESTLIST") || { echo "no test $name" >&2; exit 1; }
capture=$(echo "$line" | awk '{print $2}')
expected=$(echo "$line" | awk '{print $3}')
options=$(echo "$line" | awk '{for (i = 4; i <= NF; i++) printf "%s ", $i}')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cd "$src"
export TZ=UTC LC_ALL=C
rc=0
# "{}" in the options stands for the capture's path, otherwise the path goes
# last; a capture of "-" means no file at all (usage errors)
if [ "$capture" = - ]; then
	cmd="$options --no-progress"
elif echo "$options" | grep -q '{}'; then
	cmd=$(echo "$options" | sed "s|{}|captures/$capture|g")
else
	cmd="$options --no-progress captures/$capture"
fi
# PGRTT_THREADS=2: attribution on a thread of its own, as for a large file
# (a small one is read on one thread; the same output, checked below)
eval "PGRTT_THREADS=2 \"$pgrtt\" $cmd" >"$out" 2>&1 || rc=$?
# the version line carries the git hash and build date
sed -i '/"pgrtt":[[:space:]]*"pgrtt /d' "$out"
echo "exit status $rc" >>"$out"
if [ "$update" = --update ]; then
	cp "$out" "tests/golden/$expected"
	echo "updated tests/golden/$expected"
	exit 0
fi
if ! diff -u "tests/golden/$expected" "$out"; then
	echo "golden test $name failed: output differs from tests/golden/$expected" >&2
	exit 1
fi
# attribution runs on a thread of its own when a large file is read: on
# one thread (PGRTT_THREADS=1, as for a small file) the output is the same
case "$options" in *--http-port*)
	rc=0
	eval "PGRTT_THREADS=1 \"$pgrtt\" $cmd" >"$out" 2>&1 || rc=$?
	sed -i '/"pgrtt":[[:space:]]*"pgrtt /d' "$out"
	echo "exit status $rc" >>"$out"
	if ! diff -u "tests/golden/$expected" "$out"; then
		echo "golden test $name failed on one thread (PGRTT_THREADS=1)" >&2
		exit 1
	fi
esac
