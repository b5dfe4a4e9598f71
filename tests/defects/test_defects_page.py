"""docs/defects.md is generated from the catalogue's tests and is current."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from helpers import REPO_ROOT


def _script() -> ModuleType:
    path = REPO_ROOT / "scripts" / "defects_doc.py"
    spec = importlib.util.spec_from_file_location("defects_doc", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_equals_a_fresh_generation() -> None:
    script = _script()
    page = (REPO_ROOT / "docs" / "defects.md").read_text(encoding="utf-8")
    assert page == script.render(script.incidents()), "run `nox -s defects_doc` and commit it"
    assert script.main(["--check"]) == 0


def test_every_incident_is_caught_and_has_a_clean_twin() -> None:
    items = _script().incidents()
    assert len(items) >= 12
    assert [i["test"] for i in items if not i["caught"]] == []
    assert len({i["test"] for i in items}) == len(items)


def test_a_test_file_without_both_tests_is_not_counted_as_caught(tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = _script()
    (tmp_path / "test_defect_half.py").write_text(
        "INCIDENT = {'title': 't', 'year': 2020, 'project': 'p', 'source': 's', 'gate': 'g', "
        "'reconstruction': 'r', 'message': 'm'}\n\ndef test_caught():\n    pass\n",
        encoding="utf-8",
    )
    script.ROOT = tmp_path
    (item,) = script.incidents(tmp_path)
    assert item["caught"] is False
    assert "| not caught (g) |" in script.render([item])
    assert "**0 / 1 incidents are caught before the tag.**" in script.render([item])
