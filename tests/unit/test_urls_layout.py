"""URLs are opened by the web edge alone: the package's source, read as syntax trees.

Every page and file mlrelease reads over the network goes through ``edges/web.py`` (the index
edge, ``edges/index.py``, parses what it answers); no other module imports an HTTP client or
calls ``urlopen``. ``urllib.parse`` (string handling) is no network access.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import mlrelease

SRC = Path(mlrelease.__file__).parent
URL_EDGE = "edges/web.py"
HTTP_MODULES = frozenset(
    {"urllib.request", "http.client", "urllib3", "requests", "httpx", "aiohttp", "ftplib"}
)
"""Importing one of these is how Python code opens a URL."""
OPENING_CALLS = frozenset({"urlopen", "urlretrieve", "build_opener", "HTTPConnection"})


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        yield name, ast.parse(path.read_text(encoding="utf-8"), filename=name)


def opens_urls(tree: ast.Module) -> list[str]:
    """How the module opens URLs (empty: it does not)."""
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        found += [
            f"import {n} (line {node.lineno})"
            for n in names
            if n in HTTP_MODULES or n.split(".")[0] in HTTP_MODULES - {"urllib.request"}
        ]
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in OPENING_CALLS:
                found.append(f"{called}() on line {node.lineno}")
    return found


OPENING = [
    "import urllib.request",
    "from urllib.request import urlopen",
    "from urllib import request\nrequest.urlopen('http://x')",
    "import http.client",
    "from http.client import HTTPSConnection",
    "import requests",
    "import httpx",
    "import urllib3.poolmanager",
    "opener.urlretrieve('http://x')",
]
QUIET = [
    "from urllib.parse import urljoin",
    "import urllib.parse",
    "from mlrelease.edges import web\nweb.get('http://x')",
    "import http",  # HTTPStatus and friends: no connection
]


@pytest.mark.parametrize("source", OPENING)
def test_the_scanner_sees_every_way_to_open_a_url(source: str) -> None:
    assert opens_urls(ast.parse(source)), source


@pytest.mark.parametrize("source", QUIET)
def test_the_scanner_passes_what_opens_nothing(source: str) -> None:
    assert not opens_urls(ast.parse(source)), source


def test_urls_are_opened_by_the_web_edge_alone() -> None:
    openers = {name: how for name, tree in _modules() if (how := opens_urls(tree))}
    assert URL_EDGE in openers, f"{URL_EDGE} is the module that opens URLs"
    others = {name: how for name, how in openers.items() if name != URL_EDGE}
    assert not others, (
        "only mlrelease/edges/web.py opens URLs, but "
        + "; ".join(f"{name} does ({', '.join(how)})" for name, how in sorted(others.items()))
        + ". Read pages with mlrelease.edges.web.get (an index through mlrelease.edges.index)."
    )
