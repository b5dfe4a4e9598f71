"""The formatter lays out every line of the package, the thin runners (``noxfile.py``,
``tasks.py``) and ``scripts/``: no ``# fmt: skip`` (or ``# fmt: off`` region) packs lines to meet
the size caps of tests/unit/test_module_size.py. The only suppressions allowed are listed in
:data:`ALLOWED`, each a table whose columns line up by hand, with the reason."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNERS = ("noxfile.py", "tasks.py")

SUPPRESSION = re.compile(r"#\s*fmt:\s*(skip|off)\b|#\s*yapf:\s*disable\b")

ALLOWED: dict[str, int] = {}
"""File (relative to the repository root) -> how many suppressions it may hold, each a table
whose columns line up by hand, with a comment saying so. None does now."""

PENDING: dict[str, int] = {}
"""Files another branch is rewriting: their suppressions are tolerated until it lands, then the
entry is removed (an entry whose file no longer holds them fails the test)."""


def suppressions(text: str) -> list[int]:
    """Lines whose comment tells a formatter to leave them alone (comments only: a string that
    mentions ``# fmt: skip`` is not one)."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT and SUPPRESSION.search(token.string):
            found.append(token.start[0])
    return found


def counted(root: Path) -> dict[str, list[int]]:
    """Each file of the package, the runners and the scripts under ``root`` -> its suppressed
    lines."""
    files = [
        *sorted((root / "src" / "mlrelease").rglob("*.py")),
        *(root / r for r in RUNNERS),
        *sorted((root / "scripts").glob("*.py")),
    ]
    found = {}
    for path in files:
        if path.is_file():
            lines = suppressions(path.read_text(encoding="utf-8"))
            if lines:
                found[path.relative_to(root).as_posix()] = lines
    return found


def over_allowance(found: dict[str, list[int]]) -> dict[str, list[int]]:
    allowed = {**PENDING, **ALLOWED}
    return {path: lines for path, lines in found.items() if len(lines) > allowed.get(path, 0)}


def test_no_line_is_kept_from_the_formatter_outside_the_allowed_tables() -> None:
    over = over_allowance(counted(ROOT))
    assert not over, (
        f"'# fmt: skip' / '# fmt: off' lines (file: line numbers): {over}. Let `ruff format` lay "
        "the code out; if a module or function then goes over its size cap, split it where it "
        "does two things (tests/unit/test_module_size.py)."
    )


def test_each_allowance_is_still_used() -> None:
    found = counted(ROOT)
    unused = {path: n for path, n in {**PENDING, **ALLOWED}.items() if len(found.get(path, [])) < n}
    assert not unused, (
        f"fewer suppressions than allowed: lower or remove in ALLOWED or PENDING: {unused}"
    )


def test_an_added_suppression_is_found(tmp_path: Path) -> None:
    package = tmp_path / "src" / "mlrelease"
    package.mkdir(parents=True)
    (package / "m.py").write_text(
        'NOTE = "a string that says # fmt: skip is no suppression"\n'
        "# fmt: off\n"
        "X = [1,2,\n"
        "     3]\n"
        "# fmt: on\n"
        "def f(a, b,\n"
        "      c): ...  # fmt: skip\n",
        encoding="utf-8",
    )
    (tmp_path / "noxfile.py").write_text("A = (1,2)  # fmt:skip\n", encoding="utf-8")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "tool.py").write_text("B = {1,\n 2}  # fmt: skip\n", encoding="utf-8")
    found = counted(tmp_path)
    assert found == {"src/mlrelease/m.py": [2, 7], "noxfile.py": [1], "scripts/tool.py": [2]}
    assert over_allowance(found) == found
