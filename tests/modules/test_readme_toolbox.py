"""The Toolbox example of docs/python-api.md, run as written against the bundled shop."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def readme_example() -> str:
    text = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- toolbox-example -->\s*```python\n(.*?)```", text, re.S)
    assert m, "the Toolbox example of docs/python-api.md is missing"
    return m.group(1)


async def test_readme_toolbox_example(sites: Any, kite_config: Any) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(readme_example(), "docs/python-api.md", "exec"), namespace)
    text = await namespace["cart_link_text"](sites.url("/shop/"), kite_config())
    assert text.replace(" ", "") == "Cart(0)"
