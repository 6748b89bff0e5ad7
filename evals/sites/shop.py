"""The shop (/shop/ and /zh/shop/): catalogue with search and filters, product pages, cart, checkout, order."""

from __future__ import annotations

import re
import time
from datetime import date
from typing import Any
from urllib.parse import urlencode

from kite_browser.evals.sites.catalog import BY_ID, CATEGORIES, COLOURS, SWATCH, Product, search
from kite_browser.evals.sites.layout import page, prefix, t
from kite_browser.evals.sites.variants import MOVED, PAGE_SIZE, Variant
from kite_browser.evals.sites.web import Request, Response, esc, html_response, redirect


def current_user(state: dict[str, Any], req: Request) -> str | None:
    token = req.cookies.get("kite_session", "")
    email = state["sessions"].get(token)
    return email if email in state["accounts"] else None


def render(req: Request, lang: str, title: str, body: str, status: int = 200) -> Response:
    with req.store.edit(req.sid) as state:
        count = sum(i["qty"] for i in state["cart"])
        user = current_user(state, req)
    return html_response(page(lang, title, body, cart_count=count, user=user, v=req.variant), status)


def money(value: float) -> str:
    return f"${value:,.2f}"


def options(items: dict[str, str], selected: str, lang: str, all_label: str, v: Variant, what: str) -> str:
    out = []
    for key, zh in items.items():
        label = zh if lang == "zh" else key.replace("-", " ").title()
        sel = " selected" if key == selected else ""
        out.append(f'<option value="{key}"{sel}>{esc(label)}</option>')
    return f'<option value="">{esc(all_label)}</option>' + "".join(v.order(out, what))


def product_card(p: Product, lang: str) -> str:
    colour = COLOURS[p.colour] if lang == "zh" else p.colour
    return (
        f'<li class="product" data-id="{p.id}" data-price="{p.price}" data-colour="{p.colour}">'
        f'<a class="product-link" href="{prefix(lang)}/shop/product/{p.id}"><h3>{esc(p.title(lang))}</h3></a>'
        f'<span class="swatch" style="background:{SWATCH[p.colour]}"></span> <span class="colour">{colour}</span>'
        f' · <span class="price">{money(p.price)}</span></li>'
    )


def catalogue(req: Request, lang: str) -> Response:
    q, cat, col, sort = req.arg("q"), req.arg("category"), req.arg("colour"), req.arg("sort")
    found = search(q, cat, col, sort)
    sorts = [
        ("", "sort_relevance"),
        ("price-asc", "sort_price_asc"),
        ("price-desc", "sort_price_desc"),
        ("name", "sort_name"),
    ]
    sort_opts = "".join(
        f'<option value="{v}"{" selected" if v == sort else ""}>{t(lang, k)}</option>' for v, k in sorts
    )
    v = req.variant
    shown, pages = _page_of(req, found)
    cards = "".join(product_card(p, lang) for p in shown)
    filters = [
        f'<select id="category" name="category" aria-label="Category">{options(CATEGORIES, cat, lang, t(lang, "all_categories"), v, "categories")}</select>',
        f'<select id="colour" name="colour" aria-label="Colour">{options(COLOURS, col, lang, t(lang, "all_colours"), v, "colours")}</select>',
        f'<label>{t(lang, "sort")} <select id="sort" name="sort">{sort_opts}</select></label>',
    ]
    body = f"""<h1>{t(lang, "shop")}</h1>
<form id="search-form" role="search" method="get" action="{prefix(lang)}/shop/">
<input id="search" name="q" type="search" value="{esc(q)}" placeholder="{t(lang, "search_placeholder")}" aria-label="{t(lang, "search")}">
{chr(10).join(v.order(filters, "filters"))}
<button id="search-button" type="submit">{t(lang, "search")}</button></form>
<p id="result-count">{t(lang, "results", n=len(found))}</p>
{f'<ul class="products" id="products">{cards}</ul>' if found else f'<p id="no-results">{t(lang, "no_results")}</p>'}{pages}"""
    return render(req, lang, t(lang, "shop"), body)


def _page_of(req: Request, found: list[Product]) -> tuple[list[Product], str]:
    """The products of the catalogue page asked for, and the links to the others (variant 2 on: paged)."""
    if not req.variant.paged or len(found) <= PAGE_SIZE:
        return found, ""
    moved = [p for p in found if p.id == MOVED]
    if moved and not req.arg("sort"):
        found = [p for p in found if p.id != MOVED]
        found.insert(max(PAGE_SIZE, len(found) - 1), moved[0])
    last = (len(found) - 1) // PAGE_SIZE + 1
    try:
        n = min(max(1, int(req.arg("page", "1"))), last)
    except ValueError:
        n = 1
    keep = {k: req.arg(k) for k in ("q", "category", "colour", "sort") if req.arg(k)}
    links = []
    if n > 1:
        links.append(f'<a id="prev-page" href="?{urlencode({**keep, "page": n - 1})}">Previous page</a>')
    links.append(f"<span>Page {n} of {last}</span>")
    if n < last:
        links.append(f'<a id="next-page" href="?{urlencode({**keep, "page": n + 1})}">Next page</a>')
    nav = f'<nav id="pages" aria-label="Pages">{" ".join(links)}</nav>'
    return found[(n - 1) * PAGE_SIZE : n * PAGE_SIZE], nav


def product_page(req: Request, lang: str, pid: str) -> Response:
    p = BY_ID.get(pid)
    if p is None:
        return render(req, lang, "Not found", "<h1>Product not found</h1>", 404)
    notice = ""
    if req.arg("added"):
        notice = (
            f'<p class="notice" id="added-message" role="status">{t(lang, "added", qty=esc(req.arg("added")), name=esc(p.title(lang)))}'
            f' <a href="{prefix(lang)}/shop/cart">{req.variant.word(lang, "view_cart", t(lang, "view_cart"))}</a></p>'
        )
    colour = COLOURS[p.colour] if lang == "zh" else p.colour
    body = f"""{notice}<article class="product-detail" data-id="{p.id}"><h1 id="product-name">{esc(p.title(lang))}</h1>
<p><span class="swatch" style="background:{SWATCH[p.colour]}"></span> <span id="product-colour">{colour}</span></p>
<p id="price" class="price">{money(p.price)}</p><p id="description">{esc(p.description)}</p><p>{t(lang, "in_stock")}</p>
<form id="add-form" method="post" action="{prefix(lang)}/shop/cart/add">
<input type="hidden" name="product_id" value="{p.id}">
<label for="qty">{t(lang, "quantity")}</label> <input id="qty" name="qty" type="number" min="1" max="99" value="1">
<button id="add-to-cart" class="primary" type="submit">{req.variant.word(lang, "add_to_cart", t(lang, "add_to_cart"))}</button></form></article>"""
    return render(req, lang, p.title(lang), body)


def parse_qty(raw: str) -> int:
    try:
        return max(0, min(99, int(raw)))
    except ValueError:
        return 1


def cart_add(req: Request, lang: str) -> Response:
    p = BY_ID.get(req.field("product_id"))
    if p is None:
        return render(req, lang, "Not found", "<h1>Product not found</h1>", 404)
    qty = max(1, parse_qty(req.field("qty", "1")))
    with req.store.edit(req.sid) as state:
        for item in state["cart"]:
            if item["product_id"] == p.id:
                item["qty"] = min(99, item["qty"] + qty)
                break
        else:
            state["cart"].append({"product_id": p.id, "name": p.name, "price": p.price, "qty": qty})
    return redirect(f"{prefix(lang)}/shop/product/{p.id}?added={qty}")


def cart_update(req: Request, lang: str) -> Response:
    pid, action = req.field("product_id"), req.field("action", "update")
    qty = parse_qty(req.field("qty", "1"))
    with req.store.edit(req.sid) as state:
        state["cart"] = [
            {**i, "qty": qty} if i["product_id"] == pid else i
            for i in state["cart"]
            if not (i["product_id"] == pid and (action == "remove" or qty == 0))
        ]
    return redirect(f"{prefix(lang)}/shop/cart")


def cart_page(req: Request, lang: str) -> Response:
    p = prefix(lang)
    with req.store.edit(req.sid) as state:
        items = [dict(i) for i in state["cart"]]
    if not items:
        body = f'<h1>{t(lang, "your_cart")}</h1><p id="cart-empty">{t(lang, "cart_empty")}</p><a href="{p}/shop/">{t(lang, "continue")}</a>'
        return render(req, lang, t(lang, "your_cart"), body)
    rows = []
    mark = req.variant.mark
    for i in items:
        name = BY_ID[i["product_id"]].title(lang)
        rows.append(
            f'<tr class="cart-item" data-id="{i["product_id"]}"><td class="name">{esc(name)}</td><td>{money(i["price"])}</td>'
            f'<td><form method="post" action="{p}/shop/cart/update"><input type="hidden" name="product_id" value="{i["product_id"]}">'
            f'<input class="qty" name="qty" type="number" min="0" max="99" value="{i["qty"]}" aria-label="{t(lang, "quantity")} {esc(name)}">'
            f'<button name="action" value="update" type="submit"{mark("cart-update:" + i["product_id"])}>{t(lang, "update")}</button>'
            f'<button name="action" value="remove" type="submit" class="remove"{mark("cart-remove:" + i["product_id"])}>{t(lang, "remove")}</button></form></td>'
            f'<td class="line-total">{money(i["price"] * i["qty"])}</td></tr>'
        )
    total = sum(i["price"] * i["qty"] for i in items)
    body = f"""<h1>{t(lang, "your_cart")}</h1><table id="cart"><tbody>{"".join(rows)}</tbody></table>
<p>{t(lang, "total")}: <strong id="cart-total">{money(total)}</strong></p>
<a id="checkout-button" class="primary" href="{p}/shop/checkout">{req.variant.word(lang, "checkout", t(lang, "checkout"))}</a>
<a href="{p}/shop/">{t(lang, "continue")}</a>"""
    return render(req, lang, t(lang, "your_cart"), body)


FIELDS = ("name", "address", "email", "card_name", "card_number", "card_expiry", "card_cvc")


def luhn_ok(number: str) -> bool:
    digits = [int(c) for c in number][::-1]
    total = sum(d if i % 2 == 0 else (d * 2 - 9 if d * 2 > 9 else d * 2) for i, d in enumerate(digits))
    return total % 10 == 0


def validate_checkout(v: dict[str, str]) -> list[str]:
    errors = []
    if not v["name"]:
        errors.append("Full name is required.")
    if not v["address"]:
        errors.append("Address is required.")
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", v["email"]):
        errors.append("Enter a valid email address.")
    number = re.sub(r"[\s-]", "", v["card_number"])
    if not (number.isdigit() and 13 <= len(number) <= 19 and luhn_ok(number)):
        errors.append("Card number is invalid.")
    m = re.fullmatch(r"(\d{2})\s*/\s*(\d{2}|\d{4})", v["card_expiry"])
    if not m or not 1 <= int(m.group(1)) <= 12:
        errors.append("Expiry must be MM/YY.")
    else:
        year = int(m.group(2)) % 100 + 2000
        today = date.today()
        if (year, int(m.group(1))) < (today.year, today.month):
            errors.append("Card has expired.")
    if not re.fullmatch(r"\d{3,4}", v["card_cvc"]):
        errors.append("CVC must be 3 or 4 digits.")
    return errors


def checkout_form(req: Request, lang: str, values: dict[str, str], errors: list[str]) -> Response:
    with req.store.edit(req.sid) as state:
        items = [dict(i) for i in state["cart"]]
    if not items:
        return redirect(f"{prefix(lang)}/shop/cart")
    total = sum(i["price"] * i["qty"] for i in items)
    err = ""
    if errors:
        err = f'<div class="errors" id="errors" role="alert"><p>{t(lang, "fix_errors")}</p><ul>{"".join(f"<li>{esc(e)}</li>" for e in errors)}</ul></div>'

    def inp(key: str, label: str, typ: str = "text", auto: str = "", extra: str = "") -> str:
        fid = key.replace("_", "-")
        return (
            f'<label for="{fid}">{t(lang, label)}</label><input id="{fid}" name="{key}" type="{typ}" '
            f'value="{esc(values.get(key, ""))}" autocomplete="{auto}"{extra}>'
        )

    fieldsets = [
        f"""<fieldset><legend>{t(lang, "shipping")}</legend>{inp("name", "full_name", auto="name")}{inp("address", "address", auto="street-address")}
{inp("email", "email", "email", "email")}</fieldset>""",
        f"""<fieldset><legend>{t(lang, "payment")}</legend>{inp("card_name", "card_name", auto="cc-name")}
{inp("card_number", "card_number", auto="cc-number", extra=' inputmode="numeric" placeholder="1234 5678 9012 3456"')}
{inp("card_expiry", "card_expiry", auto="cc-exp", extra=' placeholder="MM/YY"')}
{inp("card_cvc", "card_cvc", "password", "cc-csc", ' inputmode="numeric" maxlength="4"')}</fieldset>""",
    ]
    summary = "".join(f"<li>{i['qty']} × {esc(BY_ID[i['product_id']].title(lang))}</li>" for i in items)
    body = f"""<h1>{t(lang, "checkout_title")}</h1>{err}<ul id="order-summary">{summary}</ul>
<p>{t(lang, "total")}: <strong id="checkout-total">{money(total)}</strong></p>
<form id="checkout-form" class="stack" method="post" action="{prefix(lang)}/shop/checkout" novalidate>
{chr(10).join(req.variant.order(fieldsets, "checkout"))}
<p><button id="place-order" class="primary" type="submit">{t(lang, "place_order")}</button></p></form>"""
    return render(req, lang, t(lang, "checkout_title"), body, 422 if errors else 200)


def checkout_page(req: Request, lang: str) -> Response:
    return checkout_form(req, lang, {}, [])


def checkout_submit(req: Request, lang: str) -> Response:
    values = {k: req.field(k) for k in FIELDS}
    errors = validate_checkout(values)
    if errors:
        return checkout_form(req, lang, values, errors)
    number = req.store.next_order_number()
    with req.store.edit(req.sid) as state:
        if not state["cart"]:
            return redirect(f"{prefix(lang)}/shop/cart")
        items = state["cart"]
        state["orders"].append(
            {
                "order_number": number,
                "items": items,
                "total": round(sum(i["price"] * i["qty"] for i in items), 2),
                "name": values["name"],
                "address": values["address"],
                "email": values["email"],
                "card_last4": re.sub(r"\D", "", values["card_number"])[-4:],
                "lang": lang,
                "created": time.time(),
            }
        )
        state["cart"] = []
    return redirect(f"{prefix(lang)}/shop/order/{number}")


def order_page(req: Request, lang: str, number: str) -> Response:
    with req.store.edit(req.sid) as state:
        order = next((dict(o) for o in state["orders"] if o["order_number"] == number), None)
    if order is None:
        return render(req, lang, "Not found", "<h1>Order not found</h1>", 404)
    lines = "".join(
        f"<li>{i['qty']} × {esc(BY_ID[i['product_id']].title(lang))}</li>" for i in order["items"]
    )
    body = f"""<h1 id="order-confirmation">{t(lang, "order_placed")}</h1>
<p>{t(lang, "order_number")}: <strong id="order-number">{number}</strong></p><ul>{lines}</ul>
<p>{t(lang, "total")}: <strong id="order-total">{money(order["total"])}</strong></p><a href="{prefix(lang)}/shop/">{t(lang, "continue")}</a>"""
    return render(req, lang, t(lang, "order_placed"), body)
