"""How a backend's locale error becomes the ``environment`` verdict's message."""

from __future__ import annotations

from mlrelease.ops import environment

ORT_MESSAGE = (
    "[ONNXRuntimeError] : 1 : FAIL : Exception during initialization: /onnxruntime_src/"
    "onnxruntime/core/providers/cpu/text/string_normalizer.cc:235 onnxruntime::StringNormalizer"
    "::Locale::Locale(const std::string&)::<lambda()> Failed to construct locale with name:"
    "en_US.UTF-8:locale::facet::_S_create_c_locale name not valid:Please, install necessary "
    "language-pack-XX and configure locales"
)


def test_a_missing_locale_is_named_with_the_fix() -> None:
    message = environment.explain(ORT_MESSAGE)
    assert message is not None
    assert message.startswith("needs the en_US.UTF-8 locale, which this machine does not have")
    assert "apt-get install locales" in message


def test_other_errors_are_not_environment() -> None:
    assert environment.explain("Could not find an implementation for Foo(1) node") is None


def test_a_loadable_locale_needs_nothing(tmp_path: object) -> None:
    assert environment.provide(tmp_path, ["C"]) == environment.Provision()  # type: ignore[arg-type]
