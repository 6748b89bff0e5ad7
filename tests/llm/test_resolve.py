"""Models by one door: ``agent.llm.resolve`` is the only code that knows ``local`` and ``kite/…``."""

from __future__ import annotations

import ast
from pathlib import Path

import litellm

from kite_browser.agent.config import KiteConfig, LLMConfig
from kite_browser.agent.llm.model import model_problem
from kite_browser.agent.llm.resolve import is_fake, is_local, resolve_model

ROOT = Path(__file__).resolve().parents[2]


def _config(model: str | None) -> KiteConfig:
    return KiteConfig(llm=LLMConfig(model=model))


async def test_a_kite_model_gets_its_provider_and_passes_unchanged() -> None:
    litellm.custom_provider_map = [p for p in litellm.custom_provider_map if p.get("provider") != "kite"]
    config = await resolve_model(_config("kite/scripted"))
    assert config.llm.model == "kite/scripted"
    assert any(p.get("provider") == "kite" for p in litellm.custom_provider_map)


async def test_another_model_passes_unchanged_and_local_can_be_left_for_a_worker() -> None:
    config = _config("openai/gpt-4o-mini")
    assert await resolve_model(config) is config
    assert (await resolve_model(_config(None), start_local=False)).llm.model == "local"


def test_names() -> None:
    assert is_local(None) and is_local("") and is_local("local") and not is_local("openai/local")
    assert is_fake("kite/oracle") and not is_fake("openai/kite/x") and not is_fake(None)
    assert model_problem("kite/no-such-fake", True) == "no model kite/no-such-fake is registered"
    assert model_problem("local", False) is not None and model_problem("local", True) is None


def test_no_other_module_compares_a_model_with_local_or_kite() -> None:
    """The strings ``"local"`` compared with a model, or ``startswith("kite/")``, appear only in the door."""
    found = []
    for pkg in ("agent", "safety", "evals"):
        for path in (ROOT / pkg).rglob("*.py"):
            if path.name == "resolve.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Compare) and any(
                    isinstance(c, ast.Constant) and c.value == "local" for c in [node.left, *node.comparators]
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                if isinstance(node, ast.Call) and ast.unparse(node.func).endswith(
                    ("startswith", "removeprefix")
                ):
                    if any(isinstance(a, ast.Constant) and a.value == "kite/" for a in node.args):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found
