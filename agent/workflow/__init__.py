"""Workflows: a successful run saved as a YAML file (``model.py``), made from a run record (``save.py``) and
replayed without a model through the same environment and gate as the agent (``match.py``, ``replay.py``)."""
