"""Each channel is tied to its index (pure): ``release`` publishes only to
``[tool.mlrelease.release] index``, ``rc`` only to ``rc-index``.

A ``--repository-url`` given on the command line must be the channel's configured index, or it
is refused, naming both. Where the project's pyproject.toml does not set the channel's key (the
default, PyPI's or TestPyPI's upload URL, applies), a URL given names the channel's index for
that run, but never the other channel's: the rc channel given the release index's URL (or the
reverse) is refused, as is a configuration giving both channels one index. Two URLs are the same
index when their simple indexes are (``upload.pypi.org/legacy/`` is ``pypi.org/simple/``).
"""

from __future__ import annotations

from mlrelease.config import Config
from mlrelease.edges.index import simple_url
from mlrelease.errors import UserError
from mlrelease.release.config import TABLE, ReleaseConfig

KEYS = {"release": "index", "rc": "rc-index"}
"""The ``[tool.mlrelease.release]`` key of each channel's index."""


def same_index(a: str, b: str) -> bool:
    return simple_url(a.strip()) == simple_url(b.strip())


def configured(config: Config, channel: str) -> tuple[str, bool]:
    """(the channel's index URL, whether pyproject.toml sets it rather than the default)."""
    rel = config.table(ReleaseConfig)
    raw = config.pyproject.get("tool", {}).get("mlrelease", {}).get("release", {})
    url = rel.index if channel == "release" else rel.rc_index
    return url, isinstance(raw, dict) and KEYS[channel] in raw


def channel_url(config: Config, channel: str, given: str | None, verb: str) -> str:
    """The index ``channel`` publishes to (and promote reads), ``given`` checked against it."""
    other = "rc" if channel == "release" else "release"
    own, explicit = configured(config, channel)
    theirs, _ = configured(config, other)
    key, other_key = f"{TABLE}.{KEYS[channel]}", f"{TABLE}.{KEYS[other]}"
    if own and theirs and same_index(own, theirs):
        raise UserError(
            f"{verb}: {key} and {other_key} are one index ({own}); the RC channel must be "
            "another index than the release's, or an RC's files would be released. Set "
            f"{TABLE}.rc-index to a test index."
        )
    if given is None or given == "":
        if not own:
            raise UserError(
                f"{verb}: {key} is empty: the {channel} channel has no index; set it in "
                "pyproject.toml (the index's upload URL)."
            )
        return own
    if theirs and same_index(given, theirs):
        raise UserError(
            f"{verb} --repository-url {given}: that is the {other} channel's index "
            f"({other_key} = {theirs!r}); the {channel} channel publishes only to its own "
            f"({key} = {own!r}). Use --channel {other} for that index."
        )
    if explicit and not same_index(given, own):
        raise UserError(
            f"{verb} --repository-url {given}: not the {channel} channel's index ({key} = "
            f"{own!r}). A URL on the command line must be the channel's: drop it, or change "
            f"{key} in pyproject.toml."
        )
    return given
