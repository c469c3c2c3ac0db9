"""Fetch the public copies of the datasets into a data directory (needs internet).

    python -m helpers.core.tasks.download --data-dir data [--tasks gsm8k,math500] [--mirror URL]

Files land in the layout the loaders read (the layout of ``../shared/data``). ``--mirror`` takes
every file from ``<URL>/<relative path>`` instead (an institutional mirror, or a test server).
Two Digit Addition has no plain-file public copy: use ``task_options: {two_digit_addition:
{source: generated}}`` or copy the paper's file into ``two_digit_addition/test.jsonl``.
"""

from __future__ import annotations

import argparse
import sys
import urllib.request
from pathlib import Path

from helpers.core.errors import CostOfPassError, run_command
from helpers.core.tasks.bbq import CATEGORIES

GH = "https://raw.githubusercontent.com"
SOURCES: dict[str, dict[str, str]] = {
    "gsm8k": {"gsm8k/test.jsonl": f"{GH}/openai/grade-school-math/master/grade_school_math/data/test.jsonl"},
    "math500": {"math500/test.jsonl": f"{GH}/openai/prm800k/main/prm800k/math_splits/test.jsonl"},
    "aime24": {"aime24/test.jsonl": f"{GH}/QwenLM/Qwen2.5-Math/main/evaluation/data/aime24/test.jsonl"},
    # GPQA's distribution zip (password-protected; the loader reads dataset/gpqa_diamond.csv from it)
    "gpqa_diamond": {"gpqa_diamond/gpqa_diamond.zip": "https://github.com/idavidrein/gpqa/raw/main/dataset.zip"},
    "bbq": {f"bbq/{c}.jsonl": f"{GH}/nyu-mll/BBQ/main/data/{c}.jsonl" for c in CATEGORIES},
}


def download(data_dir: Path, tasks: list[str] | None = None, mirror: str | None = None,
             timeout_s: float = 60) -> list[Path]:
    """Download the files of ``tasks`` (default: all with a public file) into ``data_dir``; skip present ones."""
    written = []
    for task in tasks or list(SOURCES):
        if task not in SOURCES:
            raise CostOfPassError(f"no public file source for task '{task}' (known: {', '.join(SOURCES)})")
        for rel, url in SOURCES[task].items():
            dest = data_dir / rel
            if dest.is_file():
                continue
            src = f"{mirror.rstrip('/')}/{rel}" if mirror else url
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_suffix(dest.suffix + ".part")
            try:
                with urllib.request.urlopen(src, timeout=timeout_s) as resp, tmp.open("wb") as fh:
                    fh.write(resp.read())
            except OSError as err:
                tmp.unlink(missing_ok=True)
                raise CostOfPassError(f"{task}: could not download {src} ({err})") from None
            tmp.rename(dest)
            written.append(dest)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m helpers.core.tasks.download", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, type=Path)
    ap.add_argument("--tasks", help="comma-separated (default: all)")
    ap.add_argument("--mirror", help="base URL holding the same relative paths")
    args = ap.parse_args(argv)
    def fetch():
        files = download(args.data_dir, args.tasks.split(",") if args.tasks else None, args.mirror)
        print(f"{len(files)} file(s) written under {args.data_dir}")

    return run_command(fetch)


if __name__ == "__main__":
    sys.exit(main())
