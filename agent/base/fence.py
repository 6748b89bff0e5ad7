"""The ``<untrusted_page>`` fence: page content shown to the model is wrapped in it, and nothing from a page can
open or close it.

Whatever a page controls (its text, the Markdown ``read`` returns, an element list, a dialog's message) is
fenced wherever it appears in the prompt, not only in the "Current page" section: page text quoted in an
action's result would otherwise read as Kite's own words. A tag written by the page is defused whatever its
case, spacing, compatibility form (fullwidth ``＜``) or hidden characters: its bracket becomes ``‹``.
"""

from __future__ import annotations

import re

TAG = "untrusted_page"
_HIDDEN = "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]*"
_NAME = _HIDDEN.join(
    "[_\\s\uff3f-]*" if ch == "_" else f"(?:{re.escape(ch)}|{re.escape(chr(ord(ch) + 0xFEE0))})" for ch in TAG
)
_TAG_RE = re.compile(
    rf"[<\uff1c\ufe64\u2329\u3008]({_HIDDEN}\s*[/\uff0f]?\s*{_HIDDEN}{_NAME})", re.IGNORECASE
)


def defuse(text: str) -> str:
    """``text`` with every opening or closing fence tag a page may have written made harmless."""
    return _TAG_RE.sub(lambda m: "‹" + m.group(1), text)


def fence(text: str) -> str:
    """Page content as a fenced block the page cannot close."""
    return f"<{TAG}>\n{defuse(text)}\n</{TAG}>"
