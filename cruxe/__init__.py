"""Cruxe: local code search and navigation for AI coding agents."""

__version__ = "0.1.0"
