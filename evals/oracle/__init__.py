"""The ``kite/oracle`` model: a deterministic solver for the eval suites, on the structured observation."""

from kite_browser.evals.oracle.model import ORACLE, OracleModel

__all__ = ["ORACLE", "OracleModel"]
