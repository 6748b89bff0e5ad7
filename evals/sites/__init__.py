"""The bundled local web apps (shop, accounts, forms, dynamic, frames, adversarial /test/ pages)."""

from kite_browser.evals.sites.server import SitesServer

__all__ = ["SitesServer"]
