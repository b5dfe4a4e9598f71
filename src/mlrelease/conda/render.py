"""The proposed recipe rendered, and built when a channel is configured, by rattler-build
(py-rattler-build, from PyPI): rendering is offline (Jinja2, selectors, variants: no channel);
a build resolves its environments from conda channels, which these machines cannot reach, so
it runs only against the channel ``[tool.mlrelease.conda] channel`` names."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mlrelease.conda.recipe import V1
from mlrelease.edges import installed

NO_CHANNEL = (
    "not built: a build resolves its host and build environments from conda channels "
    "(conda-forge), which this machine cannot reach; set [tool.mlrelease.conda] channel to a "
    "channel it can reach (a URL or a local folder) to build"
)


@dataclass(frozen=True)
class Rendered:
    """What rendering said: one line per variant, and the problems."""

    variants: tuple[str, ...]
    problems: tuple[str, ...]
    skipped: str = ""


def _variant_yaml(values: Mapping[str, str]) -> str:
    return "".join(f"{k}:\n  - {v!r}\n" for k, v in sorted(values.items()) if k != "zip_keys")


def render(kind: str, text: str, variants: Sequence[Mapping[str, str]]) -> Rendered:
    """Render the recipe ``text`` for each variant (one empty variant when none is known)."""
    if kind != V1:
        return Rendered(
            (),
            (),
            skipped="not rendered: rattler-build renders recipe v1 (recipe.yaml); a meta.yaml "
            "is rendered by conda-build, which comes from conda channels only",
        )
    installed.require("rattler_build", extra="conda")
    from rattler_build import PlatformConfig, RenderConfig, Stage0Recipe, VariantConfig

    lines, problems = [], []
    with tempfile.TemporaryDirectory(prefix="mlrelease-conda-") as folder:
        path = Path(folder) / "recipe.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            recipe = Stage0Recipe.from_file(str(path))
        except Exception as exc:  # rattler-build's parse errors have no common base
            return Rendered((), (f"recipe does not parse: {_first(exc)}",))
        for values in variants or ({},):
            platform = values.get("target_platform") or None
            label = ", ".join(
                f"{k}={values[k]}" for k in ("target_platform", "python") if k in values
            )
            try:
                config = VariantConfig.from_yaml(_variant_yaml(values)) if values else None
                rendered = recipe.render(
                    config, RenderConfig(platform=PlatformConfig(target_platform=platform))
                )
            except Exception as exc:  # a render error names the recipe's line
                problems.append(f"{label or 'default variant'}: {_first(exc)}")
                continue
            for variant in rendered:
                stage1 = variant.recipe.to_dict()
                lines.append(
                    f"{label or 'default variant'}: {stage1['package']['name']} "
                    f"{stage1['package']['version']} "
                    f"(run: {', '.join(stage1.get('requirements', {}).get('run', [])) or 'none'})"
                )
    return Rendered(tuple(lines), tuple(problems))


def build(kind: str, text: str, channel: str, output: Path) -> str:
    """Build the recipe against ``channel`` into ``output``; one line saying what happened."""
    if not channel:
        return NO_CHANNEL
    if kind != V1:
        return "not built: rattler-build builds recipe v1 only; build a meta.yaml with conda-build"
    installed.require("rattler_build", extra="conda")
    from rattler_build import Stage0Recipe

    output.mkdir(parents=True, exist_ok=True)
    path = output / "recipe" / "recipe.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    try:
        results = Stage0Recipe.from_file(str(path)).run_build(
            output_dir=output / "packages", channels=[channel]
        )
    except Exception as exc:  # a failed solve or build: its own message
        return f"build failed against {channel}: {_first(exc)}"
    return f"built {len(results)} package(s) against {channel} into {output / 'packages'}"


def _first(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:400] or type(exc).__name__
