"""What every `cost-of-pass` command pays before it runs a notebook: importing papermill and validating a notebook,
as locked (``requirements.lock`` holds jsonschema 4.24.1, whose ``format-nongpl`` extra does not install
``rfc3987_syntax``) and, with ``--with-checker``, beside jsonschema 4.26.0 and its IRI checker, which build 38 Earley
parsers at import (pip-installed into a temporary directory first: needs PyPI).

    .venv/bin/python benchmarks/cli_startup.py [REPEATS] [--with-checker]     # default 5 repeats

Each import runs in a fresh interpreter, REPEATS times per side, alternating; printed: the median CPU seconds of each
side (the child's own ``getrusage``, interpreter start included), their difference and ratio, whether the checker was
loaded as locked, and whether the nbformat schema validates the notebook on every side.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, resource, sys
import nbformat, papermill  # noqa: F401
try:
    nbformat.validate(nbformat.read(sys.argv[1], as_version=4))
    valid = True
except nbformat.ValidationError:
    valid = False
use = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": use.ru_utime + use.ru_stime, "iri": "rfc3987_syntax" in sys.modules, "valid": valid}))
"""
NEWER = ("jsonschema==4.26.0", "rfc3987-syntax==1.1.0", "lark==1.3.1")  # the release the lock steps back from


def cpu(path: str | None) -> dict:
    """One fresh interpreter's import: as locked (``path`` None) or with ``path`` (the newer jsonschema) first."""
    env = os.environ | ({"PYTHONPATH": path} if path else {})
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "notebooks/03_frontier.ipynb")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600, check=True)
    return json.loads(out.stdout)


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    repeats = int(args[0]) if args else 5
    with tempfile.TemporaryDirectory() as newer:
        sides: dict[str, str | None] = {"locked": None}
        if "--with-checker" in sys.argv:
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", newer, *NEWER],
                           check=True, capture_output=True)
            sides["checker"] = newer
        runs: dict[str, list[dict]] = {side: [] for side in sides}
        for _ in range(repeats + 1):  # the first round compiles the newer side's bytecode: not counted
            for side, path in sides.items():
                runs[side].append(cpu(path))
    med = {side: statistics.median(r["cpu"] for r in rs[1:]) for side, rs in runs.items()}
    print(f"import nbformat and papermill, validate a notebook: {repeats} fresh interpreters per side, median CPU")
    print(f"as locked (jsonschema 4.24.1, no IRI checker)      {med['locked']:6.2f} s")
    if "checker" in med:
        print(f"jsonschema 4.26.0 with rfc3987_syntax              {med['checker']:6.2f} s")
        print(f"saved per command: {med['checker'] - med['locked']:.2f} CPU-s ({med['checker'] / med['locked']:.1f}x)")
    print(f"checker loaded as locked: {'yes' if any(r['iri'] for r in runs['locked']) else 'no'}; "
          f"notebook valid on every side: {'yes' if all(r['valid'] for rs in runs.values() for r in rs) else 'no'}")


if __name__ == "__main__":
    main()
