"""`make setup`'s install into a fresh virtual environment, as the Makefile runs it (``pip install --no-compile``, then
the package's own import closure compiled by importing it) against pip's default (every installed module compiled
to bytecode one after another), side by side in one run: wall seconds of the install, then of the first and the
second import of what a pipeline run loads (every ``helpers`` module, litellm, papermill, the kernel), where the
Makefile's way compiles what pip's did not.

    .venv/bin/python benchmarks/setup_install.py [ROUNDS]     # default 1; the sides alternate

Each side builds its own ``.venv`` in a temporary folder (an editable install of this checkout, from pip's cache:
run it after ``make setup``, whose downloads it reuses). Offline but for what pip's cache lacks.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIRST_RUN = ("import importlib, pkgutil, helpers; [importlib.import_module(m.name) for m in "
             "pkgutil.walk_packages(helpers.__path__, 'helpers.')]; import litellm, papermill, ipykernel.kernelapp")


def env() -> dict:
    """This process's environment with Python's bytecode cache written (as make's recipes have it) and offline."""
    out = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**out, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def timed(cmd: list[str]) -> float:
    """Wall seconds of ``cmd`` run from the checkout (its output kept out; a failure stops the benchmark)."""
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, env=env(), capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    return time.perf_counter() - start


def install(side: str, venv: Path) -> float:
    """Wall seconds of a fresh install: the Makefile's recipe (``make``), or pip's default (``pip``)."""
    if side == "make":
        return timed(["make", "-s", f"VENV={venv}", f"{venv}/.installed"])
    py = str(venv / "bin" / "python")
    return (timed([sys.executable, "-m", "venv", str(venv)])
            + timed([py, "-m", "pip", "install", "--quiet", "--upgrade", "pip>=24"])
            + timed([py, "-m", "pip", "install", "--quiet", "-c", "requirements.lock", "-e", ".[dev]"]))


def main(rounds: int) -> None:
    sides = {"make": "the Makefile (--no-compile, import closure)", "pip": "pip's default (compile all)"}
    seen: dict[str, list[tuple[float, float, float]]] = {s: [] for s in sides}
    for _ in range(rounds):
        for side in sides:
            with tempfile.TemporaryDirectory() as tmp:
                venv = Path(tmp) / ".venv"
                py = str(venv / "bin" / "python")
                seen[side].append((install(side, venv), timed([py, "-c", FIRST_RUN]), timed([py, "-c", FIRST_RUN])))
    print(f"a fresh .venv, {rounds} round(s), {os.cpu_count()} cores (median wall s)")
    print(f"{'install':<45} {'install':>8} {'1st run':>8} {'2nd run':>8} {'total':>8}")
    totals = {}
    for side, label in sides.items():
        inst, first, second = (statistics.median(x[i] for x in seen[side]) for i in range(3))
        totals[side] = inst + first
        print(f"{label:<45} {inst:>8.1f} {first:>8.1f} {second:>8.1f} {inst + first:>8.1f}")
    print(f"install and first run: x{totals['make'] / totals['pip']:.2f} of pip's default")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
