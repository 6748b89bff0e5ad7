"""The page representation's models (what the snapshot engine produces) and the action result models.

Three layers from one extraction: ``PageSummary`` (layer 1), ``Element`` list (layer 2) and
``ElementDetails`` (layer 3, on demand). The text rendering for the LLM is a separate pure function
(``agent/browser/render.py``). ``ActionResult`` is what the executor returns for every action.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal["button", "input", "link", "select", "image", "other"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Rect(_Model):
    """A box in top-level viewport CSS pixels."""

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.width / 2, self.y + self.height / 2)


class Element(_Model):
    """One interactive element (layer 2). ``index`` is stable while the element stays in the DOM."""

    index: int
    tag: str
    kind: Kind = "other"
    role: str | None = None
    name: str = ""
    """Accessible name (label/for, aria-label(ledby), placeholder, title, alt, text), truncated."""
    type: str | None = None
    """Input type for inputs (text, email, password, checkbox, file ...)."""
    placeholder: str | None = None
    value: str | None = None
    """Current value of a field (passwords are masked)."""
    href: str | None = None
    options: list[str] | None = None
    """The first suggestions of an input's ``<datalist>`` ("value (label)" when they differ), or the first
    choices of a ``<select>`` by their text."""
    more_options: int = 0
    """How many more suggestions or choices there are beyond ``options``."""
    checked: bool | None = None
    selected: bool | None = None
    disabled: bool = False
    expanded: bool | None = None
    editable: bool = False
    """True for text inputs, textareas and contenteditable."""
    attrs: dict[str, str] = Field(default_factory=dict)
    """A few identifying attributes kept for policy decisions: id, name, autocomplete, inputmode; for a nameless
    button or link, ``icon`` (what its icon is called) or ``class`` (its plain class words)."""
    rect: Rect
    in_viewport: bool = True
    frame: str | None = None
    """None for the top document; a frame path such as "0" or "0.1" for elements inside iframes."""
    shadow: bool = False
    """Inside an open shadow root."""
    is_new: bool = False
    """New since the previous snapshot of this page."""
    aria_hidden: bool = False
    """Inside an ``aria-hidden="true"`` container although drawn and hittable (a hint: sites misuse it)."""


class ElementDetails(Element):
    """Layer 3: everything about one element."""

    attributes: dict[str, str] = Field(default_factory=dict)
    selector: str = ""
    xpath: str = ""
    parent_text: str = ""
    child_count: int = 0


class TabInfo(_Model):
    index: int
    url: str
    title: str = ""
    active: bool = False


class DialogInfo(_Model):
    type: Literal["alert", "confirm", "prompt", "beforeunload"]
    message: str = ""
    default_value: str | None = None
    handled: str | None = None
    """How Kite answered it: accepted / dismissed; None while pending."""
    reason: str | None = None
    """Why, when the safety policy judged the dialog (the user approved / declined, and the policy's reason)."""


class DownloadNotice(_Model):
    """What Kite did to a download the page started, besides saving it: stopped it at the size cap, took a
    secret's value out of its content, or withheld it (a file that is not text with a secret in it)."""

    type: Literal[
        "download_too_large", "download_total_too_large", "download_secret_redacted", "download_withheld"
    ]
    file: str
    """The file's name (as the page suggested it, secrets taken out)."""
    message: str
    """One line for the model: what was done, and why."""
    received_mb: float | None = None
    """download_too_large, download_total_too_large: how much of it had arrived when it was stopped."""
    cap_mb: float | None = None
    """download_too_large: the cap (``browser.max_download_mb``); download_total_too_large: the run's
    (``browser.max_download_total_mb``)."""


Handled = Literal["declined", "blocked", "approved", "covered"]
"""What became of a held request: declined / blocked (failed, it never reached the server), approved (the user
allowed it when asked), covered (allowed by the approval of the action that sent it)."""


class HeldRequest(_Model):
    """A state-changing request (a form post, a non-GET fetch/XHR, a beacon, a ping) the network layer held
    and judged (``agent/browser/holds.py``): the request as it was about to leave, and what became of it."""

    method: str
    url: str
    kind: str
    """The browser's resource type, lower case: document (a navigation: a form post), fetch, xhr, ping
    (``sendBeacon``, ``<a ping>``), other."""
    page_url: str = ""
    """The page that sent it."""
    handled: Handled
    reason: str = ""

    def describe(self) -> str:
        return f"{self.method} {self.url[:160]} ({self.kind}) from {self.page_url[:120] or '(no page)'}"


class Counts(_Model):
    buttons: int = 0
    inputs: int = 0
    links: int = 0
    selects: int = 0
    images: int = 0
    forms: int = 0


class PageSummary(_Model):
    """Layer 1: always shown."""

    url: str
    title: str = ""
    viewport: dict[str, int] = Field(default_factory=lambda: {"width": 0, "height": 0})
    scroll: dict[str, float] = Field(default_factory=lambda: {"x": 0.0, "y": 0.0})
    page_size: dict[str, float] = Field(default_factory=lambda: {"width": 0.0, "height": 0.0})
    counts: Counts = Field(default_factory=Counts)
    visible_text: str = ""
    focused: int | None = None
    """Index of the focused element, if it is interactive."""
    tabs: list[TabInfo] = Field(default_factory=list)
    dialog: DialogInfo | None = None
    above: int = 0
    """Interactive elements above the viewport (not listed by default)."""
    below: int = 0
    """Interactive elements below (or beside) the viewport."""
    warnings: list[str] = Field(default_factory=list)
    frames: list[str] = Field(default_factory=list)
    """The URLs of the frames drawn on the page (the top document's not included): the safety policy judges
    them (a payment provider's iframe makes its page sensitive)."""


class Observation(_Model):
    """One snapshot: the summary, the elements (with in_viewport flags) and an optional screenshot."""

    summary: PageSummary
    elements: list[Element] = Field(default_factory=list)
    flow: list[str | int] = Field(default_factory=list)
    """The viewport in reading order: text lines (str) and, in their places, the indexes of the listed
    in-view elements (int). Empty when the page gave none (the renderer then lists the elements alone)."""
    tails: dict[int, str] = Field(default_factory=dict)
    """By element index: the text after the element in its own list item or table row (a result's price, a
    row's cells), shown on the element's line rather than as lines of their own."""
    screenshot_path: str | None = None
    screenshot_b64: str | None = None
    timings: dict[str, float] = Field(default_factory=dict)

    def element(self, index: int) -> Element | None:
        for el in self.elements:
            if el.index == index:
                return el
        return None

    @property
    def url(self) -> str:
        return self.summary.url


class ErrorInfo(_Model):
    model_config = ConfigDict(extra="allow")
    error: str
    message: str


class Effects(_Model):
    """What an action changed, as observed by the executor."""

    url_before: str | None = None
    url_after: str | None = None
    navigated: bool = False
    new_tabs: list[str] = Field(default_factory=list)
    dialog: DialogInfo | None = None
    downloads: list[str] = Field(default_factory=list)
    download_notices: list[DownloadNotice] = Field(default_factory=list)
    """Downloads stopped at the size cap, or whose content held a secret (redacted, or the file withheld)."""
    held: list[HeldRequest] = Field(default_factory=list)
    """State-changing requests the network layer held while the action ran (``agent/browser/holds.py``)."""
    value: str | None = None
    """Value read back from the target field after typing or selecting."""
    focused: str | None = None
    added: int = 0
    removed: int = 0
    scroll: dict[str, float] | None = None
    new_in_view: int | None = None
    changed: bool | None = None
    """False when the page visibly did not react (no navigation, DOM change, focus, scroll or field change,
    no tab, dialog or download); None when not checked (read-only actions)."""


class Fingerprint(_Model):
    """An element as a replay looks for it again: role, accessible name, tag, stable attributes, label text,
    the nearest heading before it, its neighbours' text, its frame and its structural path."""

    tag: str
    role: str | None = None
    name: str = ""
    """The accessible name, as the element list shows it."""
    attrs: dict[str, str] = Field(default_factory=dict)
    """Stable attributes: id, name, data-testid (data-test, data-qa), href as written, type, placeholder, for."""
    label: str = ""
    """The text of its ``<label>``."""
    heading: str = ""
    """The nearest heading before it in the document."""
    neighbours: list[str] = Field(default_factory=list)
    """Text lines of its closest container that has other text (a product card's name and price)."""
    frame: str | None = None
    """Its frame path ("0", "0.1"); None in the top document."""
    path: str = ""
    """Structural path from ``<body>``: ``body:1>main:1>ul:1>li:3>a:1`` (tag:nth-of-type)."""


class ActionResult(_Model):
    """The outcome of one action: ok or a structured error, the method used, and its effects."""

    action: str
    ok: bool
    method: str | None = None
    """How it was done: mouse, locator, js, keyboard, fill ..."""
    message: str = ""
    """One human/model-readable line describing what happened."""
    error: ErrorInfo | None = None
    effects: Effects = Field(default_factory=Effects)
    data: dict[str, Any] = Field(default_factory=dict)
    """Action-specific payload: getElements text, JS value, screenshot path, details ..."""
    duration_ms: float = 0.0
    target: Fingerprint | None = None
    """The element the action was aimed at, as a replay finds it again (``BrowserEnv.act``, agent/browser/
    fingerprint.py; also for an action the gate refused); a drag's start element; None for an action without
    an element target."""
    drop: Fingerprint | None = None
    """A drag's end element (dragDrop ``to``), as a replay finds it again; None for other actions."""

    @property
    def page_changed(self) -> bool:
        e = self.effects
        return e.navigated or bool(e.new_tabs) or e.added > 0 or e.removed > 0 or e.dialog is not None


def role_word(el: Element) -> str:
    """The ARIA role if any, else a kind word (button, link, input, textarea, select, checkbox, radio, image)."""
    if el.role:
        return el.role
    tag = el.tag
    if tag in ("a", "area"):
        return "link"
    if tag in ("button", "summary"):
        return "button"
    if tag == "input" or (tag == "label" and el.type):  # a label standing in for a hidden input
        t = el.type or "text"
        if t in ("checkbox", "radio"):
            return t
        return "button" if t in ("button", "submit", "reset", "image") else "input"
    if tag in ("select", "textarea"):
        return tag
    if tag == "img":
        return "image"
    if el.editable:
        return "textbox"
    return tag
