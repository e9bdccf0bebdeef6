"""Dice Companion: reads dice on a pub table and keeps score."""

__version__ = "0.1.0"
