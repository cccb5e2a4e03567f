"""Packs of item files (prereq.index.packs): every item file once, as a line whose sha256 its entry
gives, each closure's members side by side so that a large closure comes in a handful of packs,
gzipped the same way each build; the pack map in a file of its own, the root as older readers of its
format accept it."""

from __future__ import annotations

import gzip
import hashlib
import json
import math
from pathlib import Path

from gitrepo import GitRepo, item_yaml
from prereq.index.documents import ItemDocument
from prereq.index.packs import PACK_BYTES, closure_members, gzipped, make_packs, packing_order
from prereq.marketplace.build import build
from prereq.registry.schemas import load_schema

STORY = Path(__file__).parent / "cases" / "indexes" / "story" / "api" / "v1"


def _lines_of(api: Path, pack_map: dict) -> dict[str, bytes]:
    """sha256 -> line, over every pack the map names; each line once in all of them."""
    lines: dict[str, bytes] = {}
    for path in pack_map["packs"]:
        for line in gzip.decompress((api / path).read_bytes()).splitlines(keepends=True):
            digest = hashlib.sha256(line).hexdigest()
            assert digest not in lines, f"{path}: a line twice"
            lines[digest] = line
    return lines


def test_every_item_file_is_one_line_of_the_pack_its_entry_names(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("registry/owners.yaml", "users: [alice]\n")
    for name, require in (("base", []), ("lib", ["base"]), ("app", ["lib"]), ("alone", [])):
        repo.write(f"registry/prerequisites/{name}.yaml", item_yaml(name, "1.0.0", require=require))
    repo.commit("items")
    out = tmp_path / "out"
    assert build(repo.root / "registry", out, with_site=False).built
    api = out / "api" / "v1"
    root = json.loads((api / "index.json").read_text(encoding="utf-8"))
    pack_map = json.loads((api / "packs.json").read_text(encoding="utf-8"))
    lines = _lines_of(api, pack_map)
    assert len(lines) == len(root["items"]) == len(pack_map["items"]) == 4
    for entry in root["items"]:
        body = (api / entry["path"]).read_bytes()
        assert lines[entry["sha256"]] == body, entry["name"]
        path = pack_map["packs"][pack_map["items"][entry["name"]]]
        packed = gzip.decompress((api / path).read_bytes()).splitlines(keepends=True)
        assert body in packed, entry["name"]
        assert path == f"packs/{hashlib.sha256(b''.join(packed)).hexdigest()[:16]}.ndjson.gz"
    # The root says nothing of packs: a reader of the format before them accepts it field by field.
    before = load_schema("index.schema.json")["$defs"]["root"]
    assert set(root) <= set(before["properties"]) and "packs" not in before["properties"]
    assert all(set(entry) == set(before["properties"]["items"]["items"]["properties"]) for entry in root["items"])


def test_the_committed_story_index_has_its_packs() -> None:
    root = json.loads((STORY / "index.json").read_text(encoding="utf-8"))
    lines = _lines_of(STORY, json.loads((STORY / "packs.json").read_text(encoding="utf-8")))
    assert {entry["sha256"] for entry in root["items"]} == set(lines)


def _chain_documents(size: int, *, others: int) -> tuple[dict[str, ItemDocument], dict[str, str]]:
    """``top``, whose closure is a chain of ``size`` items, beside ``others`` items of their own; bodies
    of 1.5 kB as the generated registries' item files are."""
    documents: dict[str, ItemDocument] = {}
    chain = [f"link-{i:03d}" for i in range(size - 1)] + ["top"]
    for at, name in enumerate(chain):
        closure = [{"name": member, "version": "1.0.0"} for member in chain[: at + 1]]
        documents[name] = {"name": name, "versions": [{"closure": closure}], "required_by": [], "source": None}  # type: ignore[typeddict-item]
    for i in range(others):
        name = f"other-{i:03d}"
        closure = [{"name": name, "version": "1.0.0"}]
        documents[name] = {"name": name, "versions": [{"closure": closure}], "required_by": [], "source": None}  # type: ignore[typeddict-item]
    bodies = {name: json.dumps({"name": name, "pad": "x" * 1500}) + "\n" for name in documents}
    return documents, bodies


def test_a_closure_of_150_items_comes_in_a_handful_of_packs() -> None:
    documents, bodies = _chain_documents(150, others=300)
    files, pack_map = make_packs(bodies, packing_order(documents), closures=closure_members(documents))
    pack_of = pack_map["items"]
    assert pack_map["packs"] == list(files)
    touched = {pack_of[member["name"]] for member in documents["top"]["versions"][-1]["closure"]}
    least = math.ceil(sum(len(bodies[m["name"]]) for m in documents["top"]["versions"][-1]["closure"]) / PACK_BYTES)
    assert len(touched) <= least + 1, (len(touched), least)
    assert len(files) >= math.ceil(sum(map(len, bodies.values())) / PACK_BYTES)
    assert all(len(gzip.decompress(packed)) <= PACK_BYTES for packed in files.values())
    assert sorted(pack_of) == sorted(documents)
    # The map names the packs of each closure past its item's own (a reader asks for them in one round).
    for name, document in documents.items():
        members = {pack_of[member["name"]] for member in document["versions"][-1]["closure"]}
        assert pack_map["closures"].get(name, []) == sorted(members - {pack_of[name]}), name
    assert pack_map["closures"]["top"] and "other-000" not in pack_map["closures"]


def test_the_largest_closure_is_packed_first_and_a_body_larger_than_a_pack_has_its_own() -> None:
    documents, bodies = _chain_documents(5, others=2)
    assert packing_order(documents) == [*(f"link-{i:03d}" for i in range(4)), "top", "other-000", "other-001"]
    bodies["other-000"] = json.dumps({"pad": "y" * PACK_BYTES}) + "\n"
    files, pack_map = make_packs(bodies, packing_order(documents), closures=closure_members(documents))
    pack_of = pack_map["items"]
    assert gzip.decompress(list(files.values())[pack_of["other-000"]]).decode() == bodies["other-000"]
    assert pack_of["top"] != pack_of["other-000"] != pack_of["other-001"]
    assert make_packs(bodies, packing_order(documents), closures=closure_members(documents)) == (files, pack_map)


def test_a_pack_is_gzipped_alike_on_every_system_and_python() -> None:
    """gzip.compress writes the system it runs on into the header (Linux 3, macOS 19, Windows 10) and
    Python 3.10 and 3.13 write 255: a pack's bytes would depend on where it was built."""
    text = b'{"name":"a"}\n' * 100
    packed = gzipped(text)
    assert gzip.decompress(packed) == text
    assert packed[:10] == bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 255])  # no name, no time, level 9, unknown system
    assert packed[10:-8] == gzip.compress(text, 9, mtime=0)[10:-8]  # the same deflate stream


def test_the_map_names_the_packs_of_every_version_s_closure() -> None:
    """An item's older version may require what its latest does not: a reader loads every version's
    closure, so the map names the packs of them all."""
    documents: dict[str, ItemDocument] = {}
    for name in ("old-dep", "new-dep"):
        documents[name] = {
            "name": name,
            "versions": [{"closure": [{"name": name, "version": "1.0.0"}]}],
            "required_by": [],
            "source": None,
        }  # type: ignore[typeddict-item]
    documents["app"] = {  # type: ignore[typeddict-item]
        "name": "app",
        "versions": [
            {"closure": [{"name": "old-dep", "version": "1.0.0"}, {"name": "app", "version": "1.0.0"}]},
            {"closure": [{"name": "new-dep", "version": "1.0.0"}, {"name": "app", "version": "2.0.0"}]},
        ],
        "required_by": [],
        "source": None,
    }
    bodies = {name: json.dumps({"name": name, "pad": "x" * (PACK_BYTES - 100)}) + "\n" for name in documents}
    files, pack_map = make_packs(bodies, packing_order(documents), closures=closure_members(documents))
    pack_of = pack_map["items"]
    assert len(set(pack_of.values())) == 3 == len(files)
    assert pack_map["closures"] == {"app": sorted([pack_of["old-dep"], pack_of["new-dep"]])}
