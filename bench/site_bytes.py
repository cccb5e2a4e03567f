"""Where a built site's bytes go: per item, by folder, and within an item page by part.

The performance issue asks for at most 20 KB of site an item.  This reads a site ``prereq build``
wrote (``--site``) and prints, averaged over its items: the bytes of each top folder, then an item
page's parts: each piece of Material's frame (the head, the header's palette and search, the tabs, the
navigation drawer, the closing scripts) and each section of the item's own article (the text between
its ``<h2>``\\ s, with the diagram, the closure list and the snippet apart).  With ``--trims``, also
what each trim still considered would save, measured by making it in the built pages' text (nothing
is written): what is left to gain.  Nothing here builds or times anything.

    .venv/bin/python bench/site_bytes.py --site /tmp/fig/site-10000 [--trims]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter
from pathlib import Path

# Pieces of an item page, as (name, pattern): the first match of each, in the page as built.
FRAME = [
    ("head", r"<head>.*?</head>"),
    ("header: palette switch and its script", r'<form class="md-header__option".*?</form>\s*<script\b.*?</script>'),
    ("header: search box", r'<div class="md-search".*?</nav>\s*</header>'),
    ("tabs", r'<nav class="md-tabs".*?</nav>'),
    ("navigation drawer", r'<div class="md-sidebar md-sidebar--primary".*?</nav>\s*</div>\s*</div>\s*</div>'),
    ("footer, theme configuration, scripts", r"</main>.*"),
]
BODY = [
    ("diagram", r'<div class="prereq-graph-wrap">.*?</div>'),
    ("closure list", r'<h3 id="in-a-job">.*?</ol>'),
    ("snippet (highlighted YAML)", r'<div class="prereq-job-yaml".*?</code></pre></div></div>'),
]
# Trims of an item page still considered, as (what, pattern, replacement): each measured alone.  Those
# made (the theme's scripts as files, its unused translations, the drawer, the closure's type badges,
# the snippet's punctuation spans) are in the pages as built.
TRIMS = [
    ("no line breaks outside code", r"\n(?![^<]*</(?:pre|code|textarea)>)", ""),
    (
        "no menu button (hidden: no drawer to open)",
        r'<label class="md-header__button md-icon" for="__drawer">.*?</label>',
        "",
    ),
    ("no generator meta", r'<meta name="generator"[^>]*>', ""),
]
_ARTICLE = re.compile(r'<article class="prereq-item".*?</article>', re.S)
_SECTION = re.compile(r'(?=<h2 id=")')


def _sizes(text: str) -> Counter[str]:
    sizes: Counter[str] = Counter(page=len(text.encode()))
    article = _ARTICLE.search(text)
    body = article[0] if article else ""
    sizes["frame"] = sizes["page"] - len(body.encode())
    for name, pattern in FRAME:
        found = re.search(pattern, text, re.S)
        sizes[f"frame: {name}"] = len(found[0].encode()) if found else 0
    for section in _SECTION.split(body):
        heading = re.match(r'<h2 id="([^"]+)"', section)
        sizes[f"article: {heading[1] if heading else 'top (title, facts, actions)'}"] += len(section.encode())
    for name, pattern in BODY:
        found = re.search(pattern, body, re.S)
        sizes[f"  of which {name}"] = len(found[0].encode()) if found else 0
    return sizes


def _folder_bytes(folder: Path) -> int:
    return sum(os.path.getsize(os.path.join(at, name)) for at, _, names in os.walk(folder) for name in names)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, required=True, help="a folder prereq build wrote")
    parser.add_argument("--trims", action="store_true", help="also what each trim considered would save")
    args = parser.parse_args()
    pages = sorted(args.site.glob("items/*/index.html"))
    if not pages:
        print(f"{args.site}: no items/*/index.html: is it a site prereq build wrote?", file=sys.stderr)
        return 2
    count = len(pages)
    print(f"{args.site}: {count:,} items, {_folder_bytes(args.site) / count / 1024:.1f} KB of site an item")
    for entry in sorted(args.site.iterdir()):
        size = _folder_bytes(entry) if entry.is_dir() else entry.stat().st_size
        print(f"  {entry.name + ('/' if entry.is_dir() else ''):28} {size / count:9,.0f} B an item")
    total: Counter[str] = Counter()
    for page in pages:
        total.update(_sizes(page.read_text(encoding="utf-8")))
    print("an item page, on average:")
    for name, size in total.items():
        print(f"  {name:46} {size / count:9,.0f} B")
    if args.trims:
        _print_trims(pages)
    return 0


def _print_trims(pages: list[Path]) -> None:
    texts = [page.read_text(encoding="utf-8") for page in pages]
    before = sum(len(text.encode()) for text in texts)
    print("what each trim would save, alone, an item page on average:")
    for what, pattern, replacement in TRIMS:
        after = sum(len(re.sub(pattern, replacement, text, flags=re.S).encode()) for text in texts)
        print(f"  {what:46} {(before - after) / len(texts):9,.0f} B")


if __name__ == "__main__":
    sys.exit(main())
