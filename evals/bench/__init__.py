"""Performance benchmarks: each module runs standalone (python -m kite_browser.evals.bench.<name>)."""
