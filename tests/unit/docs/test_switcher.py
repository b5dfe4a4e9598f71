"""Pure parts of the docs feature: switcher entries, generated-page rendering, configuration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.version import Version

from mlrelease.docs import freeze, pages, site, switcher
from mlrelease.docs.config import DocsConfig
from mlrelease.edges import files
from mlrelease.errors import ConfigError, UserError
from mlrelease.registry import load_config


def test_entries_put_main_first_then_newest_and_prefer_the_newest_final_release() -> None:
    data = switcher.entries(["0.1.0", "0.3.0rc1", "0.2.0"], "/p/", dev=True)
    assert [e["version"] for e in data] == ["main", "0.3.0rc1", "0.2.0", "0.1.0"]
    assert [e["url"] for e in data] == ["/p/main/", "/p/0.3.0rc1/", "/p/0.2.0/", "/p/0.1.0/"]
    assert switcher.preferred(data) == "0.2.0"
    assert [e["name"] for e in data] == ["main", "0.3.0rc1", "0.2.0 (stable)", "0.1.0"]
    assert switcher.problems(data) == []


def test_entries_without_a_final_release_prefer_nothing_and_dedupe() -> None:
    data = switcher.entries(["1.0.0rc1", "1.0.0rc1", "1.0.0rc2"], "/", dev=False)
    assert [e["version"] for e in data] == ["1.0.0rc2", "1.0.0rc1"]
    assert switcher.preferred(data) is None


def test_entries_round_trip_through_render_and_parse() -> None:
    data = switcher.entries(["0.1.0", "0.2.0"], "https://x.github.io/p/", dev=True)
    again = switcher.parse(switcher.render(data), "switcher.json")
    assert again == data
    assert switcher.versions(again) == ["0.2.0", "0.1.0"]
    assert switcher.has_dev(again)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"version": "1.0.0"}, "expected a JSON list"),
        ([{"version": "1.0.0"}], "'url'"),
        ([{"version": "1.0.0", "url": "/1.0.0/"}] * 2, "listed twice"),
        ([{"version": "latest!", "url": "/x/"}], "PEP 440"),
        (
            [
                {"version": "1.0.0", "url": "/a/", "preferred": True},
                {"version": "2.0.0", "url": "/b/", "preferred": True},
            ],
            "2 entries are marked preferred",
        ),
        ([{"version": "1.0.0", "url": "/a/", "preferred": "yes"}], "true or false"),
    ],
)
def test_problems_name_what_is_wrong(data: object, fragment: str) -> None:
    found = switcher.problems(data)
    assert found and fragment in " ".join(found)


def test_parse_errors_name_the_file() -> None:
    with pytest.raises(UserError, match=r"site/switcher.json: expected JSON"):
        switcher.parse("{not json", "site/switcher.json")
    with pytest.raises(UserError, match=r"site/switcher.json: not a valid version switcher"):
        switcher.parse('[{"version": "1.0"}]', "site/switcher.json")


def test_redirect_page_goes_to_the_preferred_version() -> None:
    page = switcher.redirect_page(switcher.entries(["0.1.0", "0.2.0"], "/", dev=True))
    assert 'content="0; url=0.2.0/"' in page
    assert 'url=main/"' in switcher.redirect_page(switcher.entries([], "/", dev=True))


def test_site_problems_report_a_listed_version_without_its_folder(tmp_path: Path) -> None:
    (tmp_path / "0.1.0").mkdir()
    (tmp_path / "0.1.0" / "index.html").write_text("<html></html>", encoding="utf-8")
    site.write_index(tmp_path, switcher.entries(["0.1.0", "0.2.0"], "/", dev=False))
    assert site.problems(tmp_path) == [
        "switcher.json lists '0.2.0' but 0.2.0/index.html does not exist in the site"
    ]
    (tmp_path / "switcher.json").write_text("[", encoding="utf-8")
    assert "not valid JSON" in site.problems(tmp_path)[0]


def test_write_text_replaces_atomically_and_leaves_a_readable_file(tmp_path: Path) -> None:
    target = tmp_path / "switcher.json"
    site.write_text(target, "[]\n")
    site.write_text(target, "[1]\n")
    assert target.read_text(encoding="utf-8") == "[1]\n"
    assert [p.name for p in tmp_path.iterdir()] == ["switcher.json"]
    assert target.stat().st_mode & 0o044 == 0o044


@pytest.mark.parametrize(
    ("given", "expected"),
    [("1.4.0", "1.4.0"), ("v1.4.0", "1.4.0"), ("v1.4.0-rc2", "1.4.0rc2"), ("1.4.0rc2", "1.4.0rc2")],
)
def test_freeze_accepts_a_version_or_its_tag(given: str, expected: str) -> None:
    assert freeze.release_version(given) == Version(expected)


@pytest.mark.parametrize("given", ["1.4.0.dev0", "1.4.0.post1", "not-a-version"])
def test_freeze_refuses_versions_without_a_release_tag(given: str) -> None:
    with pytest.raises(UserError, match=given.replace(".", r"\.")):
        freeze.release_version(given)


def test_sessions_page_lists_every_session_and_escapes_table_cells() -> None:
    everything = [
        {"session": "tests", "name": "tests", "description": "Run | the tests.", "tags": []},
        {"session": "docs", "name": "docs", "description": None, "tags": ["docs", "x"]},
    ]
    sessions = pages.sessions_from_json(everything, [everything[0]])
    text = pages.render_sessions(sessions)
    assert "| `tests` | Run \\| the tests. |  | yes |" in text
    assert "| `docs` |  | `docs`, `x` | no |" in text
    assert "Generated by `mlrelease docs generate`" in text


def test_task_names_walk_nested_collections() -> None:
    tree = {
        "name": "tasks",
        "tasks": [{"name": "top", "help": "Top."}],
        "collections": [
            {
                "name": "docs",
                "tasks": [{"name": "freeze", "help": None}],
                "collections": [
                    {"name": "deep", "tasks": [{"name": "x", "help": "X."}], "collections": []}
                ],
            },
        ],
    }
    assert list(pages.task_names(tree)) == [
        ("top", "Top."),
        ("docs.freeze", ""),
        ("docs.deep.x", "X."),
    ]
    text = pages.render_tasks(
        [pages.InvokeTask("docs.freeze", "Freeze.", "Usage: inv docs.freeze")]
    )
    assert "| [`docs.freeze`](#task-docs-freeze) | Freeze. |" in text
    assert (
        "(task-docs-freeze)=\n## `invoke docs.freeze`\n\n```text\nUsage: inv docs.freeze\n```"
        in text
    )


def test_stale_names_the_page_and_the_first_difference(tmp_path: Path) -> None:
    page = pages.Page("docs/reference/x.md", "# X\n\nline two\n")
    assert pages.stale(tmp_path, [page]) == ["docs/reference/x.md: missing"]
    generated = files.Generated(tmp_path / page.path, page.text, page.path)
    assert generated.write() is True
    assert generated.write() is False
    assert pages.stale(tmp_path, [page]) == []
    (tmp_path / page.path).write_text("# X\n\nline 2\n", encoding="utf-8")
    assert pages.stale(tmp_path, [page]) == [
        "docs/reference/x.md: line 3: expected 'line two', found 'line 2'"
    ]


def _pyproject(tmp_path: Path, docs_table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.mlrelease.docs]\n{docs_table}\n", encoding="utf-8"
    )
    return tmp_path


def test_docs_table_is_read_with_defaults(tmp_path: Path) -> None:
    config = load_config(_pyproject(tmp_path, 'site = "public"\nbase-url = "/proj/"'))
    assert config.table(DocsConfig) == DocsConfig(site="public", base_url="/proj/")
    config.table(DocsConfig).validate("pyproject.toml")
    assert load_config(_pyproject(tmp_path, "")).table(DocsConfig) == DocsConfig()


def test_docs_table_errors_name_the_key(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"tool\.mlrelease\.docs\.bse-url.*Did you mean 'base-url'"
    ):
        load_config(_pyproject(tmp_path, 'bse-url = "/"'))
    with pytest.raises(ConfigError, match=r"tool\.mlrelease\.docs\.site: expected a string"):
        load_config(_pyproject(tmp_path, "site = 3"))
    config = load_config(_pyproject(tmp_path, 'base-url = "https://x.github.io/p"'))
    with pytest.raises(ConfigError, match=r"base-url: expected a URL or path ending in '/'"):
        config.table(DocsConfig).validate("pyproject.toml")


def test_switcher_json_is_what_the_theme_reads() -> None:
    # pydata-sphinx-theme needs "version" and "url" on every entry; "name" and "preferred"
    # are optional. Keep the rendered file minimal and stable.
    text = switcher.render(switcher.entries(["0.1.0"], "/", dev=False))
    assert json.loads(text) == [
        {"name": "0.1.0 (stable)", "version": "0.1.0", "url": "/0.1.0/", "preferred": True}
    ]
