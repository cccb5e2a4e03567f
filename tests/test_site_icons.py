"""The theme's icons drawn once (assets/icons.svg) and pointed to from every page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from prereq.core.errors import PrereqError
from prereq.marketplace import frame

REPO = Path(__file__).resolve().parent.parent
OVERRIDES = REPO / "site" / "overrides"


def _theme_dirs(*extra: Path) -> list[Path]:
    import material

    return [*extra, OVERRIDES, Path(material.__file__).parent / "templates"]


def test_each_pointer_file_uses_the_symbol_of_its_own_name_and_the_sprite_draws_it() -> None:
    pointers = sorted((OVERRIDES / ".icons" / frame.ICON_SET).glob("*.svg"))
    sprite = frame.sprite(_theme_dirs())
    assert sprite is not None and len(pointers) >= 8
    for pointer in pointers:
        used = re.findall(r"icons\.svg' \| url \}\}#([\w-]+)", pointer.read_text(encoding="utf-8"))
        assert used == [pointer.stem], pointer.name
        symbol = re.search(rf'<symbol id="{pointer.stem}" viewBox="0 0 24 24"><path d="[^"]+"/></symbol>', sprite)
        assert symbol, pointer.name


def test_the_sprite_holds_the_themes_own_drawing(tmp_path: Path) -> None:
    own = tmp_path / ".icons" / "prereq"
    own.mkdir(parents=True)
    (own / "logo.svg").write_text("{#- icon: mine/box -#}\n<svg></svg>\n", encoding="utf-8")
    (tmp_path / ".icons" / "mine").mkdir()
    (tmp_path / ".icons" / "mine" / "box.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16"/></svg>\n'
    )
    sprite = frame.sprite(_theme_dirs(tmp_path))
    assert sprite is not None
    # The site's folder comes first: its logo replaces the packaged one, the other icons stay.
    assert '<symbol id="logo" viewBox="0 0 16 16"><rect width="16" height="16"/></symbol>' in sprite
    assert sprite.count('<symbol id="logo"') == 1 and '<symbol id="search"' in sprite


@pytest.mark.parametrize(
    ("pointer", "message"),
    [("<svg></svg>\n", "names no icon to draw"), ("{#- icon: material/no-such-icon -#}\n", "the theme has no icon")],
)
def test_a_pointer_to_nothing_is_an_error_naming_its_file(tmp_path: Path, pointer: str, message: str) -> None:
    own = tmp_path / ".icons" / "prereq"
    own.mkdir(parents=True)
    (own / "broken.svg").write_text(pointer, encoding="utf-8")
    with pytest.raises(PrereqError, match=message) as raised:
        frame.sprite(_theme_dirs(tmp_path))
    assert "broken.svg" in str(raised.value) and raised.value.hint


def test_without_the_icon_set_there_is_no_sprite(tmp_path: Path) -> None:
    assert frame.sprite([tmp_path]) is None
