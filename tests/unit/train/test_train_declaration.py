"""The train file: parsed into the train, every mistake named with its key and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlrelease.errors import ConfigError
from mlrelease.train import declaration

GOOD = """
name = "pytorch-2.5"
staging-index = "http://127.0.0.1:1/"
release-index = "http://127.0.0.1:2/"

[series]
upstream_series = "2.5"

[[members]]
name = "torchvision"
origin = "/o/vision.git"
version = "0.20.0"
upstream = ["torch ==2.5.0"]
gaps = [{ variant = "3.13-*", reason = "3.13 is experimental in torch 2.5" }]

[[members]]
name = "torch"
origin = "/o/torch.git"
version = "2.5.0"

[[members]]
name = "torchaudio"
origin = "/o/audio.git"
version = "2.5.0"
upstream = ["torch==2.5.0"]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "train.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_train_file_reads_in_dependency_order(tmp_path: Path) -> None:
    train = declaration.load(write(tmp_path, GOOD))
    assert [m.name for m in train.ordered()] == ["torch", "torchvision", "torchaudio"]
    assert train.series == {"upstream_series": "2.5"}
    assert [m.name for m in train.upstreams(train.member("TorchVision"))] == ["torch"]
    assert train.member("torchvision").gaps[0].variant == "3.13-*"


@pytest.mark.parametrize(
    ("edit", "key", "words"),
    [
        (("torch ==2.5.0", "torch ==2.4.0"), "members[0].upstream[0]", "meets"),
        (("torch ==2.5.0", "torch =2.5.0"), "members[0].upstream[0]", "PEP 508"),
        (("torch ==2.5.0", "numpy"), "members[0].upstream[0]", "another member"),
        (('version = "2.5.0"\n\n[[m', 'version = "two"\n\n[[m'), "members[1].version", "PEP 440"),
        (("http://127.0.0.1:2/", "http://127.0.0.1:1"), "staging-index", "another index"),
        (('reason = "3.13 is experimental in torch 2.5"', 'reason = ""'), "reason", "why"),
        (('name = "torchaudio"', 'name = "torch"'), "members[2].name", "no other member"),
        (('upstream_series = "2.5"', '"upstream series" = "2.5"'), "series", "letters"),
        (
            ('origin = "/o/torch.git"', 'origin = "/o/torch.git"\nupstream = ["torchvision"]'),
            "members",
            "circle",
        ),
        (('version = "0.20.0"', 'version = "0.20.0"\nbogus = 1'), "bogus", "known key"),
    ],
)
def test_every_mistake_is_named(
    tmp_path: Path, edit: tuple[str, str], key: str, words: str
) -> None:
    text = GOOD.replace(*edit, 1)
    assert text != GOOD
    with pytest.raises(ConfigError) as caught:
        declaration.load(write(tmp_path, text))
    assert key in str(caught.value) and words in str(caught.value), caught.value
    assert str(tmp_path / "train.toml") in str(caught.value)


def test_a_missing_file_says_how_to_name_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"--train PATH"):
        declaration.load(tmp_path / "nowhere.toml")
