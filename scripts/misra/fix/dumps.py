"""The command line and the cppcheck dumps the fix tools share
(unsigned_literals.py, boolean_conditions.py): `FOLDER... -- FILE.c...`."""
import collections
import os
import shutil
import subprocess
import sys
import tempfile


def edits_of_files(argv, doc, edits_of):
    """{(file, line, column): edit} of edits_of(dump, folders) over every
    FILE's dump (run from the top of the repository)."""
    if '--' not in argv:
        sys.exit(doc)
    k = argv.index('--')
    folders = tuple(f.rstrip('/') + '/' for f in argv[:k])
    edits = {}
    tmp = tempfile.mkdtemp()
    try:
        for f in argv[k + 1:]:
            # cppcheck writes the dump next to the file: move it out at once
            subprocess.run(['cppcheck', '--dump', '--quiet', '--std=c11', '-Iinclude', '-I.',
                            '-Ihyp', '-Ibuild/include', f], capture_output=True)
            if os.path.exists(f + '.dump'):
                dump = os.path.join(tmp, 'file.dump')
                shutil.move(f + '.dump', dump)
                edits.update(edits_of(dump, folders))
    finally:
        shutil.rmtree(tmp)
    return edits


def by_file(edits):
    """{file: [(line, column, edit...)]} of edits_of_files' result."""
    out = collections.defaultdict(list)
    for (f, line, col), v in edits.items():
        out[f].append((line, col) + (v if isinstance(v, tuple) else (v,)))
    return out
