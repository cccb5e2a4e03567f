"""Item files grouped into packs, so that a reader fetches a closure in a few requests, not one per item.

A pack is the bodies of some item files, one per line: a body is one line of JSON and its newline
(``builder.dump_json``), so each line's sha256 is the sha256 the root gives that item.  A pack is a way
to fetch files, not a new thing to trust: a reader takes from it only lines whose sha256 the root
names.  Items go into packs by closure, the largest first, each closure's members side by side, so a
closure of 150 items comes in a handful of packs (a browser spends a millisecond or more on each
request however small the file).  A pack is gzipped: every item file repeats its whole closure, so a
closure of 150 items is 600 kB of files and 37 kB gzipped, and a static host need not compress a file
named ``.ndjson``.  Where each item is, is said by the pack map (``PACK_MAP``), a file of its own: the
root, which older readers of its format check field by field, is unchanged.  The map also names, for
an item whose closures reach past its own pack, the packs that hold the rest, so that a reader asks
for them with the item's own: one round of requests, not two.  The item files stay as they are for
every other reader.

May import: prereq.index.documents.
"""

from __future__ import annotations

import hashlib
import struct
import zlib

from prereq.index.documents import ItemDocument, PackMap

PACKS_DIR = "packs"
PACK_MAP = "packs.json"
PACK_MAP_FORMAT = "prereq-packs/2"  # /1: packs not gzipped
PACK_BYTES = 64 * 1024  # a pack is closed once it holds this much, before gzip (a larger single body makes its own)


def closure_members(documents: dict[str, ItemDocument]) -> dict[str, set[str]]:
    """Item name -> the names in any of its versions' closures (what a reader of the item loads next)."""
    return {
        name: {member["name"] for version in document["versions"] for member in version["closure"]}
        for name, document in documents.items()
    }


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


def gzipped(data: bytes) -> bytes:
    """``data`` gzipped at level 9, with no name, no time and "unknown" as the system (``gzip.compress``
    writes the system it runs on, and its header differs between Python versions): the same pack from
    the same bodies wherever it is built, as far as zlib compresses alike."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # deflate, no flags, mtime 0, level 9, system unknown
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return header + deflate.compress(data) + deflate.flush() + trailer


def make_packs(
    bodies: dict[str, str], order: list[str], *, closures: dict[str, set[str]]
) -> tuple[dict[str, bytes], PackMap]:
    """Pack files (path -> gzipped bytes, the same for the same bodies) and the pack map.  A pack's name
    is its text's sha256's start, so a changed pack is a new file that no cache holds stale.
    ``closures``: ``closure_members``' (names not packed are passed over)."""
    groups: list[list[str]] = []
    size = PACK_BYTES
    for name in order:
        body_size = len(bodies[name].encode("utf-8"))
        if size + body_size > PACK_BYTES:
            groups.append([])
            size = 0
        groups[-1].append(name)
        size += body_size
    files: dict[str, bytes] = {}
    items: dict[str, int] = {}
    for position, group in enumerate(groups):
        text = "".join(bodies[name] for name in group).encode("utf-8")
        files[f"{PACKS_DIR}/{hashlib.sha256(text).hexdigest()[:16]}.ndjson.gz"] = gzipped(text)
        items.update(dict.fromkeys(group, position))
    rest = {
        name: sorted({items[member] for member in closures.get(name, ()) if member in items} - {items[name]})
        for name in sorted(items)
    }
    return files, {
        "format": PACK_MAP_FORMAT,
        "packs": list(files),
        "items": dict(sorted(items.items())),
        "closures": {name: positions for name, positions in rest.items() if positions},
    }


def pack_documents(bodies: dict[str, str], documents: dict[str, ItemDocument]) -> tuple[dict[str, bytes], PackMap]:
    """``make_packs`` of the item files' ``bodies``, packed and hinted by their ``documents``' closures."""
    return make_packs(bodies, packing_order(documents), closures=closure_members(documents))
