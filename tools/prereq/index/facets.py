"""How item types are grouped and named for people: published in the index root, so the site's
pages, the catalog and the composer all read them from one place.

May import: prereq.index.documents.
"""

from __future__ import annotations

from prereq.index.documents import TypeGroup

# Catalog facets: what users look for, and the OpenPAI types behind each (in display order).  Labels
# say what an item does for a job in plain words ("Uploader", not "Widget · output"); the names are
# the catalog's ?type= values, kept so that links keep working.
TYPE_GROUPS: list[TypeGroup] = [
    {"name": "datasets", "label": "Data and storage", "types": ["data"]},
    {"name": "widgets", "label": "Setup and upload", "types": ["script", "output"]},
    {"name": "images", "label": "Docker images", "types": ["dockerimage"]},
]
TYPE_LABELS = {
    "data": "Data or storage",
    "script": "Setup script",
    "output": "Uploader",
    "dockerimage": "Docker image",
}
