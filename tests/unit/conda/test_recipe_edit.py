"""Recipes read by line (v1 ``if:`` blocks, meta.yaml selectors) and the channel label."""

from __future__ import annotations

from mlrelease.conda import edit, recipe

V1 = """\
context:
  version: "1.2.0"
source:
  sha256: {sha}
build:
  number: 3
requirements:
  build:
    - if: build_platform != target_platform
      then:
        - python
    - ${{{{ compiler('c') }}}}
  host:
    - python
    - numpy >=1.22, <2
  run:
    - python
    - protobuf
""".format(sha="a" * 64)

META = """\
{% set version = "1.2.0" %}
requirements:
  run:
    - python
    - numpy >=1.22  # [py>38]
"""


def test_recipe_v1_items_with_conditions_and_templates() -> None:
    found = recipe.parse(V1, recipe.V1)
    assert found.version and found.version.text == "1.2.0"
    assert found.number and found.number.text == "3"
    assert [(i.section, i.name, i.constraint, i.condition) for i in found.items] == [
        ("build", "python", "", "build_platform != target_platform"),
        ("build", "${{ compiler('c') }}", "", ""),
        ("host", "python", "", ""),
        ("host", "numpy", ">=1.22,<2", ""),
        ("run", "python", "", ""),
        ("run", "protobuf", "", ""),
    ]


def test_meta_yaml_selectors_are_conditions() -> None:
    found = recipe.parse(META, recipe.META)
    assert found.version and found.version.text == "1.2.0"
    assert [(i.name, i.condition) for i in found.items] == [("python", ""), ("numpy", "py>38")]


def test_channel_targets_for_an_rc_and_back_to_main() -> None:
    rc = edit.channel_targets(None, "demo_rc")
    assert rc == "channel_targets:\n  - conda-forge demo_rc\n"
    assert edit.targets_of(rc) == "demo_rc"
    assert edit.channel_targets(None, "main") is None
    assert edit.channel_targets(rc, "main") == "channel_targets:\n  - conda-forge main\n"
