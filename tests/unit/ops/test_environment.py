"""How a backend's error that says the machine lacks something (a locale, a module) becomes the
``environment`` verdict's message."""

from __future__ import annotations

from mlrelease.edges import installed
from mlrelease.ops import environment

ORT_MESSAGE = (
    "[ONNXRuntimeError] : 1 : FAIL : Exception during initialization: /onnxruntime_src/"
    "onnxruntime/core/providers/cpu/text/string_normalizer.cc:235 onnxruntime::StringNormalizer"
    "::Locale::Locale(const std::string&)::<lambda()> Failed to construct locale with name:"
    "en_US.UTF-8:locale::facet::_S_create_c_locale name not valid:Please, install necessary "
    "language-pack-XX and configure locales"
)


def test_a_missing_locale_is_named_with_the_fix() -> None:
    message = environment.explain(RuntimeError(ORT_MESSAGE))
    assert message is not None
    assert message.startswith("needs the en_US.UTF-8 locale, which this machine does not have")
    assert "apt-get install locales" in message


def test_other_errors_are_not_environment() -> None:
    error = RuntimeError("Could not find an implementation for Foo(1) node")
    assert environment.explain(error) is None


def test_a_missing_module_names_its_distribution_and_the_extra() -> None:
    error = ModuleNotFoundError("No module named 'PIL'", name="PIL")
    message = environment.explain(error)
    assert message is not None
    assert message.startswith("the case needs the Python module `PIL` from the distribution pillow")
    assert "[ops]" in message


def test_the_module_an_import_error_names_in_words() -> None:
    pillow = ImportError("Pillow must be installed to use the reference implementation of the X")
    # None when Pillow is installed here: only a module this environment lacks is named.
    assert installed.module_of_import_error(pillow) in (None, "PIL")
    assert installed.module_of_import_error(ImportError("No module named 'scipy.stats'")) == (
        "scipy.stats"
    )
    unknown = environment.explain(ImportError("libfoo.so: cannot open shared object file"))
    assert unknown == (
        "needs a module this environment lacks (ImportError: libfoo.so: cannot open shared "
        "object file)"
    )


def test_a_loadable_locale_needs_nothing(tmp_path: object) -> None:
    assert environment.provide(tmp_path, ["C"]) == environment.Provision()  # type: ignore[arg-type]
