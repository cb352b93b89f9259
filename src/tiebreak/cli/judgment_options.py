"""Options and input helpers shared by the judgment commands (``pool``, ``estimate``) and the
judgment studies (``study depth``, ``study estimate``)."""

from __future__ import annotations

import io
import os
import sys

import click

from .common import _fail

ORDER_HELP = ("Tie rule at the pool boundary: trec_eval (score desc, then docno desc), file "
              "(run-file line order, as NTCIR), include (trec_eval order, but a tied group that "
              "straddles depth d is pooled whole).")


CONTRIB_HELP = ("Runs that form the pool: a file of run names (one a line), a comma-separated "
                "list of names, or 'judged@D' = the runs whose top D documents the qrels judge "
                "on every topic (an inference when the official list is unknown). Default: all.")


def _split(values) -> list[str]:
    return [v.strip() for s in values for v in s.split(",") if v.strip()]


def _ints(text: str, what: str) -> list[int]:
    out = []
    for part in _split([text]):
        a, sep, b = part.partition("-")
        try:
            if sep:
                out.extend(range(int(a), int(b) + 1))
            else:
                out.append(int(part))
        except ValueError:
            raise click.BadParameter(f"{part!r} is not an integer or a range a-b",
                                     param_hint=what) from None
    if not out or min(out) < 1:
        raise click.BadParameter("depths must be positive integers", param_hint=what)
    return out


def _load(qrels_path, run_args, topics, allow_empty: bool = False,
          allow_empty_runs: bool = False):
    """Read qrels and runs; restrict to topics. Errors exit with status 2. ``allow_empty``: an
    empty qrels file (``/dev/null``) gives qrels without topics (a fresh pool).
    ``allow_empty_runs``: a run without result lines is read (else refused: the one rule,
    :func:`tiebreak.io.runs.refuse_empty`)."""
    from ..io import InputError, read_qrels, read_run, run_paths
    from ..io.runs import refuse_empty
    from ..judgments.pool import parse_topics, subset_topics

    try:
        q = read_qrels(qrels_path, allow_empty=allow_empty)
        if topics:
            q = subset_topics(q, parse_topics(topics, q.topics))
        skipped: list = []
        runs = [read_run(p) for p in run_paths(run_args, skipped)]
        for p, why in skipped:
            click.echo(f"tiebreak: note: skipped {p}: {why}", err=True)
        for r in runs:
            if not len(r) and not allow_empty_runs:
                refuse_empty(r)
    except (InputError, ValueError) as e:
        _fail(str(e))
    if not runs:
        _fail("no run files")
    if topics and allow_empty and not q.topics:
        _fail("--topics selects qrels topics; a fresh pool (empty QRELS) has none")
    seen: dict[str, int] = {}
    for r in runs:
        if r.name in seen:
            seen[r.name] += 1
            r.name = f"{r.name}#{seen[r.name]}"
        else:
            seen[r.name] = 1
    return q, runs


def _warn_uncovered(runs, q, what: str, topics: str | None = None) -> None:
    """A warning on stderr naming the run topics absent from the qrels (their lines are left
    out of ``what``), so that no run topic is dropped without a word; none when the user chose
    the topics (``--topics``), which leaves the others out on purpose."""
    import numpy as np

    if topics:
        return

    have = set(q.topics)
    lost: dict[str, int] = {}
    for r in runs:
        for t, n in zip(r.topics, np.bincount(r.topic, minlength=len(r.topics)).tolist()):
            if t not in have:
                lost[t] = lost.get(t, 0) + n
    if lost:
        from ..io import natural_key

        ts = sorted(lost, key=natural_key)
        shown = " ".join(ts[:10]) + (" ..." if len(ts) > 10 else "")
        click.echo(f"tiebreak: warning: {len(ts)} run topic(s) not in the qrels {q.name} left "
                   f"out of {what} ({sum(lost.values())} run lines): {shown}; give qrels that "
                   "cover them", err=True)


def _contributing(spec, L, qrels) -> list[str] | None:
    from ..judgments.pool import infer_contributing

    if not spec:
        return None
    if spec.startswith("judged@"):
        try:
            d = int(spec.split("@", 1)[1])
        except ValueError:
            _fail(f"--contributing {spec}: expected judged@DEPTH")
        return infer_contributing(L, qrels, d)
    if os.path.isfile(spec):
        with open(spec, encoding="utf-8") as fh:
            names = [ln.split()[0] for ln in fh if ln.strip() and not ln.startswith("#")]
    else:
        names = _split([spec])
    bad = [n for n in names if n not in L.names]
    if bad:
        _fail(f"--contributing: not among the runs: {', '.join(bad[:5])}")
    return names


def _groups(spec, names) -> dict[str, str] | None:
    """``--groups FILE`` (run<TAB>group lines) or ``prefix`` (name up to the first - _ .)."""
    import re

    if not spec:
        return None
    if spec == "prefix":
        return {n: re.split(r"[-_.]", n, maxsplit=1)[0] for n in names}
    out = {}
    try:
        with open(spec, encoding="utf-8") as fh:
            for i, ln in enumerate(fh, 1):
                if not ln.strip() or ln.startswith("#"):
                    continue
                f = ln.split()
                if len(f) != 2:
                    _fail(f"{spec}:{i}: expected 'run group', got {ln.strip()!r}")
                out[f[0]] = f[1]
    except OSError as e:
        _fail(f"{spec}: cannot read: {e.strerror}")
    return out


def _stdout_latin1():
    return io.TextIOWrapper(sys.stdout.buffer, encoding="latin-1", errors="strict",
                            newline="\n", write_through=True)


def _fmt_table(df, floatfmt="{:.3f}"):
    return df.to_string(index=False, float_format=lambda x: floatfmt.format(x))


def _rbp_p(metric: str) -> float:
    from ..measures import MeasureError, parse_measure

    try:
        m = parse_measure(metric)
    except MeasureError as e:
        _fail(str(e))
    if m.family.name != "RBP" or m.cutoff is not None or m["gains"] is not None:
        _fail(f"--metric {metric}: only RBP(p=...) can be estimated (give the depth with "
              "--depth)")
    return float(m["p"])


def _estimate_metric(metric: str) -> tuple[str, float | None, int | None]:
    """``("RBP", p, None)`` for RBP(p=...), ``(family, None, k)`` for AP@k / nDCG@k (the
    recall-based metrics ``tiebreak estimate`` can estimate); exits with status 2 otherwise."""
    from ..measures import MeasureError, parse_measure

    try:
        m = parse_measure(metric)
    except MeasureError as e:
        _fail(str(e))
    fam = m.family.name
    if fam in ("AP", "nDCG"):
        if m.cutoff is None:
            _fail(f"--metric {metric}: give the cutoff, e.g. {fam}@100 (estimable: "
                  "RBP(p=...), AP@k, nDCG@k)")
        return fam, None, int(m.cutoff)
    if fam != "RBP":
        _fail(f"--metric {metric}: only RBP(p=...), AP@k and nDCG@k can be estimated")
    return "RBP", _rbp_p(metric), None


def _models(text: str) -> list[str]:
    from ..judgments.estimate import MODELS

    out = _split([text])
    bad = [m for m in out if m not in MODELS]
    if bad or not out:
        raise click.BadParameter(f"choose from {', '.join(MODELS)}", param_hint="--models")
    return out


def _text_index(path):
    """Open the single index ``path`` whose documents' text the content / hybrid predictors
    read. Raises ValueError (IndexFormatError) for a sharded index or a directory that is not
    an index, naming ``path``."""
    from ..index import open_index
    from ..index.shards import is_sharded

    if is_sharded(path):
        raise ValueError(f"{path}: a sharded index; the content features need a single index "
                         "(index the collection without --shards)")
    return open_index(path)


def _warn_text(note: str | None) -> None:
    """Print the documents the index misses (:attr:`DocumentText.note`) as a warning."""
    if note:
        click.echo(f"tiebreak: warning: {note}", err=True)
