"""The execution catalog's pages on the marketplace site: where jobs run, and which queues each user gets."""

from __future__ import annotations

import html
import re
from pathlib import Path


def _text(page: Path) -> str:
    body = page.read_text(encoding="utf-8")
    article = body[body.index("<article") : body.index("</article>")]
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", article)))


def test_the_pages_are_in_the_navigation(site: Path) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    tabs = re.search(r'<nav class="md-tabs".*?</nav>', home, re.S)
    assert tabs and "Where jobs run" in tabs.group(0)
    assert 'href="execution/"' in home  # the section by its first page (navigation.prune)
    where = (site / "execution" / "index.html").read_text(encoding="utf-8")
    assert 'href="rights/"' in where  # its own pages list the whole section


def test_where_jobs_run(site: Path) -> None:
    text = _text(site / "execution" / "index.html")
    assert "python-3h-4g 3 hours/4G on Python 1 cores, 4096 MB 180 min 8 x 4 machines = 32" in text
    assert "gpu-1d-32g 1 day/32G with one GPU per slot on PyTorch 8 cores, 32768 MB, 1 GPU" in text
    gpu = "pytorch-gpu@1.0.0 PyTorch 2.3.1 with CUDA 12.1 (GPU) ubuntu 22.04; python gpu , cuda pytorch-official"
    assert gpu in text
    assert "vision-transforms@1.0.0" in text and "c++" in text


def test_which_queues_do_i_get(site: Path) -> None:
    text = _text(site / "execution" / "rights" / "index.html")
    assert "python-3h-4g 8 / 1 2 / 0 — 16 / 2 — —" in text  # data-team, everyone, nlp, platform, speech, vision
    assert (
        "erin everyone , vision-team cpp-3h-4g 2 slot(s), priority 0, gpu-1d-32g 8 slot(s), priority 1, "
        "gpu-3d-8x 8 slot(s), priority 1, python-3h-4g 2 slot(s), priority 0"
    ) in text
    assert "everyone cpp-3h-4g 2 slot(s), priority 0, python-3h-4g 2 slot(s), priority 0" in text
