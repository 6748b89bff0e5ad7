"""Per-action execution units. Each module holds a few small async functions ``(ExecContext, action) -> Outcome``;
``agent/browser/executor.py`` dispatches to them and adds settle + effects."""
