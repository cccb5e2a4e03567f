"""Real git repositories for tests: write files, commit them, return the repo path."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
}


class GitRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        import os

        return subprocess.run(
            ["git", *args], cwd=self.root, check=True, capture_output=True, text=True, env={**os.environ, **ENV}
        ).stdout

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        return path

    def remove(self, rel: str) -> None:
        self.git("rm", "-q", rel)

    def commit(self, message: str, *, date: str = "2026-01-01T00:00:00+00:00") -> str:
        import os

        self.git("add", "-A")
        subprocess.run(
            ["git", "commit", "-q", "-m", message],
            cwd=self.root,
            check=True,
            capture_output=True,
            env={**os.environ, **ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date},
        )
        return self.git("rev-parse", "HEAD").strip()


def item_yaml(
    name: str,
    version: str,
    *,
    require: list[str] | None = None,
    type_: str = "script",
    parameters: dict[str, str] | None = None,
    commands: list[str] | None = None,
    extra: str = "",
) -> str:
    lines = [f"name: {name}", f"version: {version}", f"type: {type_}", f"title: {name} item", "owners: [alice]"]
    if type_ == "data":
        lines.append("license: MIT")
    if require:
        lines.append("require: [" + ", ".join(f'"{r}"' for r in require) + "]")
    if parameters:
        lines.append("parameters:")
        lines += [f"  {k}: {v}" for k, v in parameters.items()]
    lines.append("callbacks:\n  - event: taskStarts\n    commands:")
    lines += [f"      - {c}" for c in (commands or [f"echo {name} {version}"])]
    return "\n".join(lines) + "\n" + extra
