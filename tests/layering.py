#!/usr/bin/python3
"""layering.py [ROOT] - every #include of src/ and dissectors/ goes down or sideways
within a folder, never up: the order is src/LAYERS.  A header named NAME_impl.h
is the inside of its folder (struct analysis is the engine's): only its own
folder includes it.

An include is read as the compiler reads it with pgrtt's include folders:
"x/y.h" from src/, a bare "y.h" from the including file's own folder, then
dissectors/, then bench/ (the harness's dataset), then the build's generated
version.h.  An include that is none of these is an error too, so a file
cannot slip past the check by a path it does not know.

Exit 0: the tree keeps the order.  Exit 1: one line per include that breaks
it (file:line, what it includes, both layers).  Exit 2: LAYERS unreadable,
or a C file in a folder LAYERS does not name.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
GENERATED = {"version.h"}


def read_layers(root):
    rank = {}
    path = os.path.join(root, "src", "LAYERS")
    with open(path) as f:
        n = 0
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            for folder in line:
                rank[folder.rstrip("/")] = n
            n += 1
    return rank


def c_files(root, top):
    for d, _, files in os.walk(os.path.join(root, top)):
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, name), root)


def resolve(root, src_file, inc):
    """The repository path an include names, or None."""
    here = os.path.dirname(src_file)
    candidates = []
    if "/" in inc:
        candidates.append(os.path.normpath(os.path.join("src", inc)))
    candidates += [os.path.join(here, inc), os.path.join("dissectors", inc),
                   os.path.join("bench", inc)]
    for c in candidates:
        if os.path.isfile(os.path.join(root, c)):
            return c
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    try:
        rank = read_layers(root)
    except OSError as e:
        print("layering: src/LAYERS: %s" % e.strerror, file=sys.stderr)
        return 2
    bad = 0
    unplaced = set()
    for f in list(c_files(root, "src")) + list(c_files(root, "dissectors")):
        folder = os.path.dirname(f)
        if folder not in rank:
            unplaced.add(folder)
            continue
        with open(os.path.join(root, f), errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m or m.group(1) in GENERATED:
                    continue
                target = resolve(root, f, m.group(1))
                if target is None:
                    print("%s:%d: \"%s\": no such file in pgrtt's include folders"
                          % (f, lineno, m.group(1)))
                    bad += 1
                    continue
                tfolder = os.path.dirname(target)
                if tfolder == folder:
                    continue
                if target.endswith("_impl.h"):
                    print("%s:%d: includes %s, the inside of %s/ (NAME_impl.h is its own folder's)"
                          % (f, lineno, target, tfolder))
                    bad += 1
                    continue
                if tfolder not in rank:
                    unplaced.add(tfolder)
                    continue
                if rank[tfolder] >= rank[folder]:
                    how = "a sibling" if rank[tfolder] == rank[folder] else "a layer above"
                    print("%s:%d: includes %s, %s of %s/ (src/LAYERS)"
                          % (f, lineno, target, how, folder))
                    bad += 1
    for folder in sorted(unplaced):
        print("layering: %s/ holds C files but is not in src/LAYERS" % folder, file=sys.stderr)
    if unplaced:
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
