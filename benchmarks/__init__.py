"""Benchmarks for t3tui: ratios measured side by side in one run (see BENCHMARKS.md)."""
