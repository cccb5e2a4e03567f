"""Git behind one small module (GitPython): history of the registry in one pass.

One ``git log --raw -z`` over the registry's item folder gives every commit that
touched an item file and the blob it left; one ``git ls-tree -r -z`` lists a folder
at a commit; blob contents come by id from one ``git cat-file --batch`` process;
what a working tree changed since a commit is one ``git diff`` and one
``git ls-files`` for the untracked files.  Never one git call per file.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # GitPython costs a twentieth of a second to import; job editing never needs it
    import git


def blob_id(content: bytes) -> str:
    """git's own id of a file's content (what ``git hash-object`` prints), computed without git."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass(frozen=True)
class FileChange:
    """One file as one commit left it (newest first): the blob it holds, None when deleted there."""

    path: str  # relative to the repository root
    commit: str
    date: str  # ISO 8601 committer date
    blob: str | None


@dataclass(frozen=True)
class FileRevision(FileChange):
    """The same with the blob's content (None when deleted)."""

    content: bytes | None


@dataclass(frozen=True)
class RepoState:
    commit: str | None
    date: str | None
    dirty: bool


class Repository:
    def __init__(self, repo: git.Repo) -> None:
        self._repo = repo
        self.root = Path(repo.working_tree_dir or ".").resolve()

    @classmethod
    def find(cls, path: Path) -> Repository | None:
        import git

        try:
            return cls(git.Repo(path, search_parent_directories=True))
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            return None

    def _head(self) -> git.Commit | None:
        try:
            return self._repo.head.commit
        except ValueError:  # no commits yet
            return None

    def state(self, folder: Path) -> RepoState:
        """HEAD's commit and date, and whether ``folder`` differs from HEAD."""
        head = self._head()
        if head is None:
            return RepoState(None, None, True)
        rel = self.relative(folder)
        status = self._repo.git.status("--porcelain", "--untracked-files=all", "--", rel)
        return RepoState(head.hexsha, head.committed_datetime.isoformat(), bool(status.strip()))

    def is_shallow(self) -> bool:
        """True for a shallow clone (GitHub's default checkout): older commits, and what they published, are absent."""
        return self._repo.git.rev_parse("--is-shallow-repository").strip() == "true"

    def relative(self, path: Path) -> str:
        return path.resolve().relative_to(self.root).as_posix() or "."

    def resolve(self, ref: str) -> str | None:
        """The commit ``ref`` names (a branch, tag, remote branch or hash), or None when there is none."""
        import git

        try:
            return str(self._repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")).strip()
        except git.GitCommandError:
            return None

    def merge_base(self, ref: str) -> str | None:
        """The best common ancestor of HEAD and ``ref`` (both must resolve), or None when they share none."""
        import git

        try:
            return str(self._repo.git.merge_base("HEAD", ref)).strip() or None
        except git.GitCommandError:
            return None

    @property
    def git_dirs(self) -> tuple[Path, ...]:
        """Where git keeps this repository's own files (``.git``, and a worktree's common folder), resolved:
        nothing prereq writes belongs there."""
        found = {
            (self.root / ".git").resolve(),
            Path(self._repo.git_dir).resolve(),
            Path(self._repo.common_dir).resolve(),
        }
        return tuple(sorted(found))

    def remotes(self) -> list[str]:
        """The names of the configured remotes (``origin`` in a clone; none in a repository made locally)."""
        return sorted(remote.name for remote in self._repo.remotes)

    def changed_paths(self, commit: str) -> list[str]:
        """Every path the working tree changes since ``commit`` (tracked files added, modified or deleted,
        committed or not, and untracked files that .gitignore does not exclude), relative to the
        repository root, sorted.  Both names of a rename count: each is a path the change touches."""
        tracked = self._repo.git.diff("--name-only", "--no-renames", "-z", commit, "--")
        untracked = self._repo.git.ls_files("--others", "--exclude-standard", "--full-name", "-z", "--", ":/")
        return sorted({path for path in f"{tracked}\x00{untracked}".split("\x00") if path})

    def files_at(self, commit: str, folder: Path) -> dict[str, bytes]:
        """Every file under ``folder`` as of ``commit``: path relative to the repository → content.
        Links and submodules are left out: the registry refuses them (PRQ107)."""
        rel = self.relative(folder)
        raw = self._repo.git.ls_tree("-r", "-z", "--full-tree", commit, "--", rel)
        ids: dict[str, str] = {}
        for entry in raw.split("\x00"):
            meta, _, path = entry.partition("\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == "blob" and parts[0] in ("100644", "100755"):
                ids[path] = parts[2]
        contents = self.blobs(ids.values())
        return {path: contents[blob] for path, blob in ids.items() if blob in contents}

    def changes(self, folder: Path, *, rev: str = "HEAD", first_parent: bool = False) -> list[FileChange]:
        """Every change to a file under ``folder`` on the history of ``rev`` (HEAD by default, or a range
        ``A..B``), newest first, with the blob it left: one ``git log``, no file read.

        With ``first_parent``, only the states the branch itself has been in: its first-parent chain, each
        merge compared with its first parent (what a merge brought in, never its second parent's own
        commits).  Otherwise every commit, side branches whose changes a merge dropped included
        (``--full-history``), and a merge's blobs against each of its parents, so that nothing any commit
        holds is missed."""
        if self._head() is None:
            return []
        rel = self.relative(folder)
        walk = ["--first-parent", "--diff-merges=first-parent"] if first_parent else ["--full-history", "-m"]
        options = ["--format=%x00%H%x00%cI", "--raw", "--no-abbrev", "--no-renames", "-z", *walk]
        raw = self._repo.git.log(*options, "--end-of-options", rev, "--", rel)
        changes: list[FileChange] = []
        fields = raw.split("\x00")
        index, commit, date = 0, "", ""
        while index < len(fields):
            field = fields[index].strip("\n")
            if field == "" and index + 2 < len(fields) and len(fields[index + 1]) == 40:
                commit, date = fields[index + 1], fields[index + 2].strip("\n")
                index += 3
                continue
            parts = field.split()  # ":old-mode new-mode old-blob new-blob status", then the path
            if (
                field.startswith(":")
                and len(parts) == 5
                and parts[4] in ("A", "M", "D", "T")
                and index + 1 < len(fields)
            ):
                blob = None if parts[4] == "D" else parts[3]
                changes.append(FileChange(path=fields[index + 1], commit=commit, date=date, blob=blob))
                index += 2
                continue
            index += 1
        return changes

    def blobs(self, ids: Iterable[str]) -> dict[str, bytes]:
        """The content of each blob by id, from one ``git cat-file --batch`` fed every id at once (one lookup
        each: reading ``commit:path`` made git scan the folder's tree for every file); missing ones left out."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        run = subprocess.run(
            ["git", "--git-dir", str(self._repo.git_dir), "cat-file", "--batch"],
            input="".join(f"{blob}\n" for blob in wanted).encode(),
            capture_output=True,
            check=False,
        )
        out, at, found = run.stdout, 0, {}
        for blob in wanted:
            end = out.find(b"\n", at)
            if end < 0:
                break
            header = out[at:end].split()
            at = end + 1
            if len(header) == 3:  # "<id> <type> <size>", the content, a newline; else "<id> missing"
                size = int(header[2])
                found[blob] = out[at : at + size]
                at += size + 1
        return found

    def history(self, folder: Path, *, rev: str = "HEAD", first_parent: bool = False) -> list[FileRevision]:
        """Every revision of every file under ``folder`` on the history of ``rev`` (HEAD by default),
        newest first (``first_parent``: as ``changes``)."""
        changes = self.changes(folder, rev=rev, first_parent=first_parent)
        contents = self.blobs(change.blob for change in changes if change.blob)
        return [FileRevision(**vars(c), content=contents.get(c.blob) if c.blob else None) for c in changes]

    def tracks(self, path: Path) -> bool:
        """Whether git tracks anything at or under ``path``."""
        return bool(self._repo.git.ls_files("-z", "--", self.relative(path)))
