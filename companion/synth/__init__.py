"""Synthetic data for tests and figures; the runtime never imports this package."""
