"""Performance benchmarks: each module runs standalone (python -m evals.bench.<name>)."""
