"""The README and docs/ as a newcomer reads them: every command of their ``bash`` blocks works as written on this
checkout (the README's first, then the pages in ``PAGES``' order, each command once).

Commands that need API keys must stop with one line naming the missing keys; those that need the internet
(downloads), Quarto (not installable offline) or are this suite itself (``make test``) are skipped, saying why.
"""

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, run_in_session
from helpers.publish import readme

README = ROOT / "README.md"
# the pages in the order their commands run: a later page's commands may read what an earlier one made
PAGES = ["getting-started", "forking", "data", "humaneval-agents", "swebench", "report", "library"]
KEYS = re.compile(r"\b[A-Z]+_API_KEY\b")


def readme_commands() -> list[tuple[str, str]]:
    """(command, its trailing comment) for every line of the ``bash`` blocks of the README and of ``PAGES``, each
    command once (where it first appears)."""
    out, seen = [], set()
    for page in [README, *(ROOT / "docs" / f"{p}.md" for p in PAGES)]:
        for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
            for line in block.splitlines():
                command, _, comment = line.partition("  #")
                if command.strip() and command.strip() not in seen:
                    seen.add(command.strip())
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


def test_the_readme_is_short_and_its_pages_are_linked():
    """At most 200 lines, the result on its first screen; every page of docs/ linked from it, every page with
    commands in ``PAGES``, and every relative link of the README and docs/ leads to a file and heading that exist."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    assert text.index(readme.START) < 600 and "<img src=" in text.split(readme.END)[0]
    pages = sorted((ROOT / "docs").glob("*.md"))
    assert {p.name for p in pages} <= set(re.findall(r"\(docs/([a-z-]+\.md)\)", text))
    assert {p.stem for p in pages if "```bash" in p.read_text(encoding="utf-8")} <= set(PAGES)
    links = [(page, link) for page in [README, *pages]
             for link in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8"))]
    broken = [f"{page.name}: {link}" for page, link in links
              if not link.startswith(("http://", "https://")) and not _resolves(page, link)]
    assert not broken, broken


def _slug(heading: str) -> str:
    """A Markdown heading's anchor as GitHub writes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _resolves(page, link: str) -> bool:
    path, _, anchor = link.partition("#")
    target = (page.parent / path).resolve() if path else page
    if not target.exists():
        return False
    if not anchor:
        return True
    headings = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), flags=re.M)
    return anchor in {_slug(h) for h in headings}


# How long one README command may take in the suite before it is taken for a hang: not a speed check (speed is measured
# in benchmarks/). `make all` takes 657 s alone on a 2-core EPYC and 2,209 s beside the rest of the suite (-n 3 on 2
# cores; 2026-12-02), and one CI machine ran the same suite 2.0 × longer than another (2,966 s and 1,488 s). Past this
# the command's session is killed and this test fails alone, with the command's output; with the set-up the suite then
# still ends within CI's 90 minutes. The pytest timeout above it is the last resort for a hang here.
COMMAND_S = 4200


@pytest.mark.slow  # runs the commands: make all, make humaneval, make swebench, reprice, a fork
@pytest.mark.timeout(COMMAND_S + 300)
@pytest.mark.parametrize("command,comment", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_readme_command_works_as_written(command, comment):
    reason = why_not_run(command, comment)
    if reason:
        pytest.skip(reason)
    keys = KEYS.findall(comment)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    out = run_in_session(command, timeout_s=COMMAND_S, shell=True, cwd=ROOT, env=env)
    if keys:  # without the keys: stops before any call, one line naming each missing key
        assert out.returncode != 0
        errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and all(k in errors[0] for k in keys), out.stderr[-2000:]
        return
    assert out.returncode == 0, f"`{command}` failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"


@pytest.mark.slow
def test_the_readme_result_is_what_the_results_say():
    """After ``make swebench`` (a command above): the README's result block is exactly what
    ``python -m helpers.publish.readme`` writes from the set's results, and its figure is committed."""
    results = ROOT / "results" / readme.SET
    if not (results / "tables" / "findings.csv").is_file():
        pytest.skip(f"{results} has no findings (the SWE-bench data is not in the data directory)")
    assert readme.result_block(results) in README.read_text(encoding="utf-8"), "run `python -m helpers.publish.readme`"
    assert (ROOT / readme.IMAGE).stat().st_size > 10_000


NUMBERS = re.compile(r"\d[\d,.]*\d|\d")


def _docs_blocks_quote(set_name: str, exact: bool = True) -> None:
    """Every docs block that quotes ``set_name``'s results is exactly what ``python -m helpers.publish.readme --docs``
    writes from them (issue 62: numbers in the docs are generated, never typed); skipped without its results. Not
    ``exact``: the same words, every number free (where the machine decided some verdicts, see the HumanEval test)."""
    blocks = [(page, name) for (page, name), (s, _, _) in readme.DOC_BLOCKS.items() if s == set_name]
    assert blocks
    for page, name in blocks:
        block = readme.doc_block(page, name, ROOT / "results")
        if block is None:
            pytest.skip(f"results/{set_name} has no findings (its data is not in the data directory)")
        text = (ROOT / page).read_text(encoding="utf-8")
        if not exact:
            block, text = (findings_free(reasons_free(NUMBERS.sub("#", t))) for t in (block, text))
        block, text = near_limit_free(block), near_limit_free(text)
        assert block in text, f"{page}#{name}: run `python -m helpers.publish.readme --docs`"


NEAR_LIMIT_SAID = re.compile(r"\d+ attempts?' programs used at least two thirds of the \d+ s CPU limit \(\d+ passed, "
                             r"\d+ did not\)")


def near_limit_free(text: str) -> str:
    """``text`` with the numbers of the near-limit sentence free: how many programs come within two thirds of the CPU
    limit moves from one grading to the next on one machine (38, 43, 41 in three cold gradings), with verdicts alike."""
    return NEAR_LIMIT_SAID.sub(lambda m: NUMBERS.sub("#", m.group(0)), text)


REASONS_SAID = re.compile(r"(by the grader's reason: ).*?(\)\. )")


def reasons_free(text: str) -> str:
    """``text`` with the agreement block's list of disagreements by reason free: where this machine's verdicts differ
    from the committed docs', so does the list (CI of 9ed8930 failed on it with the numbers already free)."""
    return REASONS_SAID.sub(r"\1…\2", text)


FINDINGS_SAID = re.compile(r"(Techniques and strategies shown to pay \(cross-fitted gain, %\): |% intervals; )[^\n]*"
                           r"(\n<!-- results/)")


def findings_free(text: str) -> str:
    """``text`` with what its findings name free: where this machine's verdicts differ from the committed docs', a gain
    whose interval ends near 0 can cross it, and the list of techniques or releases shown to pay changes with it (CI
    of acc1a81 failed on the headline's words with every number free; which finding moved there is not known: its
    log printed the start of the block only, and here a retry's gain reads 15.2 [0.211, 33.6]%)."""
    return FINDINGS_SAID.sub(r"\1…\2", text)


def test_the_findings_are_free_where_the_verdicts_differ():
    said = ("<!-- a: start -->\nfrontier: 0.307. Techniques and strategies shown to pay (cross-fitted gain, %"
            "): retry by GPT-4: 15.2 [0.211, 33.6]%.\n<!-- results/x#a: end -->")
    other = said.replace("retry by GPT-4: 15.2 [0.211, 33.6]%", "none")
    assert findings_free(said) == findings_free(other) != findings_free(said.replace("0.307", "0.31"))
    shows = "(95% intervals; 1 of the 3 releases has a gain shown).\n<!-- results/x#b: end -->"
    assert findings_free(shows) == "(95% intervals; …\n<!-- results/x#b: end -->"


def test_the_reasons_list_is_free_where_the_verdicts_differ():
    said = ("9 of 18,860 attempts differ (`grader_disagreements` lists each; by the grader's reason: 5: passed every "
            "hidden test; 4: ModuleNotFoundError: No module named &#39;sympy&#39;). 41 attempts' programs")
    other = said.replace("4: Module", "2: CPU time limit; 4: Module")
    assert reasons_free(said) == reasons_free(other) != reasons_free(said.replace("attempts differ", "differ"))
    assert reasons_free(said).endswith("by the grader's reason: …). 41 attempts' programs")


def test_the_near_limit_sentence_is_compared_without_its_counts():
    said = "differ. 41 attempts' programs used at least two thirds of the 20 s CPU limit (7 passed, 34 did not): their"
    assert near_limit_free(said) == ("differ. # attempts' programs used at least two thirds of the # s CPU limit "
                                     "(# passed, # did not): their")


@pytest.mark.slow
def test_the_swebench_docs_quote_its_results():
    """After ``make swebench``: docs/swebench.md's numbers are the results' own."""
    _docs_blocks_quote("swebench_bash_only")


MODEL_BASED_CELL = re.compile(r"^(\|(?:[^|]*\|){5}) [\d.]+% (\|)", flags=re.M)


def model_based_free(text: str) -> str:
    """``text`` with the validity summary's model-based coverage (its fifth value column) free: the model-based fit is
    an optimiser's, and the same code and seeds moved it by up to 1 point between two CPUs (42.9% on a Xeon, 42.8% on
    an EPYC for Table 1, 2026-11-30: main @ 36301c2 run on both); every other cell is the same on both."""
    return MODEL_BASED_CELL.sub(r"\1 # \2", text)


def test_only_the_model_based_coverage_is_free():
    row = "| Table 1: one model and the expert (USD), 60 cells | 0.44 | 2.7 | 85.7% ± 0.8 | 96.5% | 42.9% | – |"
    assert model_based_free(row) == ("| Table 1: one model and the expert (USD), 60 cells | 0.44 | 2.7 | 85.7% ± 0.8 "
                                     "| 96.5% | # | – |")
    assert model_based_free(row.replace("42.9%", "42.8%")) == model_based_free(row)
    assert model_based_free(row.replace("96.5%", "96.4%")) != model_based_free(row)


@pytest.mark.slow
def test_the_sim_docs_quote_its_results():
    """After ``make all``: docs/statistics.md's table of the paper's estimators on ``sim`` is its 07_validity's own
    (the model-based coverage free: ``model_based_free``)."""
    for page, name in [(page, name) for (page, name), (s, _, _) in readme.DOC_BLOCKS.items() if s == "sim"]:
        block = readme.doc_block(page, name, ROOT / "results")
        if block is None:
            pytest.skip("results/sim has no findings")
        assert model_based_free(block) in model_based_free((ROOT / page).read_text(encoding="utf-8")), (
            f"{page}#{name}: run `python -m helpers.publish.readme --docs`")


@pytest.mark.slow
def test_the_local_docs_quote_its_results():
    """After ``make all``: docs/local-models.md's Tables 5 and 1 of the committed local records are the results' own."""
    _docs_blocks_quote("local")


@pytest.mark.slow
def test_the_humaneval_docs_quote_its_results():
    """After ``make humaneval`` (in its worker group, after the command): docs/humaneval-agents.md's and
    docs/statistics.md's numbers on it are the results' own — exactly, where this machine's verdicts differ from the
    source's as the committed docs' agreement block says; else the words are the same, the numbers and the list of
    disagreements by reason free (CI of 9ed8930 failed on the list with the numbers free), and what the findings name
    (``findings_free``): verdicts
    near the CPU limit rest on the grading machine's speed (CI's graded 2 of HumanEval/129's 18-s solutions over the
    limit), which the docs' agreement block says, with how many programs came that near."""
    block = readme.doc_block("docs/humaneval-agents.md", "agreement", ROOT / "results")
    if block is None:
        pytest.skip("results/humaneval_agents has no findings (its data is not in the data directory)")
    committed = (ROOT / "docs/humaneval-agents.md").read_text(encoding="utf-8")
    assert "at least two thirds of the 20 s CPU limit" in block
    _docs_blocks_quote("humaneval_agents", exact=near_limit_free(block) in near_limit_free(committed))


QUOTES = re.compile(r"<!-- quotes (benchmarks/results/[\w.-]+\.txt) -->")
NUMBER = re.compile(r"(?<![\w.,/-])\d[\d,]*(?:\.\d+)?(?=\s?%)|(?<![\w.,/-])\d[\d,]*\.\d+(?![\w.])")  # its sign: either


def quoted_passages(text: str) -> list[tuple[str, str]]:
    """(output file, passage) for every ``<!-- quotes benchmarks/results/<x>.txt -->`` of a page: the passage is the
    text before the marker back to the latest of its paragraph's or bullet's start and the previous HTML comment (a
    bare ``<!-- quote -->`` starts a passage mid-paragraph), inline code left out."""
    out = []
    for m in QUOTES.finditer(text):
        before = text[:m.start()]
        start = max(before.rfind("\n\n"), before.rfind("\n- "), before.rfind("-->") + 2)
        out.append((m.group(1), re.sub(r"`[^`]*`", "", before[start:])))
    return out


def test_every_quoted_number_is_in_the_output_it_quotes():
    """A docs passage that quotes a benchmark's saved output (``<!-- quotes benchmarks/results/<x>.txt -->``) types no
    number that output does not print (decimals and percentages, compared as numbers without their sign: "100%" is
    "100.0", "−23.1" is "-23.1"): a
    re-run that moves a figure fails here until the page says what the output says."""
    pages = [README, *sorted((ROOT / "docs").glob("*.md"))]
    checked = 0
    for page in pages:
        for name, passage in quoted_passages(page.read_text(encoding="utf-8")):
            output = (ROOT / name).read_text(encoding="utf-8")
            printed = {float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", output)}
            typed = [x for x in NUMBER.findall(passage) if float(x.replace(",", "")) not in printed]
            assert not typed, f"{page.name} quotes {name} with numbers it does not print: {typed}"
            checked += 1
    assert checked >= 6  # the pages do quote the outputs


def test_the_quote_check_catches_a_typed_number():
    text = ("- Coverage 99.8–100% over 10 generators, width 0.085 (run 2026-11-27).<!-- "
            "quotes benchmarks/results/x.txt -->")
    [(name, passage)] = quoted_passages(text)
    assert name == "benchmarks/results/x.txt" and NUMBER.findall(passage) == ["99.8", "100", "0.085"]
    [(_, later)] = quoted_passages("A 0.31 bound.<!-- quote --> Then 4.2% here.<!-- "
                                   "quotes benchmarks/results/x.txt -->")
    assert NUMBER.findall(later) == ["4.2"]


def test_every_docs_block_has_its_markers_once():
    from helpers.publish.readme import DOC_BLOCKS, doc_markers

    for page, name in DOC_BLOCKS:
        text = (ROOT / page).read_text(encoding="utf-8")
        start, end = doc_markers(page, name)
        assert text.count(start) == 1 and text.count(end) == 1 and text.index(start) < text.index(end), (page, name)


def test_the_library_examples_run():
    """docs/library.md's complete example runs as written, and the README's example is the page's first one."""
    page = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    first, complete = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    assert re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S) == [first]
    scope: dict = {}
    exec(compile(complete, "docs/library.md", "exec"), scope)  # noqa: S102 - the page's own example
    rows = scope["rows"]
    assert set(rows["statistic"]) == {"table1:cheap", "table1:dear", scope["FRONTIER"]}
    assert (rows["low"] <= rows["value"]).all() and (rows["value"] <= rows["high"]).all()


def test_the_docs_build_as_a_site_offline(tmp_path):
    """``mkdocs build --strict``: every page in the navigation, every link and anchor resolves, nothing fetched."""
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    page = (tmp_path / "site" / "statistics.html").read_text(encoding="utf-8")
    assert "Known truth" in page or "known truth" in page
    assert not re.findall(r'<(?:script|link)[^>]+(?:src|href)="https?://', page)


def test_the_longest_readme_commands_run_beside_the_others_and_their_reports_are_checked_after_them():
    """`make humaneval` and `make all` (each a third of the suite's CPU) are worker groups of their own, each with
    what reads its sets after it in file order; the other README commands and the checks of their reports stay
    together (``conftest.xdist_group``). Every test a group names exists (a renamed test would fall back to its file's
    group and could run before the command it reads)."""
    from conftest import HUMANEVAL, LONGEST, MAKE_ALL, xdist_group

    command = "test_readme.py::test_readme_command_works_as_written"
    assert xdist_group(f"{command}[make humaneval]") == "humaneval"
    assert (xdist_group("test_report_html.py::test_the_reports_on_disk_pass_the_browser_check[humaneval_agents]")
            == "humaneval")
    assert xdist_group("test_sandbox.py::test_no_new_process_and_nothing_outlives_grading[os.fork]") == "humaneval"
    for name in (f"{command}[make all]", f"{command}[.venv/bin/cost-of-pass publish /tmp/site]",
                 "test_report_html.py::test_the_reports_on_disk_pass_the_browser_check[sim]"):
        assert xdist_group(name) == "make_all"
    for name in (f"{command}[make all PARAMS=params/routellm_gsm8k.yaml]", f"{command}[make swebench]",
                 "test_report_html.py::test_the_reports_on_disk_pass_the_browser_check[swebench_bash_only]"):
        assert xdist_group(name) == "checkout"
    commands = {f"{command}[{c}]" for c, _ in COMMANDS}
    here = {f"test_readme.py::{name}" for name in globals() if name.startswith("test_")}
    for entry in (*MAKE_ALL, *HUMANEVAL):
        if entry.startswith(command):
            assert entry in commands, entry
        elif entry.startswith("test_readme.py"):
            assert entry in here, entry
    assert all(u in ("make_all", "checkout", "humaneval", "small_sim_set") or (ROOT / u).is_file() for u in LONGEST)


def test_a_programs_words_in_a_docs_block_are_escaped(tmp_path):
    """The agreement block quotes the grader's reasons, which quote what a graded program raised: markup in them
    reaches the docs page as text, never as HTML or a link."""
    tables = tmp_path / "humaneval_agents" / "tables"
    tables.mkdir(parents=True)
    (tables / "grader_agreement.csv").write_text("agree_pct,responses,near_limit,near_limit_passed\n99.5,200,3,1\n",
                                                 encoding="utf-8")
    hostile = "<img src=x onerror=alert(1)> [click](javascript:alert(1))"
    (tables / "grader_disagreements.csv").write_text(f'reason,run\n"{hostile}",1\n', encoding="utf-8")
    block = readme.doc_block("docs/humaneval-agents.md", "agreement", tmp_path)
    assert block is not None and "1 of 200 attempts differ" in block
    assert "3 attempts' programs used at least two thirds of the 20 s CPU limit (1 passed, 2 did not)" in block
    assert "<img" not in block and "&lt;img" in block
    assert "\\[click\\](javascript" in block and " [click]" not in block  # brackets escaped: no link


def test_the_readme_result_says_issues_throughout():
    """Review 11, L6: the block said "(USD per issue)" and then quoted "on the 64 problems no model passed"."""
    assert readme.issues("9.55: mostly the assumed expert fee (99.2% of it, on the 64 problems no model passed in any "
                         "run of its single attempt); 0.02 USD per problem") == (
        "9.55: mostly the assumed expert fee (99.2% of it, on the 64 issues no model passed in any run of its single "
        "attempt); 0.02 USD per issue")
    assert readme.issues(3.5) == 3.5 and readme.issues("problematic") == "problematic"
