"""Page chrome shared by the two WebArena-style apps (mail, events): the header, a pager, multipart forms.

Both apps are server-rendered like the shop, so every variant of ``variants.py`` applies to them the same way:
ids and classes renamed and the marked lists reordered (1), labels said otherwise and long lists in pages (2),
the cookie banner (3)."""

from __future__ import annotations

from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from urllib.parse import urlencode

from kite_browser.evals.sites.variants import Variant
from kite_browser.evals.sites.web import Request, esc

APP_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#222;background:#f7f7f9}
header{background:#264653;color:#fff;padding:10px 24px;display:flex;gap:18px;align-items:center}
header a{color:#fff;text-decoration:none} header .brand{font-weight:bold;font-size:1.2em;margin-right:auto}
main{max-width:980px;margin:20px auto;padding:0 24px}
.notice{background:#e6f4ea;border:1px solid #8c8;padding:8px 12px;border-radius:4px}
.errors{background:#fdecea;border:1px solid #e99;padding:8px 12px;border-radius:4px;color:#900}
table{border-collapse:collapse;width:100%} td,th{padding:6px 10px;border-bottom:1px solid #ddd;text-align:left}
tr.unread td{font-weight:bold} table a,.toolbar a{white-space:nowrap} form.stack label{display:block;margin:10px 0 4px}
form.stack input[type=text],form.stack input[type=email],form.stack textarea{width:420px;padding:6px}
.toolbar{display:flex;gap:10px;flex-wrap:wrap;align-items:center;margin:12px 0}
.sidebar{float:left;width:170px} .sidebar ul{list-style:none;padding:0} .content{margin-left:190px}
.events{list-style:none;padding:0} .event{background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px;margin:8px 0}
button{padding:6px 14px;cursor:pointer} button.primary{background:#2a9d8f;color:#fff;border:0;border-radius:4px}
"""

PAGE_SIZE = 8
"""Rows per page of a list from variant 2 on (the apps' lists, like the shop's catalogue, come in pages)."""


def app_page(brand: str, home: str, links: list[str], title: str, body: str, v: Variant) -> str:
    """A whole page: the header (``brand`` linking ``home``, then ``links``, reordered from variant 1) and ``body``."""
    nav = "\n".join(v.order(links, f"{home}header"))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(title)} · {esc(brand)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>{APP_CSS}</style></head>
<body><header><a class="brand" href="{home}">{esc(brand)}</a>
{nav}</header>
<main>{body}</main></body></html>"""


def paged(req: Request, rows: list[str], keep: dict[str, str]) -> tuple[list[str], str]:
    """The rows of the page asked for (``?page=N``) and the links to the others: all rows on one page before
    variant 2, then ``PAGE_SIZE`` a page behind "Next page" / "Previous page"."""
    if not req.variant.paged or len(rows) <= PAGE_SIZE:
        return rows, ""
    last = (len(rows) - 1) // PAGE_SIZE + 1
    try:
        n = min(max(1, int(req.arg("page", "1"))), last)
    except ValueError:
        n = 1
    keep = {k: v for k, v in keep.items() if v}
    links = []
    if n > 1:
        links.append(f'<a id="prev-page" href="?{urlencode({**keep, "page": n - 1})}">Previous page</a>')
    links.append(f"<span>Page {n} of {last}</span>")
    if n < last:
        links.append(f'<a id="next-page" href="?{urlencode({**keep, "page": n + 1})}">Next page</a>')
    return rows[
        (n - 1) * PAGE_SIZE : n * PAGE_SIZE
    ], f'<nav id="pages" aria-label="Pages">{" ".join(links)}</nav>'


@dataclass
class Upload:
    """A file sent with a multipart form."""

    field: str
    name: str
    data: bytes


def multipart(req: Request) -> tuple[dict[str, str], list[Upload]]:
    """The text fields and the files of a ``multipart/form-data`` body (an urlencoded one: its fields, no files)."""
    ctype = req.headers.get("content-type", "")
    if not ctype.startswith("multipart/form-data"):
        return {k: v[0].strip() for k, v in req.form.items() if v}, []
    head = f"Content-Type: {ctype}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=policy.HTTP).parsebytes(head + req.body)
    fields: dict[str, str] = {}
    files: list[Upload] = []
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        filename = part.get_filename()
        if filename is not None:
            if filename and data:
                files.append(Upload(name, filename, data))
        else:
            fields[name] = data.decode("utf-8", "replace").strip()
    return fields, files
