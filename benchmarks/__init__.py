"""Benchmark scripts (run each as a script; see docs/performance.md)."""
