"""The shop's help pages: a long returns and shipping policy (a page to *read*: the answers sit far below
the first screen, in paragraphs, a list and a table)."""

from __future__ import annotations

from kite_browser.evals.sites.shop import render
from kite_browser.evals.sites.web import Request, Response

_FILLER = (
    "We want every order to arrive safely and every customer to be happy with what they bought. This section "
    "explains how we handle it, step by step, and what you can expect from us at each stage."
)

_SECTIONS = [
    (
        "About this policy",
        f"<p>{_FILLER}</p><p>This policy applies to orders placed on the Kite Shop website. It was last updated on "
        "1 March 2026. Where local consumer law gives you more rights, those rights apply.</p>",
    ),
    (
        "Shipping",
        f"<p>{_FILLER}</p><ul><li>Standard shipping takes 3 to 5 working days.</li><li>Express shipping takes 1 to "
        "2 working days and costs $9.90.</li><li>Orders over $50 ship free with standard shipping.</li></ul>"
        "<p>We ship to every country in the European Union, the United Kingdom, Switzerland and Norway.</p>",
    ),
    (
        "Order changes",
        f"<p>{_FILLER}</p><p>You can change or cancel an order until it has been packed, "
        "usually within two hours of ordering. Write to us from the contact form with your order number.</p>",
    ),
    (
        "Returns",
        f"<p>{_FILLER}</p><p>You have <strong>30 days</strong> from the day of delivery to return an item for a full "
        "refund. Items must be unused and in their original packaging. Sale items can be returned within the "
        'same period but are refunded as store credit.</p><table id="return-windows"><thead><tr><th>Category</th>'
        "<th>Return window</th><th>Refund</th></tr></thead><tbody><tr><td>Mugs and kitchen</td><td>30 days</td>"
        "<td>Full refund</td></tr><tr><td>Bags</td><td>30 days</td><td>Full refund</td></tr><tr><td>Lamps"
        "</td><td>14 days</td><td>Full refund, minus return shipping</td></tr><tr><td>Sale items</td><td>30 days"
        "</td><td>Store credit</td></tr></tbody></table><ol><li>Open your order and choose Return an item.</li>"
        "<li>Print the prepaid label.</li><li>Drop the parcel at any post office.</li></ol>",
    ),
    (
        "Refunds",
        f"<p>{_FILLER}</p><p>Refunds are paid to the original payment method within 5 working days of "
        "the return reaching our warehouse.</p>",
    ),
    (
        "Warranty",
        f"<p>{_FILLER}</p><p>Every product carries a two-year warranty against manufacturing defects. "
        "Lamps carry a three-year warranty on their electrical parts.</p>",
    ),
    (
        "Contact",
        '<p>Questions about this policy? <a id="contact-link" href="/shop/">Visit the shop</a> or write to '
        "help@kite-shop.example.</p>",
    ),
]


def returns_page(req: Request) -> Response:
    body = "<h1>Shipping and returns policy</h1>" + "".join(
        f"<section><h2>{title}</h2>{html}</section>" for title, html in _SECTIONS
    )
    return render(req, "en", "Shipping and returns policy", body)
