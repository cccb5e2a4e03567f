"""Item files grouped into packs, so that a reader fetches a closure in a few requests, not one per item.

A pack is the bodies of some item files, one per line: a body is one line of JSON and its newline
(``builder.dump_json``), so each line's sha256 is the sha256 the root gives that item.  A pack is a way
to fetch files, not a new thing to trust: a reader takes from it only lines whose sha256 the root
names.  Items go into packs by closure, the largest first, each closure's members side by side, so a
closure of 150 items comes in a handful of packs (a browser spends a millisecond or more on each
request however small the file).  Where each item is, is said by the pack map (``PACK_MAP``), a file
of its own: the root, which older readers of its format check field by field, is unchanged.  The item
files stay as they are for every other reader.

May import: prereq.index.documents.
"""

from __future__ import annotations

import hashlib

from prereq.index.documents import ItemDocument, PackMap

PACKS_DIR = "packs"
PACK_MAP = "packs.json"
PACK_MAP_FORMAT = "prereq-packs/1"
PACK_BYTES = 64 * 1024  # a pack is closed once it holds this much (a larger single body makes its own)


def packing_order(documents: dict[str, ItemDocument]) -> list[str]:
    """Every item once: the members of each latest version's closure together, the largest closure first
    (ties by name), requirements before the items that need them."""
    closures = {
        name: [member["name"] for member in document["versions"][-1]["closure"]] for name, document in documents.items()
    }
    placed: dict[str, None] = {}
    for name in sorted(closures, key=lambda n: (-len(closures[n]), n)):
        for member in closures[name]:
            if member in documents:
                placed.setdefault(member, None)
    return list(placed)


def make_packs(bodies: dict[str, str], order: list[str]) -> tuple[dict[str, str], PackMap]:
    """Pack files (path -> text) and the pack map.  A pack's name is its own sha256's start, so a
    changed pack is a new file that no cache holds stale."""
    groups: list[list[str]] = []
    size = PACK_BYTES
    for name in order:
        body_size = len(bodies[name].encode("utf-8"))
        if size + body_size > PACK_BYTES:
            groups.append([])
            size = 0
        groups[-1].append(name)
        size += body_size
    files: dict[str, str] = {}
    items: dict[str, int] = {}
    for position, group in enumerate(groups):
        text = "".join(bodies[name] for name in group)
        files[f"{PACKS_DIR}/{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}.ndjson"] = text
        items.update(dict.fromkeys(group, position))
    return files, {"format": PACK_MAP_FORMAT, "packs": list(files), "items": dict(sorted(items.items()))}
