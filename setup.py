"""Build of the optional C extension tiebreak._native._ext; the metadata is in pyproject.toml.

The extension is optional: without a working C compiler the build prints a warning and installs
the package without it, and tiebreak falls back to numba (the ``fast`` extra) or numpy."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "tiebreak._native._ext",
            sources=["src/tiebreak/_native/_ext.c"],
            # included by _ext.c (_ev_specs.h by _ext_eval.c: generated from the table of
            # tiebreak/measures/twins.py by python -m tiebreak.measures.twins --header)
            depends=["src/tiebreak/_native/_pow5.h", "src/tiebreak/_native/_ext_eval.c",
                     "src/tiebreak/_native/_ev_specs.h"],
            optional=True,
        )
    ]
)
