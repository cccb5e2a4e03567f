"""Where prereq's own files are: the JSON Schemas and the marketplace's sources.

prereq runs from its checkout (installed editable), so both live in the project
root beside ``tools/``; this is the one module that knows that.
"""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[3]
SCHEMA_DIR = PROJECT_ROOT / "schema"
