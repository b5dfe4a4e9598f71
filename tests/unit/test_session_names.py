"""One name per session, in this repository's noxfile and in the adopters' sessions alike:
a maintainer who learned ``nox -s mlrelease -- release status`` here types the same there.

The sessions are read from the source, not imported: the unit lane also runs where nox is not
installed (``nox -s tests_lowest`` installs ``mlrelease[all]`` at its lower bounds, not nox)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def sessions(path: Path) -> set[str]:
    """The names of the functions decorated ``@nox.session`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for deco in node.decorator_list:
                call = deco.func if isinstance(deco, ast.Call) else deco
                if isinstance(call, ast.Attribute) and call.attr == "session":
                    found.add(node.name)
    return found


def test_the_session_that_runs_any_command_has_one_name() -> None:
    ours = sessions(ROOT / "noxfile.py")
    adopters = sessions(ROOT / "src" / "mlrelease_nox" / "sessions.py")
    assert "mlrelease" in ours and "mlrelease" in adopters
    assert "cli" not in ours | adopters, "the session that runs any command is `mlrelease`"


def test_no_workflow_or_task_calls_a_session_the_noxfile_lacks() -> None:
    ours = sessions(ROOT / "noxfile.py")
    texts = [p.read_text(encoding="utf-8") for p in (ROOT / ".github" / "workflows").glob("*.yml")]
    texts.append((ROOT / "tasks.py").read_text(encoding="utf-8"))
    called = {m for text in texts for m in re.findall(r"nox (?:-R )?-s ([\w-]+)", text)}
    called |= {m for text in texts for m in re.findall(r'"-s", "([\w-]+)"', text)}
    assert called and called <= ours, f"sessions called but not defined: {called - ours}"
