"""What makes a long report navigable: a bar with the way back to the site and a table of contents, a readable
measure, and a glossary whose terms are linked from their first use.

The glossary is ``report/text/glossary.md`` (one ``## term | other spelling`` per entry); the report notebook shows
it as its last section (``glossary_markdown``), for Quarto and offline alike. The offline page (nbconvert, which has
no table of contents) is finished by ``finish_page``: the bar, the contents built from the page's own ``h2``/``h3``
headings, the measure, and each glossary term's first use in the text linked to its entry. Quarto draws its own
contents (``toc: true`` in ``_quarto.yml``).
"""

from __future__ import annotations

import html
import re

from helpers.publish.text import sections

GLOSSARY_ID = "Glossary"  # the id nbconvert gives the heading "## Glossary"
MEASURE_CH = 100  # the longest line of running text, in characters
SKIP = frozenset({"a", "h1", "h2", "h3", "h4", "h5", "h6", "script", "style", "code", "pre", "summary", "title",
                  "button", "select", "option", "textarea"})  # text inside these is never linked
STYLE = f"""<style id="cop-navigation">
.cop-bar {{ position: sticky; top: 0; z-index: 20; background: #fff; border-bottom: 1px solid #ccc;
  padding: .35em 1em; font: 14px/1.4 system-ui, sans-serif; }}
.cop-bar a {{ margin-right: 1.2em; }}
.cop-toc {{ font: 14px/1.5 system-ui, sans-serif; border: 1px solid #ddd; padding: .5em 1em; margin: 1em 0;
  max-width: {MEASURE_CH}ch; }}
.cop-toc ol, .jp-RenderedHTMLCommon .cop-toc ol ol {{ margin: .2em 0; list-style: none; padding-left: 1.2em; }}
.jp-RenderedMarkdown p, .jp-RenderedMarkdown li, .jp-RenderedMarkdown dd, .jp-RenderedMarkdown blockquote,
.jp-RenderedHTMLCommon > p {{ max-width: {MEASURE_CH}ch; }}
.jp-RenderedMarkdown table {{ display: block; overflow-x: auto; max-width: 100%; }}
a.cop-term {{ color: inherit; text-decoration: underline dotted; }}
.cop-toc a, .cop-bar a {{ color: #0645ad; }}
</style>"""


# a term's spelling followed by these words is used in another sense than its glossary entry's, and is not linked
# (review 9, L3: "shown in Table 1 alone", a model displayed, is not the "shown" of a gain tested with the others)
OTHER_SENSES = {"shown": r" in Table 1 alone"}


def term_id(term: str) -> str:
    """The glossary entry's anchor: ``term-`` and the term's first spelling in lowercase, non-alphanumerics as ``-``."""
    return "term-" + re.sub(r"[^a-z0-9]+", "-", term.lower()).strip("-")


def glossary() -> list[tuple[tuple[str, ...], str]]:
    """The glossary's entries in file order: (the term's spellings, its definition as Markdown)."""
    return [(tuple(s.strip() for s in head.split("|") if s.strip()), text)
            for head, text in sections("glossary.md").items()]


def glossary_markdown() -> str:
    """The report's glossary section: a heading (id ``Glossary`` offline, ``glossary`` in Quarto), then each term in
    bold with its anchor and its definition."""
    items = [f'<span id="{term_id(spellings[0])}"></span>**{spellings[0]}**'
             + (f" ({', '.join(spellings[1:])})" if spellings[1:] else "") + f": {text}"
             for spellings, text in glossary()]
    return "## Glossary\n\n" + "\n\n".join(items)


def link_terms(page: str) -> str:
    """``page`` (HTML) with each glossary term's first use in running text, before the glossary, wrapped in a link to
    its entry. Text inside links, headings, code, summaries, scripts and styles is left alone; matching is
    case-insensitive on whole words (a hyphen counts as part of a word)."""
    pending = {term_id(s[0]): [re.compile(r"(?<![\w-])" + re.escape(v) + r"(?![\w-])"
                                          + (f"(?!{OTHER_SENSES[v]})" if v in OTHER_SENSES else ""), re.I)
                               for v in sorted(s, key=len, reverse=True)] for s, _ in glossary()}
    tokens = re.split(r"(<!--.*?-->|<[^>]*>)", page, flags=re.S)
    depth, in_body, out = 0, False, []
    for tok in tokens:
        if tok.startswith("<"):
            out.append(tok)
            in_body = in_body or tok.lower().startswith("<body")
            if f'id="{GLOSSARY_ID}"' in tok or f"id='{GLOSSARY_ID}'" in tok:
                pending.clear()  # the glossary itself: nothing after it is linked
            depth += _depth_change(tok)
            continue
        out.append(_link_first(tok, pending) if tok and in_body and depth == 0 and pending else tok)
    return "".join(out)


ENTRY = re.compile(r'<p>\s*<span id="(term-[a-z0-9-]+)"></span>.*?</p>\n?', re.S)  # a glossary entry, rendered


def drop_unlinked_terms(page: str) -> str:
    """``page`` (HTML, after ``link_terms``) without the glossary entries no text of it links to (review 11, L2: "LDB"
    and "Table-1 sample" were defined on every set's page, used on few): only the terms the page uses stay."""
    return ENTRY.sub(lambda m: m.group(0) if f'href="#{m.group(1)}"' in page else "", page)


def _depth_change(tag: str) -> int:
    """+1 for an opening tag of ``SKIP``, -1 for its closing tag, 0 otherwise (comments, void and self-closing)."""
    m = re.match(r"<\s*(/)?\s*([a-zA-Z][a-zA-Z0-9]*)", tag)
    if not m or m.group(2).lower() not in SKIP or tag.rstrip().endswith("/>"):
        return 0
    return -1 if m.group(1) else 1


def _link_first(text: str, pending: dict[str, list[re.Pattern]]) -> str:
    """``text`` (one run of HTML text) with the first match of each pending term linked; linked terms leave
    ``pending``. A term is looked for only in the parts no earlier term took."""
    pieces: list[tuple[str, bool]] = [(text, False)]  # (html, already a link)
    for anchor in list(pending):
        for i, (piece, linked) in enumerate(pieces):
            hit = None if linked else min((m for p in pending[anchor]
                                           if (m := p.search(piece))), key=lambda m: m.start(),
                                          default=None)
            if hit:
                link = f'<a class="cop-term" href="#{anchor}">{hit.group(0)}</a>'
                pieces[i:i + 1] = [(piece[:hit.start()], False), (link, True), (piece[hit.end():], False)]
                del pending[anchor]
                break
    return "".join(p for p, _ in pieces)


def contents(page: str) -> str:
    """A table of contents (HTML ``nav``) from the page's ``h2`` and ``h3`` headings that carry an id, nested."""
    heads = re.findall(r'<h([23])[^>]*\bid="([^"]+)"[^>]*>(.*?)</h\1>', page, flags=re.S)
    if not heads:
        return ""
    lines, open_sub = ["<nav class=\"cop-toc\" aria-label=\"Contents\"><strong>Contents</strong><ol>"], False
    for level, anchor, inner in heads:
        title = re.sub(r"<[^>]+>", "", inner).replace("¶", "").strip()
        if level == "3" and not open_sub:
            lines.append("<ol>")
            open_sub = True
        elif level == "2" and open_sub:
            lines.append("</ol>")
            open_sub = False
        lines.append(f'<li><a href="#{html.escape(html.unescape(anchor), quote=True)}">{title}</a></li>')
    lines.append("</ol>" * open_sub + "</ol></nav>")
    return "\n".join(lines)


def finish_page(page: str, site_href: str | None, links: dict[str, str] | None = None) -> str:
    """The offline report finished for reading: the style, a bar (back to the site at ``site_href``, if any; to the
    contents; to each of ``links``, text -> href; to the glossary) at the top of the body, the contents after the
    first screen (before the first ``h2``), and glossary links."""
    page = drop_unlinked_terms(link_terms(page))
    bar = ('<div class="cop-bar">'
           + (f'<a href="{html.escape(site_href, quote=True)}">← All sets</a>' if site_href else "")
           + '<a href="#cop-contents">Contents</a>'
           + "".join(f'<a href="{html.escape(href, quote=True)}">{html.escape(text)}</a>'
                     for text, href in (links or {}).items())
           + (f'<a href="#{GLOSSARY_ID}">Glossary</a>' if f'id="{GLOSSARY_ID}"' in page else "") + "</div>")
    toc = f'<div id="cop-contents">{contents(page)}</div>'
    page = page.replace("</head>", STYLE + "\n</head>", 1)
    page = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + "\n" + bar, page, count=1)
    first = re.search(r"<h2[\s>]", page)  # after the first screen, before the first section
    at = page.rfind('<div class="jp-Cell ', 0, first.start()) if first else -1  # the notebook cell holding it
    at = at if at >= 0 else first.start() if first else page.find(bar) + len(bar)
    return page[:at] + toc + "\n" + page[at:]
