"""Conformance cases: a model, its inputs and expected outputs, and the operator it tests.

Two sources, one format:

- the node test cases of the installed ``onnx``, generated in memory by
  ``onnx.backend.test.case.node.collect_testcases`` (recent onnx wheels no longer ship them on
  disk) and cached on disk keyed by the onnx version, so a warm run does not regenerate them;
- case folders in onnx's own on-disk layout, for an adopter's operator domain
  (:mod:`.case_folders`).
"""

from __future__ import annotations

import contextlib
import fnmatch
import inspect
import os
import pickle
import re
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mlrelease.errors import UserError

CACHE_FORMAT = 2
"""Bump when the cached data changes shape; older cache files are then ignored."""

DEFAULT_DOMAIN = "ai.onnx"
RANDOM_OPS = frozenset(
    {
        "Bernoulli",
        "Multinomial",
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
    }
)
"""ai.onnx ops whose values come from a generator ONNX does not specify (seeded or not)."""
_EXPANDED = re.compile(r"_expanded(_ver\d+)?$")


def domain_name(domain: str) -> str:
    """The index's name of an opset domain: ``""`` is ``ai.onnx``."""
    return domain or DEFAULT_DOMAIN


@dataclass(frozen=True)
class Case:
    """One conformance case and the operator version it exercises."""

    name: str
    model: bytes
    """The serialized ``onnx.ModelProto``."""
    data_sets: list[tuple[list[Any], list[Any]]]
    """(inputs, expected outputs): numpy arrays, lists (sequences), None (empty optionals)."""
    rtol: float
    atol: float
    domain: str
    op_type: str
    since_version: int
    """The operator version the case tests (its schema's since_version at the model's opset)."""
    opsets: dict[str, int]
    """The model's opset imports, by domain name."""
    ir_version: int
    min_ir_version: int
    """The lowest IR version its opsets allow (``onnx.helper.find_min_ir_version_for``)."""
    random_ops: tuple[str, ...] = ()
    """Random ops in the model (and Dropout in training mode): their values are not comparable
    across generators, so only the outputs' structure is checked."""
    expanded: bool = False
    """A function-body expansion of another case (``test_x_expanded``): it exercises the ops of
    the body, so it is listed under the operator but does not decide its status."""
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def select(cases: Iterable[Case], patterns: Sequence[str]) -> list[Case]:
    """The cases whose name matches any fnmatch pattern (all when there are none)."""
    if not patterns:
        return list(cases)
    return [c for c in cases if any(fnmatch.fnmatchcase(c.name, p) for p in patterns)]


def shard(cases: Sequence[Case], index: int, count: int) -> list[Case]:
    """Shard ``index`` (1-based) of ``count``: round-robin over the cases sorted by name."""
    ordered = sorted(cases, key=lambda c: c.name)
    return [c for i, c in enumerate(ordered) if i % count == index - 1]


# --- describing a model -------------------------------------------------------------------


def describe_model(
    name: str,
    model: Any,
    declared: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The operator a case tests: ``domain``, ``op_type``, ``since_version`` and the IR facts.

    A case has one node, or declares its operator in data.json; ``test_x_expanded`` cases are
    attributed by the caller to their base case.
    """
    import onnx
    import onnx.defs

    declared = declared or {}
    opsets = {domain_name(o.domain): int(o.version) for o in model.opset_import}
    nodes = list(model.graph.node)
    if "op_type" in declared:
        op_type, domain = str(declared["op_type"]), domain_name(str(declared.get("domain", "")))
    elif len(nodes) == 1:
        op_type, domain = nodes[0].op_type, domain_name(nodes[0].domain)
    else:
        op_type, domain = "", ""
    since = opsets.get(domain, 0)
    if op_type:
        with contextlib.suppress(onnx.defs.SchemaError):
            schema_domain = "" if domain == DEFAULT_DOMAIN else domain
            since = onnx.defs.get_schema(op_type, since, schema_domain).since_version
    try:
        min_ir = onnx.helper.find_min_ir_version_for(list(model.opset_import), ignore_unknown=True)
    except ValueError:
        min_ir = model.ir_version
    random = sorted(
        {
            n.op_type
            for n in nodes
            if n.domain in ("", DEFAULT_DOMAIN)
            and (
                n.op_type in RANDOM_OPS
                or (n.op_type == "Dropout" and len(n.input) > 2 and n.input[2])
            )
        }
    )
    return {
        "domain": domain,
        "op_type": op_type,
        "since_version": int(since),
        "opsets": opsets,
        "ir_version": int(model.ir_version),
        "min_ir_version": int(min_ir),
        "nodes": len(nodes),
        "random_ops": tuple(random),
    }


RawCase = tuple[str, Any, list[Any], float, float, dict[str, Any], str]
"""name, ModelProto, data sets, rtol, atol, declared metadata, source."""


def finish(raw: list[RawCase]) -> list[Case]:
    """Attribute every raw case to its operator and build the :class:`Case` list."""
    described = {
        name: describe_model(name, model, declared) for name, model, _, _, _, declared, _ in raw
    }
    cases = []
    for name, model, data_sets, rtol, atol, _declared, source in raw:
        info = dict(described[name])
        expanded = bool(_EXPANDED.search(name))
        base = _EXPANDED.sub("", name)
        if expanded and base in described:
            for key in ("domain", "op_type", "since_version"):
                info[key] = described[base][key]
        elif not info["op_type"]:
            raise UserError(
                f"case {name!r} ({source}): cannot tell which operator it tests: it has "
                f"{info['nodes']} nodes. Expected one node, a test_X_expanded name with a test_X "
                'case, or "op_type" (and "domain") in its data.json.'
            )
        cases.append(
            Case(
                name=name,
                model=model.SerializeToString(),
                data_sets=data_sets,
                rtol=rtol,
                atol=atol,
                domain=info["domain"],
                op_type=info["op_type"],
                since_version=info["since_version"],
                opsets=info["opsets"],
                ir_version=info["ir_version"],
                min_ir_version=info["min_ir_version"],
                random_ops=info["random_ops"],
                expanded=expanded,
                source=source,
            )
        )
    return cases


def as_numpy(value: Any) -> Any:
    """Tensors as numpy arrays (TensorProto -> ndarray, scalars -> 0-d arrays)."""
    import numpy as np
    import onnx.numpy_helper

    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [as_numpy(v) for v in value]
    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    if isinstance(value, np.generic):
        return np.asarray(value)
    return value


# --- the onnx node suite and its cache ------------------------------------------------------


def onnx_version() -> str:
    import onnx

    return str(onnx.__version__)


def default_cache_dir() -> Path:
    """``$MLRELEASE_CACHE_DIR``, else the platform's user cache folder + ``mlrelease``."""
    env = os.environ.get("MLRELEASE_CACHE_DIR")
    if env:
        return Path(env)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "mlrelease"


def cache_path(cache_dir: Path) -> Path:
    """The cache file for the installed onnx (pickles depend on Python and numpy too)."""
    import numpy

    python = f"py{sys.version_info[0]}{sys.version_info[1]}"
    numpy_major = f"np{numpy.__version__.split('.')[0]}"
    name = f"onnx-{onnx_version()}-node-cases-v{CACHE_FORMAT}-{python}-{numpy_major}.pickle"
    return cache_dir / "conformance" / name


def onnx_node_cases(
    cache_dir: Path | None = None,
    on_generate: Callable[[Path], None] | None = None,
) -> list[Case]:
    """The node cases of the installed onnx: from the cache, else generated and cached.

    The cache file is written to a temporary name and renamed into place, so concurrent
    processes never read a partial file (two cold runs may both generate; one rename wins).
    """
    path = cache_path(cache_dir or default_cache_dir())
    cached = _read_cache(path)
    if cached is not None:
        return cached
    if on_generate:
        on_generate(path)
    cases = _generate_node_cases()
    _write_cache(path, cases)
    return cases


def _read_cache(path: Path) -> list[Case] | None:
    try:
        with path.open("rb") as handle:
            data = pickle.load(handle)
        if data.get("format") != CACHE_FORMAT or data.get("onnx") != onnx_version():
            return None
        return [Case(**{**item, "random_ops": tuple(item["random_ops"])}) for item in data["cases"]]
    except FileNotFoundError:
        return None
    except Exception:  # a truncated or foreign file is regenerated, never trusted
        return None


def _write_cache(path: Path, cases: list[Case]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": CACHE_FORMAT,
        "onnx": onnx_version(),
        "cases": [c.to_dict() for c in cases],
    }
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            pickle.dump(payload, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _generate_node_cases() -> list[Case]:
    from onnx.backend.test.case.node import collect_testcases

    source = f"onnx {onnx_version()} node suite"
    # onnx 1.21 and 1.22 require an operator filter (None: every operator); 1.23 made it optional.
    takes_filter = bool(inspect.signature(collect_testcases).parameters)
    try:
        with warnings.catch_warnings():
            # Some generators overflow on purpose (casts to narrow types); numpy warns each time.
            warnings.simplefilter("ignore")
            collected = collect_testcases(None) if takes_filter else collect_testcases()
    except Exception as exc:  # onnx's own generators: any failure is the suite's, not ours
        raise UserError(
            f"cannot generate the {source}: onnx.backend.test.case.node.collect_testcases "
            f"failed ({type(exc).__name__}: {exc}). Install an onnx release whose node suite "
            "generates, or set [tool.mlrelease.ops] onnx-node-cases = false and list case folders "
            "in case-sets."
        ) from exc
    raw: list[RawCase] = []
    for tc in collected:
        assert tc.model is not None and tc.data_sets is not None
        data = [
            ([as_numpy(x) for x in ins], [as_numpy(x) for x in outs]) for ins, outs in tc.data_sets
        ]
        raw.append((tc.name, tc.model, data, float(tc.rtol), float(tc.atol), {}, source))
    return finish(raw)


def check_unique(cases: Sequence[Case]) -> None:
    """Case names are keys of the index: two cases may not share one."""
    seen: dict[str, str] = {}
    for case in cases:
        if case.name in seen:
            raise UserError(
                f"case {case.name!r} is defined twice: in {seen[case.name]} and in {case.source}. "
                "Rename one of the case folders."
            )
        seen[case.name] = case.source


@dataclass
class CaseSummary:
    """What the index keeps of a case (no data)."""

    name: str
    domain: str
    op_type: str
    since_version: int
    expanded: bool
    opsets: dict[str, int] = field(default_factory=dict)


def summaries(cases: Iterable[Case]) -> list[CaseSummary]:
    return [
        CaseSummary(c.name, c.domain, c.op_type, c.since_version, c.expanded, dict(c.opsets))
        for c in cases
    ]
