"""How item types are grouped and named for people: published in the index root, so the site's
pages, the catalog and the composer all read them from one place.

May import: prereq.index.documents.
"""

from __future__ import annotations

from prereq.index.documents import TypeGroup

# Catalog facets: what users look for, and the OpenPAI types behind each (in display order).
TYPE_GROUPS: list[TypeGroup] = [
    {"name": "datasets", "label": "Datasets", "types": ["data"]},
    {"name": "widgets", "label": "Widgets", "types": ["script", "output"]},
    {"name": "images", "label": "Images", "types": ["dockerimage"]},
]
TYPE_LABELS = {
    "data": "Dataset",
    "script": "Widget · script",
    "output": "Widget · output",
    "dockerimage": "Docker image",
}
