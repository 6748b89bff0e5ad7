"""The planner loop's room: ``Agent`` and the step (``loop.py``), the run's environment, memory, prompts,
the record, the stops and guards, the outcome (ARCHITECTURE.md, Rooms)."""
