"""The one error of the measure layer (no imports, so every kernel can raise it)."""

from __future__ import annotations


class MeasureError(ValueError):
    """An unknown measure name or a bad parameter value."""
