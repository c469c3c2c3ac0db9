"""What every `cost-of-pass` command pays before it runs a notebook: importing papermill, with and without jsonschema's
optional IRI checker (``rfc3987_syntax``, which the CLI keeps out: ``runner.SKIPPED_IMPORTS``).

    .venv/bin/python benchmarks/cli_startup.py [REPEATS]     # default 5

Each import runs in a fresh interpreter, REPEATS times per side, alternating; printed: the median CPU seconds of each
side (the child's own ``getrusage``, interpreter start included), their difference and ratio, and whether the
nbformat schema still validates a notebook without the checker. Runs offline; needs no benchmark data.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, resource, sys
if sys.argv[1] == "skipped":
    sys.modules["rfc3987_syntax"] = None  # as helpers.cli.runner.main does
import nbformat, papermill  # noqa: F401
try:
    nbformat.validate(nbformat.read(sys.argv[2], as_version=4))
    valid = True
except nbformat.ValidationError:
    valid = False
use = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": use.ru_utime + use.ru_stime, "iri": sys.modules.get("rfc3987_syntax") is not None,
                  "valid": valid}))
"""


def cpu(side: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, side, str(ROOT / "notebooks/03_frontier.ipynb")], cwd=ROOT,
                         capture_output=True, text=True, timeout=600, check=True)
    return json.loads(out.stdout)


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    runs: dict[str, list[dict]] = {"with": [], "skipped": []}
    for _ in range(repeats):
        for side in runs:
            runs[side].append(cpu(side))
    med = {side: statistics.median(r["cpu"] for r in rs) for side, rs in runs.items()}
    print(f"import nbformat and papermill, validate a notebook: {repeats} fresh interpreters per side, median CPU")
    print(f"with rfc3987_syntax (jsonschema's IRI checker)   {med['with']:6.2f} s")
    print(f"without it (what the CLI does)                    {med['skipped']:6.2f} s")
    print(f"saved per command: {med['with'] - med['skipped']:.2f} CPU-s ({med['with'] / med['skipped']:.1f}x); "
          f"checker loaded when skipped: {'yes' if any(r['iri'] for r in runs['skipped']) else 'no'}; "
          f"notebook valid on both sides: {'yes' if all(r['valid'] for rs in runs.values() for r in rs) else 'no'}")


if __name__ == "__main__":
    main()
