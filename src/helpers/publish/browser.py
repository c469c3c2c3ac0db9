"""A rendered page as a reader's browser shows it: headless Chromium opens it and reports what a reader would trip
on — a script or console error, a figure that does not load or draws nothing, a figure wider than the page, an
internal identifier in the text, a value outside its own interval — and saves a screenshot of every figure.

Used by the tests (``tests/test_report_html.py``) and by anyone checking a report before publishing it:
``python -m helpers.publish.browser results/<set>/report/index.html``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]
WIDTH = 1280  # px: the window a reader's laptop gives the page

CATCH = """<script>
window.copErrors = [];
window.addEventListener('error', e => window.copErrors.push(String(e.message || e)));
const copConsoleError = console.error;
console.error = (...a) => { window.copErrors.push(a.join(' ')); copConsoleError(...a); };
</script>"""
CHECK = """<script>
function copBlank(img) {  // the figure as drawn at the report's width: blank when its pixels barely vary
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0, c.width, c.height);
  const d = ctx.getImageData(0, 0, c.width, c.height).data;
  let lo = 255, hi = 0;
  for (let k = 0; k < d.length; k += 4 * 13) { lo = Math.min(lo, d[k]); hi = Math.max(hi, d[k]); }
  return hi - lo < 40;
}
function copText() {  // what a reader reads, less files shown as they are (class cop-raw: a parameter file)
  const raw = [...document.querySelectorAll('.cop-raw')];
  raw.forEach(e => e.style.display = 'none');
  const text = document.body.innerText;
  raw.forEach(e => e.style.display = '');
  return text;
}
window.addEventListener('load', () => setTimeout(() => {  // interactive charts draw after load
  document.querySelectorAll('details').forEach(d => d.open = true);  // folded tables are read too
  const imgs = [...document.images];
  const out = {images: imgs.length, loaded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
               tables: document.querySelectorAll('table').length, text: copText(),
               blank: imgs.filter(copBlank).map(i => i.id), errors: window.copErrors,
               widest: Math.max(0, ...imgs.map(i => i.getBoundingClientRect().right)), page: window.innerWidth,
               height: document.documentElement.scrollHeight,
               figures: imgs.map(i => { const r = i.getBoundingClientRect();
                 return {id: i.id, x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height,
                         src: i.currentSrc || i.src}; }),
               charts: document.querySelectorAll('.cop-chart').length,
               drawn: [...document.querySelectorAll('.cop-chart')].filter(c => \
c.querySelector('svg path, svg text')).length};
  const pre = document.createElement('pre'); pre.id = 'cop-check'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 1500));
</script>"""
NUMBER = r"-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?"
INTERVAL = re.compile(rf"(?<![\w.\[,-])({NUMBER}) \[({NUMBER}), ({NUMBER})\]")
# 4.55e-05: one formatter never writes it (a float's own e-notation has one digit before its point; a commit such as
# 0696089584e9 in the About box is hex, not a number)
E_NOTATION = re.compile(r"(?<![\w.])\d(?:\.\d+)?[eE][-+]?\d+(?!\w)")
HEX_ID = re.compile(r"[0-9a-f]{7,40}")


def chromium() -> str | None:
    """Debian's headless browser, where installed (``make chromium``)."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _run(browser: str, args: list[str], profile: Path) -> subprocess.CompletedProcess:
    return subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                          timeout=240)


def inspect(page: Path, workdir: Path) -> dict:
    """Open ``page`` (a copy with the checking scripts) at ``WIDTH`` px and return what the scripts measured."""
    browser = chromium()
    if browser is None:
        raise RuntimeError("chromium is not installed (make chromium)")
    workdir.mkdir(parents=True, exist_ok=True)
    probe = workdir / "page.html"
    html = page.read_text(encoding="utf-8")
    head, _, tail = html.replace("<head>", "<head>" + CATCH, 1).rpartition("</body>")  # the page's own, the last one
    probe.write_text(f"{head}{CHECK}</body>{tail}" if head else html + CHECK, encoding="utf-8")
    out = _run(browser, [f"--window-size={WIDTH},1000", "--virtual-time-budget=15000", "--dump-dom", probe.as_uri()],
               workdir / "profile")
    found = re.search(r'<pre id="cop-check">(.*?)</pre>', out.stdout, re.S)
    if not found:
        raise RuntimeError(f"the page's check did not run: {out.stderr[-500:]}")
    import html as html_lib

    return json.loads(html_lib.unescape(found.group(1)))


def outside_intervals(text: str) -> list[str]:
    """Every ``value [low, high]`` in ``text`` whose value lies outside its interval."""
    bad = []
    for m in INTERVAL.finditer(text):
        v, lo, hi = (float(g.replace(",", "")) for g in m.groups())
        if not lo <= v <= hi:
            bad.append(m.group(0))
    return bad


def problems(measured: dict, internal: list[str]) -> list[str]:
    """One line per defect in what ``inspect`` measured; ``internal``: identifiers the text must not show."""
    out = [f"script or console error: {e}" for e in measured["errors"]]
    if measured["loaded"] != measured["images"]:
        out.append(f"{measured['images'] - measured['loaded']} figure(s) did not load")
    out += [f"figure draws nothing: {name}" for name in measured["blank"]]
    if measured.get("drawn", 0) < measured.get("charts", 0):
        out.append(f"{measured['charts'] - measured['drawn']} interactive chart(s) did not draw")
    if measured["widest"] > measured["page"]:
        out.append(f"a figure is wider than the page ({measured['widest']:.0f} > {measured['page']} px)")
    text = measured["text"]
    out += [f"internal name in the text: {name}" for name in internal  # (a file path may name a dataset's folder)
            if re.search(rf"(?<![\w/-]){re.escape(name)}(?![\w/-])", text)]
    out += [f"value outside its own interval: {cell}" for cell in outside_intervals(text)]
    out += [f"number in e-notation: {m}" for m in E_NOTATION.findall(text) if not HEX_ID.fullmatch(m)]
    return out


def screenshots(measured: dict, out_dir: Path, workdir: Path) -> list[Path]:
    """A PNG of every figure as the page ``inspect`` measured draws it at ``WIDTH`` px (the same image, left edge and
    size), named by its id (``out_dir/<id>.png``). Chromium draws the figures alone, one under the other
    (``figures_page``): a page a fraction of the report's height (a long report is tens of thousands of px, slow to draw
    whole)."""
    from PIL import Image

    browser = chromium()
    if browser is None:
        raise RuntimeError("chromium is not installed (make chromium)")
    full = workdir / "full.png"
    page, boxes, height = figures_page(measured["figures"])
    probe = workdir / "figures.html"
    probe.write_text(page, encoding="utf-8")
    _run(browser, [f"--window-size={WIDTH},{max(height, 100)}", "--virtual-time-budget=15000", f"--screenshot={full}",
                   probe.as_uri()], workdir / "profile")
    out_dir.mkdir(parents=True, exist_ok=True)
    saved = []
    with Image.open(full) as image:
        for k, (f, box) in enumerate(zip(measured["figures"], boxes, strict=True)):
            path = out_dir / f"{f['id'] or f'figure{k + 1}'}.png"
            image.crop(box).save(path)
            saved.append(path)
    return saved


GAP = 16  # px between two figures on ``figures_page``


def figures_page(figures: list[dict]) -> tuple[str, list[tuple[int, int, int, int]], int]:
    """(HTML, crop box of each figure (px), height (px)): a page of ``figures`` (``inspect``'s: src, x, w, h) alone,
    each at its left edge and size on the measured page, one under the other ``GAP`` px apart."""
    import html

    parts, boxes, top = [], [], 0
    for f in figures:
        x, w, h = float(f["x"]), float(f["w"]), float(f["h"])
        parts.append(f'<img src="{html.escape(str(f.get("src") or ""), quote=True)}" '
                     f'style="position:absolute;left:{x}px;top:{top}px;width:{w}px;height:{h}px">')
        boxes.append((int(x), top, int(x + w), int(top + h)))
        top += int(h) + 1 + GAP
    body = "".join(parts)
    return ("<!doctype html><html><head><style>body{margin:0;background:#fff}</style></head>"
            f"<body>{body}</body></html>", boxes, top)


def check_report(page: Path, internal: list[str], screenshot_dir: Path | None, workdir: Path) -> list[str]:
    """``problems`` of a rendered page, and its figures' screenshots saved under ``screenshot_dir`` (if given)."""
    measured = inspect(page, workdir)
    if screenshot_dir is not None:
        screenshots(measured, screenshot_dir, workdir)
    return problems(measured, internal)


def main(argv: list[str] | None = None) -> int:
    import tempfile

    from helpers.publish.names import internal

    args = argv if argv is not None else sys.argv[1:]
    if not args:
        print("usage: python -m helpers.publish.browser results/<set>/report/index.html ...", file=sys.stderr)
        return 2
    bad = 0
    for arg in args:
        page = Path(arg).resolve()
        if not page.is_file():
            print(f"{page}: no such page (render it first: cost-of-pass report params/<set>.yaml)", file=sys.stderr)
            bad += 1
            continue
        context = page.parent.parent / "tables" / "run_context.json"  # results/<set>/: its datasets' ids
        tasks = json.loads(context.read_text())["tasks"] if context.is_file() else []
        with tempfile.TemporaryDirectory() as tmp:
            found = check_report(page, internal(tasks), page.parent.parent / "screenshots", Path(tmp))
        for line in found:
            print(f"{page}: {line}")
        bad += bool(found)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
