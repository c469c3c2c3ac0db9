"""The README as a newcomer reads it: every command of its ``bash`` blocks works as written on this checkout.

Commands that need API keys must stop with one line naming the missing keys; those that need the internet
(downloads), Quarto (not installable offline) or are this suite itself (``make test``) are skipped, saying why.
"""

import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow  # runs the README's commands: make all, make humaneval, reprice

README = ROOT / "README.md"
KEYS = re.compile(r"\b[A-Z]+_API_KEY\b")


def readme_commands() -> list[tuple[str, str]]:
    """(command, its trailing comment) for every line of the README's ``bash`` blocks."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S):
        for line in block.splitlines():
            command, _, comment = line.partition("  #")
            if command.strip():
                out.append((command.strip(), comment.strip()))
    return out


def why_not_run(command: str, comment: str) -> str | None:
    """Why a README command cannot run in the suite, or None."""
    if command == "make test":
        return "this is `make test`"
    if "download" in command:
        return "needs the internet"
    if re.search(r"(^|\s)quarto\s", command) and not shutil.which("quarto"):
        return "Quarto is not installed (the project is checked statically: test_report_static.py)"
    return None


COMMANDS = readme_commands()


def test_the_readme_has_its_commands():
    commands = [c for c, _ in COMMANDS]
    assert commands[:2] == ["make all", "make test"]  # the two commands that do everything
    assert any("papermill" in c for c in commands) and any("--dry-run" in c for c in commands)


@pytest.mark.parametrize("command,comment", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_readme_command_works_as_written(command, comment):
    reason = why_not_run(command, comment)
    if reason:
        pytest.skip(reason)
    keys = KEYS.findall(comment)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    out = subprocess.run(command, shell=True, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    if keys:  # without the keys: stops before any call, one line naming each missing key
        assert out.returncode != 0
        errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and all(k in errors[0] for k in keys), out.stderr[-2000:]
        return
    assert out.returncode == 0, f"`{command}` failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
