"""Synthetic camera material for tests, evaluation and training; the runtime never imports it."""
