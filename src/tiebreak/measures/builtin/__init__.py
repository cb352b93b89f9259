"""The built-in measure families. Importing this package registers them; the registry imports
nothing back (:mod:`tiebreak.measures` imports it once, after the registry). :mod:`.adhoc`
imports :mod:`.core` first, so the core families keep their place in the measure table."""

from __future__ import annotations

from . import adhoc, core, precall, sampled  # noqa: F401
