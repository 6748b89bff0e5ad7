"""Accounts (/account/ and /zh/account/): login, registration, settings, delete with a final confirmation.

Login sets a persistent ``kite_session`` cookie (Max-Age 30 days): a persistent browser profile stays logged in."""

from __future__ import annotations

import re
import secrets
import time

from kite_browser.evals.sites.layout import prefix, t
from kite_browser.evals.sites.shop import current_user, render
from kite_browser.evals.sites.state import new_account
from kite_browser.evals.sites.web import Request, Response, esc, redirect, set_cookie

SESSION_MAX_AGE = 30 * 24 * 3600


def _user(req: Request) -> str | None:
    with req.store.edit(req.sid) as state:
        return current_user(state, req)


def _login_session(req: Request, email: str) -> str:
    token = secrets.token_hex(16)
    with req.store.edit(req.sid) as state:
        state["sessions"][token] = email
        state["user"] = email
    return set_cookie("kite_session", token, SESSION_MAX_AGE)


def _need_login(lang: str) -> Response:
    return redirect(f"{prefix(lang)}/account/login")


def home(req: Request, lang: str) -> Response:
    email = _user(req)
    if email is None:
        return _need_login(lang)
    p = prefix(lang)
    with req.store.edit(req.sid) as state:
        acc = dict(state["accounts"][email])
        orders = [o["order_number"] for o in state["orders"]]
    notice = f'<p class="notice" id="welcome-message">{t(lang, "registered")}</p>' if req.arg("new") else ""
    links = [
        f'<li><a id="settings-link" href="{p}/account/settings">{t(lang, "settings")}</a></li>',
        f'<li><a id="delete-link" href="{p}/account/delete">{t(lang, "delete_account")}</a></li>',
    ]
    sections = [
        f"<ul>{chr(10).join(req.variant.order(links, 'account-links'))}</ul>",
        f'<h2>{t(lang, "orders")}</h2><ul id="orders">{"".join(f"<li>{o}</li>" for o in orders)}</ul>',
        f'<form method="post" action="{p}/account/logout"><button id="logout" type="submit">{t(lang, "logout")}</button></form>',
    ]
    body = f"""{notice}<h1>{t(lang, "welcome")}, <span id="display-name-shown">{esc(acc["display_name"])}</span></h1>
<p id="signed-in-as">{t(lang, "signed_in_as")} <strong id="user-email">{esc(email)}</strong></p>
{chr(10).join(req.variant.order(sections, "account"))}"""
    return render(req, lang, t(lang, "account"), body)


def login_form(req: Request, lang: str, error: str = "", email: str = "") -> Response:
    if not error and _user(req):
        return redirect(f"{prefix(lang)}/account/")
    p = prefix(lang)
    err = f'<p class="errors" id="login-error" role="alert">{error}</p>' if error else ""
    body = f"""<h1>{t(lang, "login")}</h1>{err}<form id="login-form" class="stack" method="post" action="{p}/account/login">
<label for="email">{t(lang, "email")}</label><input id="email" name="email" type="email" autocomplete="username" value="{esc(email)}">
<label for="password">{t(lang, "password")}</label><input id="password" name="password" type="password" autocomplete="current-password">
<p><button id="login" class="primary" type="submit">{t(lang, "login")}</button></p></form>
<p>{t(lang, "no_account")} <a id="register-link" href="{p}/account/register">{t(lang, "register")}</a></p>"""
    return render(req, lang, t(lang, "login"), body, 401 if error else 200)


def login_submit(req: Request, lang: str) -> Response:
    email, password = req.field("email").lower(), req.field("password")
    with req.store.edit(req.sid) as state:
        acc = state["accounts"].get(email)
        ok = acc is not None and acc["password"] == password
        state["login_attempts"].append({"email": email, "success": ok, "time": time.time()})
    if not ok:
        return login_form(req, lang, t(lang, "invalid_login"), email)
    resp = redirect(f"{prefix(lang)}/account/")
    resp.cookies.append(_login_session(req, email))
    return resp


def logout(req: Request, lang: str) -> Response:
    with req.store.edit(req.sid) as state:
        state["sessions"].pop(req.cookies.get("kite_session", ""), None)
        state["user"] = None
    resp = redirect(f"{prefix(lang)}/account/login")
    resp.cookies.append(set_cookie("kite_session", "", 0))
    return resp


def register_form(
    req: Request, lang: str, errors: list[str] | None = None, values: dict[str, str] | None = None
) -> Response:
    v = values or {}
    p = prefix(lang)
    err = ""
    if errors:
        err = f'<div class="errors" id="errors" role="alert"><ul>{"".join(f"<li>{esc(e)}</li>" for e in errors)}</ul></div>'
    body = f"""<h1>{t(lang, "register")}</h1>{err}<form id="register-form" class="stack" method="post" action="{p}/account/register">
<label for="name">{t(lang, "full_name")}</label><input id="name" name="name" type="text" autocomplete="name" value="{esc(v.get("name", ""))}">
<label for="email">{t(lang, "email")}</label><input id="email" name="email" type="email" autocomplete="email" value="{esc(v.get("email", ""))}">
<label for="password">{t(lang, "password")}</label><input id="password" name="password" type="password" autocomplete="new-password">
<label for="confirm-password">{t(lang, "confirm_password")}</label><input id="confirm-password" name="confirm_password" type="password" autocomplete="new-password">
<label><input id="terms" name="terms" type="checkbox" value="yes"> {t(lang, "agree_terms")}</label>
<p><button id="register" class="primary" type="submit">{t(lang, "create_account")}</button></p></form>
<p>{t(lang, "have_account")} <a href="{p}/account/login">{t(lang, "login")}</a></p>"""
    return render(req, lang, t(lang, "register"), body, 422 if errors else 200)


def register_submit(req: Request, lang: str) -> Response:
    v = {k: req.field(k) for k in ("name", "email", "password", "confirm_password", "terms")}
    v["email"] = v["email"].lower()
    errors = []
    if not v["name"]:
        errors.append("Name is required.")
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", v["email"]):
        errors.append("Enter a valid email address.")
    if len(v["password"]) < 6:
        errors.append("Password must be at least 6 characters.")
    if v["password"] != v["confirm_password"]:
        errors.append("Passwords do not match.")
    if not v["terms"]:
        errors.append("You must agree to the terms of service.")
    with req.store.edit(req.sid) as state:
        if v["email"] in state["accounts"]:
            errors.append("An account with this email already exists.")
        if not errors:
            state["accounts"][v["email"]] = new_account(v["name"], v["email"], v["password"])
    if errors:
        return register_form(req, lang, errors, v)
    resp = redirect(f"{prefix(lang)}/account/?new=1")
    resp.cookies.append(_login_session(req, v["email"]))
    return resp


def settings_page(req: Request, lang: str) -> Response:
    email = _user(req)
    if email is None:
        return _need_login(lang)
    saved = False
    if req.method == "POST":
        with req.store.edit(req.sid) as state:
            acc = state["accounts"][email]
            acc["display_name"] = req.field("display_name") or acc["display_name"]
            acc["newsletter"] = bool(req.field("newsletter"))
            acc["language"] = req.field("language", acc["language"]) or acc["language"]
        saved = True
    with req.store.edit(req.sid) as state:
        acc = dict(state["accounts"][email])
    p = prefix(lang)
    note = f'<p class="notice" id="saved-message" role="status">{t(lang, "saved")}</p>' if saved else ""
    langs = "".join(
        f'<option value="{k}"{" selected" if acc["language"] == k else ""}>{label}</option>'
        for k, label in (("en", "English"), ("zh", "中文"))
    )
    body = f"""<h1>{t(lang, "settings")}</h1>{note}<form id="settings-form" class="stack" method="post" action="{p}/account/settings">
<label for="display-name">{t(lang, "display_name")}</label><input id="display-name" name="display_name" type="text" value="{esc(acc["display_name"])}">
<label><input id="newsletter" name="newsletter" type="checkbox" value="yes"{" checked" if acc["newsletter"] else ""}> {t(lang, "newsletter")}</label>
<label for="language">{t(lang, "language")}</label><select id="language" name="language">{langs}</select>
<p><button id="save" class="primary" type="submit">{t(lang, "save")}</button></p></form>
<p><a href="{p}/account/">{t(lang, "account")}</a></p>"""
    return render(req, lang, t(lang, "settings"), body)


def delete_page(req: Request, lang: str) -> Response:
    if _user(req) is None:
        return _need_login(lang)
    p = prefix(lang)
    body = f"""<h1>{t(lang, "delete_account")}</h1><p>{t(lang, "delete_intro")}</p>
<a id="delete-start" class="primary" href="{p}/account/delete/confirm">{t(lang, "delete_start")}</a>
<a id="cancel" href="{p}/account/">{t(lang, "cancel")}</a>"""
    return render(req, lang, t(lang, "delete_account"), body)


def delete_confirm(req: Request, lang: str) -> Response:
    email = _user(req)
    if email is None:
        return _need_login(lang)
    p = prefix(lang)
    error = ""
    if req.method == "POST":
        if req.field("confirm_email").lower() == email:
            with req.store.edit(req.sid) as state:
                state["accounts"].pop(email, None)
                state["deleted_accounts"].append({"email": email, "time": time.time()})
                state["sessions"] = {k: v for k, v in state["sessions"].items() if v != email}
                state["user"] = None
            resp = redirect(f"{p}/account/deleted")
            resp.cookies.append(set_cookie("kite_session", "", 0))
            return resp
        error = '<p class="errors" id="confirm-error" role="alert">The email address does not match.</p>'
    body = f"""<h1>{t(lang, "delete_account")}</h1><p class="warning" id="delete-warning">{t(lang, "delete_warning")}</p>{error}
<form id="delete-form" class="stack" method="post" action="{p}/account/delete/confirm">
<label for="confirm-email">{t(lang, "delete_confirm_label")}: <strong>{esc(email)}</strong></label>
<input id="confirm-email" name="confirm_email" type="email" autocomplete="off">
<p><button id="delete-confirm" class="primary" type="submit">{t(lang, "delete_permanently")}</button>
<a id="cancel" href="{p}/account/">{t(lang, "cancel")}</a></p></form>"""
    return render(req, lang, t(lang, "delete_account"), body)


def deleted_page(req: Request, lang: str) -> Response:
    body = f'<h1 id="deleted-message">{t(lang, "deleted")}</h1><a href="{prefix(lang)}/shop/">{t(lang, "shop")}</a>'
    return render(req, lang, t(lang, "deleted"), body)
