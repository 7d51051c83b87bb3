#!/usr/bin/python3
"""layering_test.py - tests/layering.py passes on the tree and fails on a
copy of it with an include that goes up, one it cannot find, and a folder
src/LAYERS does not name."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CHECK = os.path.join(HERE, "layering.py")


def run(root):
    p = subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def with_copy(edit):
    with tempfile.TemporaryDirectory() as t:
        for d in ("src", "dissectors", "bench"):
            shutil.copytree(os.path.join(ROOT, d), os.path.join(t, d),
                            ignore=shutil.ignore_patterns("apps"))
        edit(t)
        return run(t)


def append(path, text):
    def edit(t):
        with open(os.path.join(t, path), "a") as f:
            f.write(text)
    return edit


failures = []


def expect(what, got, rc, needle):
    code, out = got
    if code != rc or needle not in out:
        failures.append("%s: exit %d, expected %d with %r in:\n%s" % (what, code, rc, needle, out))


expect("the tree", run(ROOT), 0, "")
expect("base includes a command",
       with_copy(append("src/base/hist.c", '#include "cmd/commands.h"\n')), 1,
       "src/base/hist.c:")
expect("the attribution includes the engine",
       with_copy(append("src/attrib/attrib.h", '#include "engine/analysis.h"\n')), 1,
       "includes src/engine/analysis.h, a layer above of src/attrib/")
expect("a protocol includes its sibling",
       with_copy(append("src/proto/redis/redis_rtt.c", '#include "proto/pgsql/rtt.h"\n')), 1,
       "a sibling of src/proto/redis/")
expect("a dissector includes src/",
       with_copy(append("dissectors/resp.c", '#include "base/hist.h"\n')), 1,
       "dissectors/resp.c:")
expect("an output reads inside the analysis",
       with_copy(append("src/report/report_text.c", '#include "engine/analysis_impl.h"\n')), 1,
       "the inside of src/engine/")
expect("an include of no file", with_copy(append("src/net/netdecode.c", '#include "nowhere.h"\n')),
       1, "no such file")


def new_folder(t):
    os.makedirs(os.path.join(t, "src", "extra"))
    with open(os.path.join(t, "src", "extra", "x.c"), "w") as f:
        f.write('#include "base/hist.h"\n')


expect("a folder not in LAYERS", with_copy(new_folder), 2, "src/extra/ holds C files")
for f in failures:
    print("FAIL", f)
print("layering: %d of 8 checks passed" % (8 - len(failures)))
sys.exit(1 if failures else 0)
