"""Kite Mail (/mail/): a webmail in the WebArena style — folders, search, read, reply, forward, attach, star,
mark unread, move into a folder, new folders. Server-rendered like the shop; the state is the visitor's
``mail`` (``GET /api/state``): messages by id, what was sent, the folders, the searches."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from kite_browser.evals.sites.chrome import app_page, multipart, paged
from kite_browser.evals.sites.mail_data import SYSTEM_FOLDERS, USER, USER_NAME
from kite_browser.evals.sites.web import Request, Response, esc, html_response, redirect

HOME = "/mail/"
NOTICES = {
    "sent": "Message sent.",
    "unread": "Marked as unread.",
    "moved": "Message moved.",
    "deleted": "Message moved to Trash.",
    "folder": "Folder created.",
    "starred": "Star added.",
    "unstarred": "Star removed.",
}
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def _render(req: Request, title: str, body: str, status: int = 200) -> Response:
    v = req.variant
    links = [
        f'<a id="compose-link" href="/mail/compose">{v.word("en", "compose", "Compose")}</a>',
        '<a id="inbox-link" href="/mail/?folder=Inbox">Inbox</a>',
        f'<span id="user-address">{esc(USER_NAME)} &lt;{USER}&gt;</span>',
    ]
    return html_response(app_page("Kite Mail", HOME, links, title, body, v), status)


def _folder_name(mail: dict[str, Any], raw: str) -> str | None:
    return next((f for f in mail["folders"] if f.casefold() == raw.strip().casefold()), None)


def _sidebar(req: Request, mail: dict[str, Any], current: str) -> str:
    items = []
    for f in mail["folders"]:
        unread = sum(1 for m in mail["messages"].values() if m["folder"] == f and not m["read"])
        count = f' <span class="count">({unread} unread)</span>' if unread else ""
        here = ' aria-current="page"' if f == current else ""
        items.append(
            f'<li><a class="folder-link" href="/mail/?folder={quote(f)}"{here}>{esc(f)}</a>{count}</li>'
        )
    new_folder = """<form id="new-folder-form" method="post" action="/mail/folders">
<label for="new-folder">New folder name</label> <input id="new-folder" name="name" type="text">
<button id="create-folder" type="submit">Create folder</button></form>"""
    return f'<nav class="sidebar" aria-label="Folders"><ul id="folders">{"".join(req.variant.order(items, "mail-folders"))}</ul>{new_folder}</nav>'


def _row(m: dict[str, Any], show_folder: bool) -> str:
    star = '<span class="star" title="Starred">★ Starred</span>' if m["starred"] else ""
    status = "Unread" if not m["read"] else ""
    folder = f'<td class="folder">{esc(m["folder"])}</td>' if show_folder else ""
    clip = " 📎" if m["attachments"] else ""
    who = m["to"] if m["folder"] == "Sent" else m["from_name"]
    return (
        f'<tr class="message{" unread" if not m["read"] else ""}" data-id="{m["id"]}"><td class="flag">{star}</td>'
        f'<td class="from">{esc(who)}</td><td><a class="subject" href="/mail/message/{m["id"]}">{esc(m["subject"])}</a>{clip}</td>'
        f'{folder}<td class="date">{esc(m["date"])}</td><td class="status">{status}</td></tr>'
    )


def _matches(m: dict[str, Any], q: str) -> bool:
    hay = " ".join(
        [m["subject"], m["from_name"], m["from"], m["to"], m["body"], *m["attachments"]]
    ).casefold()
    return all(word in hay for word in q.casefold().split())


def mailbox(req: Request) -> Response:
    """The message list of a folder (``?folder=``), or the search results over every folder but Trash (``?q=``)."""
    q = req.arg("q").strip()
    with req.store.edit(req.sid) as state:
        mail = state["mail"]
        folder = _folder_name(mail, req.arg("folder", "Inbox")) or "Inbox"
        if q:
            mail["searches"].append(q)
            found = [m for m in mail["messages"].values() if m["folder"] != "Trash" and _matches(m, q)]
        else:
            found = [m for m in mail["messages"].values() if m["folder"] == folder]
        found.sort(key=lambda m: m["date"], reverse=True)
        rows = [_row(m, bool(q)) for m in found]
        sidebar = _sidebar(req, mail, "" if q else folder)
    shown, pages = paged(req, rows, {"q": q, "folder": "" if q else folder})
    heading = f'Search results for "{esc(q)}"' if q else esc(folder)
    notice = NOTICES.get(req.arg("notice"), "")
    notice_html = f'<p class="notice" id="notice" role="status">{notice}</p>' if notice else ""
    table = (
        f'<table id="messages"><tbody>{"".join(shown)}</tbody></table>'
        if found
        else '<p id="no-messages">No messages.</p>'
    )
    body = f"""{sidebar}<div class="content">{notice_html}
<form id="search-form" role="search" method="get" action="/mail/">
<input id="search" name="q" type="search" value="{esc(q)}" placeholder="Search mail" aria-label="Search mail">
<button id="search-button" type="submit">Search</button></form>
<h1 id="list-title">{heading}</h1><p id="message-count">{len(found)} messages</p>{table}{pages}</div>"""
    return _render(req, heading, body)


def _toolbar(req: Request, m: dict[str, Any], folders: list[str]) -> str:
    v = req.variant
    star = (
        f'<button name="action" value="unstar" type="submit" id="unstar">{v.word("en", "unstar", "Remove star")}</button>'
        if m["starred"]
        else f'<button name="action" value="star" type="submit" id="star">{v.word("en", "star", "Add star")}</button>'
    )
    targets = [f for f in folders if f not in SYSTEM_FOLDERS - {"Inbox"} and f != m["folder"]]
    move_opts = "".join(f'<option value="{esc(f)}">{esc(f)}</option>' for f in v.order(targets, "mail-move"))
    tools = [
        f'<a id="reply" href="/mail/compose?reply={m["id"]}">{v.word("en", "reply", "Reply")}</a>',
        f'<a id="forward" href="/mail/compose?forward={m["id"]}">Forward</a>',
        '<button name="action" value="unread" type="submit" id="mark-unread">Mark as unread</button>',
        star,
        f'<span><label for="move-to">Move to</label> <select id="move-to" name="folder"><option value="">Choose a folder</option>{move_opts}</select> '
        '<button name="action" value="move" type="submit" id="move">Move</button></span>',
        '<button name="action" value="delete" type="submit" id="delete">Delete</button>',
    ]
    return (
        f'<form id="message-actions" class="toolbar" method="post" action="/mail/message/{m["id"]}">'
        f"{''.join(v.order(tools, 'mail-tools'))}</form>"
    )


def message_page(req: Request, mid: str) -> Response:
    """One message; opening it marks it read."""
    with req.store.edit(req.sid) as state:
        mail = state["mail"]
        m = mail["messages"].get(mid)
        if m is None:
            return _render(req, "Not found", "<h1>Message not found</h1>", 404)
        m["read"] = True
        m = dict(m)
        toolbar = _toolbar(req, m, list(mail["folders"]))
        sidebar = _sidebar(req, mail, m["folder"])
    notice = NOTICES.get(req.arg("notice"), "")
    notice_html = f'<p class="notice" id="notice" role="status">{notice}</p>' if notice else ""
    files = "".join(f'<li class="attachment">{esc(a)}</li>' for a in m["attachments"])
    attachments = f'<h2>Attachments</h2><ul id="attachments">{files}</ul>' if files else ""
    sender = f"{esc(m['from_name'])} &lt;{esc(m['from'])}&gt;"
    body = f"""{sidebar}<div class="content">{notice_html}<article id="message" data-id="{m["id"]}">
<h1 id="subject">{esc(m["subject"])}</h1>
<p>From: <span id="from">{sender}</span></p><p>To: <span id="to">{esc(m["to"])}</span></p>
<p>Date: <span id="date">{esc(m["date"])}</span> · Folder: <span id="folder">{esc(m["folder"])}</span>{" · ★ Starred" if m["starred"] else ""}</p>
{toolbar}<div id="body"><p>{esc(m["body"])}</p></div>{attachments}</article></div>"""
    return _render(req, m["subject"], body)


def message_action(req: Request, mid: str) -> Response:
    """A toolbar button: mark unread, star / unstar, move into a folder, delete (into Trash)."""
    action, target = req.field("action"), req.field("folder")
    with req.store.edit(req.sid) as state:
        mail = state["mail"]
        m = mail["messages"].get(mid)
        if m is None:
            return _render(req, "Not found", "<h1>Message not found</h1>", 404)
        back = f"/mail/?folder={quote(m['folder'])}"
        if action == "unread":
            m["read"] = False
            return redirect(back + "&notice=unread")
        if action in ("star", "unstar"):
            m["starred"] = action == "star"
            return redirect(f"/mail/message/{mid}?notice={action}red")
        if action == "delete":
            m["folder"] = "Trash"
            return redirect(back + "&notice=deleted")
        folder = _folder_name(mail, target)
        if action == "move" and folder and folder not in ("Sent", "Trash"):
            m["folder"] = folder
            return redirect(back + "&notice=moved")
    return redirect(f"/mail/message/{mid}")


def compose_page(req: Request) -> Response:
    return _compose(req, {}, [])


def _compose(req: Request, values: dict[str, str], errors: list[str]) -> Response:
    reply, forward = (
        req.arg("reply") or values.get("reply_to", ""),
        req.arg("forward") or values.get("forward_of", ""),
    )
    with req.store.edit(req.sid) as state:
        messages = state["mail"]["messages"]
        original = dict(messages.get(reply) or messages.get(forward) or {})
    defaults = {"to": "", "subject": ""}
    quoted = ""
    if original and reply:
        defaults = {"to": original["from"], "subject": "Re: " + original["subject"]}
    elif original and forward:
        defaults = {"to": "", "subject": "Fwd: " + original["subject"]}
    if original:
        kept = "".join(f"<li>{esc(a)}</li>" for a in original["attachments"]) if forward else ""
        kept_html = f'<p>Forwarding the attachments:</p><ul id="forwarded">{kept}</ul>' if kept else ""
        quoted = (
            f'<blockquote id="original"><p>On {esc(original["date"])}, {esc(original["from_name"])} wrote:</p>'
            f"<p>{esc(original['body'])}</p></blockquote>{kept_html}"
        )
    vals = {**defaults, **{k: v for k, v in values.items() if v}}
    err = ""
    if errors:
        err = f'<div class="errors" id="errors" role="alert"><ul>{"".join(f"<li>{esc(e)}</li>" for e in errors)}</ul></div>'
    fields = [
        f'<label for="to">To</label><input id="to" name="to" type="text" value="{esc(vals.get("to", ""))}" autocomplete="off">',
        f'<label for="subject">Subject</label><input id="subject" name="subject" type="text" value="{esc(vals.get("subject", ""))}">',
    ]
    title = "Reply" if reply and original else "Forward" if forward and original else "New message"
    body = f"""<h1 id="compose-title">{title}</h1>{err}
<form id="compose-form" class="stack" method="post" action="/mail/send" enctype="multipart/form-data" novalidate>
<input type="hidden" name="reply_to" value="{esc(reply if original else "")}"><input type="hidden" name="forward_of" value="{esc(forward if original else "")}">
{"".join(req.variant.order(fields, "mail-compose"))}
<label for="body">Message</label><textarea id="body" name="body" rows="8" cols="60">{esc(vals.get("body", ""))}</textarea>
<label for="attachment">Attach a file</label><input id="attachment" name="attachment" type="file" multiple>
<p><button id="send" class="primary" type="submit">Send</button> <a id="discard" href="/mail/">Discard</a></p></form>{quoted}"""
    return _render(req, title, body, 422 if errors else 200)


def send(req: Request) -> Response:
    """Send the composed message: it lands in Sent (with its attachments and what it answers or forwards)."""
    fields, files = multipart(req)
    to = [a.lower() for a in ADDRESS.findall(fields.get("to", ""))]
    if not to:
        return _compose(req, fields, ["Enter at least one recipient address in To."])
    with req.store.edit(req.sid) as state:
        mail = state["mail"]
        reply, forward = (
            mail["messages"].get(fields.get("reply_to", "")),
            mail["messages"].get(fields.get("forward_of", "")),
        )
        names = [f.name for f in files] + (list(forward["attachments"]) if forward else [])
        mail["next_id"] += 1
        sid = f"s{mail['next_id']}"
        record = {
            "id": sid,
            "to": ", ".join(to),
            "subject": fields.get("subject", ""),
            "body": fields.get("body", ""),
            "attachments": names,
            "in_reply_to": reply["id"] if reply else None,
            "forwarded_from": forward["id"] if forward else None,
        }
        mail["sent"].append(record)
        if reply:
            reply["replied"] = True
        mail["messages"][sid] = {
            "id": sid,
            "folder": "Sent",
            "from_name": USER_NAME,
            "from": USER,
            "to": record["to"],
            "subject": record["subject"],
            "date": "2026-03-10 09:00",
            "read": True,
            "starred": False,
            "attachments": names,
            "body": record["body"],
            "replied": False,
        }
    return redirect("/mail/?folder=Sent&notice=sent")


def new_folder(req: Request) -> Response:
    name = " ".join(req.field("name").split())
    with req.store.edit(req.sid) as state:
        mail = state["mail"]
        if not name or len(name) > 30 or _folder_name(mail, name):
            return redirect("/mail/?folder=Inbox")
        mail["folders"].append(name)
    return redirect(f"/mail/?folder={quote(name)}&notice=folder")


def mail_view(mail: dict[str, Any]) -> dict[str, Any]:
    """The ``mail`` part of ``GET /api/state``: the mailbox, plus ``unread`` (the Inbox's unread count)."""
    view = {k: v for k, v in mail.items() if k != "next_id"}
    view["unread"] = sum(1 for m in mail["messages"].values() if m["folder"] == "Inbox" and not m["read"])
    return view
