"""``tiebreak search INDEX_DIR --topics TOPICS --model bm25 > run.txt``."""

from __future__ import annotations

import sys

import click


def _model_names() -> list[str]:
    from ..retrieval.registry import names

    return names()


MODEL_NAMES = _model_names()


def _value(s: str):
    """``-p`` values: an integer, a float, a comma list of numbers (a tuple), else the text."""
    if "," in s:
        parts = [_value(p.strip()) for p in s.split(",")]
        if all(isinstance(p, int | float) for p in parts):
            return tuple(parts)
        return s
    for cast in (int, float):
        try:
            return cast(s)
        except ValueError:
            pass
    return s


def _warn_empty(results, limit: int = 20) -> None:
    empty = [r for r in results if r.note]
    for r in empty[:limit]:
        click.echo(f"tiebreak: warning: topic {r.qid}: {r.note}; the run has no line for it",
                   err=True)
    if len(empty) > limit:
        click.echo(f"tiebreak: warning: ... and {len(empty) - limit} more topics retrieved "
                   "nothing", err=True)


def default_tag(model: str, params: dict, base: str | None = None) -> str:
    """The run tag of a search without ``--tag``: the model (``base``) and every parameter
    whose value differs from the model's default, ``bm25_k1=1.2_b=0.75``; so two settings of one
    model get two tags. Values print with ``repr`` for floats (``0.75``) and ``str`` otherwise,
    whitespace removed. The defaults are the registry's (:meth:`tiebreak.retrieval.registry.
    Model.defaults`, the model functions' own defaults), so no model module is imported."""
    from ..retrieval.registry import get

    try:
        defaults = get(model).defaults()
    except ValueError:
        defaults = {}
    parts = [base or model]
    for name, v in params.items():
        if name in defaults and defaults[name] == v:
            continue
        text = repr(v) if isinstance(v, float) else str(v)
        parts.append(f"{name}={''.join(text.split())}")
    return "_".join(parts)


@click.command("search")
@click.argument("index_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--topics", required=True, metavar="TOPICS",
              help="ir_datasets id, TREC topics (<top>), TREC <DOC> queries, SMART queries or "
                   "TSV qid<TAB>text (plain or gz).")
@click.option("--model", default="bm25", show_default=True, type=click.Choice(MODEL_NAMES))
@click.option("-k", "--depth", "k", default=1000, show_default=True, type=click.IntRange(min=1),
              help="Documents per topic.")
@click.option("--k1", type=float, help="BM25 k1 (default 0.9).")
@click.option("--b", "b", type=float, help="BM25 b (default 0.4).")
@click.option("--idf", type=click.Choice(["rsj", "rw", "lucene"]),
              help="BM25 idf: lucene log(1+(N-df+.5)/(df+.5)) (default, never negative), "
                   "rsj log((N-df+.5)/(df+.5)) (Lu 2018's BM25^(1)), rw log(N/df).")
@click.option("--mu", type=float, help="Dirichlet mu for ql (default 2500).")
@click.option("--lam", type=float, help="Mixing weight lambda of the proximity models.")
@click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Any other model parameter, repeatable.")
@click.option("--tag", default=None, help="Run tag (column 6); default: the model name and "
                                          "its parameters that differ from their defaults, "
                                          "e.g. bm25_k1=1.2_b=0.75.")
@click.option("--topic-field", default="title", show_default=True,
              help="TREC <top> topics: title, desc, narr or a comma list.")
@click.option("--query-fields", default=None, metavar="LETTERS|all",
              help="SMART queries: field letters (default TAW).")
@click.option("--numbering", type=click.Choice(["id", "sequential"]), default="id",
              show_default=True,
              help="Topic ids as in the file, or 1, 2, ... in file order (Cranfield cran.qry).")
@click.option("--algorithm",
              type=click.Choice(["auto", "exhaustive", "maxscore", "bmw", "saat"]),
              default=None,
              help="bm25/ql traversal (also the bm25/ql first pass of --rerank): auto (default: "
                   "MaxScore for bm25/vsm top-k up to 100, else exhaustive, as measured fastest; "
                   "exhaustive for --rerank), exhaustive, or rank-safe MaxScore / block-max "
                   "WAND / impact-ordered score-at-a-time (same documents, scores and tie "
                   "order).")
@click.option("--quantize", type=click.IntRange(1, 16), default=None, metavar="BITS",
              help="bm25/ql: impacts quantised to BITS-bit integers (-p quantizer=geometric for "
                   "the geometric variant); scores are the integer sums.")
@click.option("--rho", default=None, metavar="RHO",
              help="bm25/ql: band-safe top-k, every document in its exact geometric band "
                   "(b1=1, b[g+1]=ceil(RHO*b[g])), band g scored 1/g.")
@click.option("--budget", type=click.IntRange(min=1), default=None, metavar="N",
              help="bm25/ql: anytime impact-ordered scoring of at most N postings per query.")
@click.option("--rerank", "rerank", type=click.Choice(["lkp", "lkpf", "l2p"]), default=None,
              help="Two-stage: score only the --first model's top --first-k documents with "
                   "this proximity model (--model is then ignored).")
@click.option("--first", "first", default="bm25", show_default=True,
              help="First-pass model of --rerank (bm25 runs as Lkp's BM25^(2): idf rw).")
@click.option("--first-k", "first_k", type=click.IntRange(min=1), default=None,
              help="Candidates taken from the first pass (default: -k).")
@click.option("--tail", is_flag=True,
              help="With --rerank and --first-k below -k: the first pass's documents "
                   "K+1..k follow, scored with the BM25 part of Eq. 4.3 only (a lower bound).")
@click.option("--prf", type=click.Choice(["rm3", "bo1"]), default=None,
              help="Pseudo-relevance feedback: expand each query from --model's top documents "
                   "(RM3 as Anserini, Bo1 as Terrier) and search again.")
@click.option("--fb-docs", type=click.IntRange(min=1), default=None,
              help="--prf feedback documents (rm3 10, bo1 3).")
@click.option("--fb-terms", type=click.IntRange(min=1), default=None,
              help="--prf feedback terms (10).")
@click.option("--orig-weight", type=click.FloatRange(0, 1), default=None,
              help="--prf rm3: weight of the original query (0.5).")
@click.option("--prf-model", default=None, metavar="MODEL",
              help="--prf: term-weight model of the second retrieval (default --model when it "
                   "is one, else bm25).")
@click.option("-j", "--jobs", type=int, default=0, show_default="all cores",
              help="Sharded index: shards searched at a time, in processes (0 = all cores); "
                   "pays off for large shards and long topic sets on idle cores.")
@click.option("--score-precision", default="float64", metavar="FORMAT", show_default=True,
              help="Store the final scores in a number format (as 'tiebreak eval "
                   "--score-precision': float32, float16, bfloat16, int8, int8-global, bits:K, "
                   "decimals:D); the documents are those of the exact scores, the ties the "
                   "rounding makes in trec_eval order.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def search_cmd(index_dir, topics, model, k, k1, b, idf, mu, lam, params, tag, topic_field,
               query_fields, numbering, quiet, algorithm=None, quantize=None, rho=None,
               budget=None, rerank=None, first="bm25", first_k=None, tail=False, jobs=1,
               prf=None, fb_docs=None, fb_terms=None, orig_weight=None, prf_model=None,
               score_precision="float64"):
    """Search INDEX_DIR for every topic and write a TREC run to standard output.

    Scores are written in full precision, ties in trec_eval order (score descending, then docno
    descending), so 'tiebreak search ... | tiebreak eval QRELS -' evaluates file order = trec_eval
    order.
    """
    from ..index import IndexFormatError
    from ..index.readers import read_topics
    from ..retrieval.search import check_params, search, write_run
    from .common import _fail as fail

    if tag is not None and (not tag or any(c.isspace() for c in tag)):
        fail(f"--tag {tag!r}: a run tag must be non-empty and contain no whitespace")
    if score_precision != "float64":
        from ..ranking.formats import parse_format

        try:
            parse_format(score_precision, "--score-precision")
        except ValueError as e:
            fail(str(e))
    kw = {n: v for n, v in (("k1", k1), ("b", b), ("idf", idf), ("mu", mu), ("lam", lam))
          if v is not None}
    for p in params:
        name, eq, val = p.partition("=")
        if not eq or not name.strip():
            fail(f"-p expects NAME=VALUE, got {p!r}")
        kw[name.strip()] = _value(val.strip())
    trav = {n: v for n, v in (("algorithm", algorithm), ("quantize", quantize), ("rho", rho),
                              ("budget", budget)) if v is not None}
    if rerank and set(trav) - {"algorithm"}:
        fail(f"--{next(iter(set(trav) - {'algorithm'}))} does not work with --rerank (only "
             "--algorithm, for a bm25 or ql first pass)")
    if rerank and trav and first not in ("bm25", "ql"):
        fail(f"--algorithm with --rerank needs --first bm25 or ql, not {first}")
    if trav and not rerank:
        from ..retrieval.registry import get

        if get(model).kind != "term weights":
            fail(f"--{next(iter(trav))} works with --model bm25 or ql (or another term-weight "
                 f"model: lmds, vsm), not {model}")
    if not rerank:
        kw.update(trav)
    if rerank:
        model = rerank
    try:
        kw = check_params(model, kw)
    except ValueError as e:
        fail(f"model {model}: {e}")
    from ..index.shards import ShardedIndex, open_searchable

    try:
        idx = open_searchable(index_dir)
    except IndexFormatError as e:
        fail(str(e))
    sharded = isinstance(idx, ShardedIndex)
    if sharded and rerank:
        fail("--rerank is not available on a sharded index; search it with --model lkp, lkpf "
             "or l2p (the full models) or rerank a single index")
    if sharded and set(trav) - {"algorithm"}:
        fail(f"--{next(iter(set(trav) - {'algorithm'}))} is not available on a sharded index "
             "(quantisers, bands and budgets are fitted to one index); --algorithm works")
    qf = None
    if query_fields:
        qf = "all" if query_fields == "all" else tuple(query_fields.replace(",", "").upper())
    try:
        tops = read_topics(topics, field=topic_field, fields=qf, numbering=numbering)
    except (ValueError, OSError) as e:
        fail(f"topics: {e}")
    if prf and (rerank or sharded or trav):
        fail("--prf works on a single index without --rerank or traversal options")
    try:
        if prf:
            from ..retrieval.prf import search_prf

            res = search_prf(idx, tops, model, k, prf, fb_docs, fb_terms, orig_weight,
                             prf_model, **kw)
        elif rerank:
            from ..retrieval.rerank import search_rerank

            res = search_rerank(idx, tops, k, model=rerank, first=first, first_k=first_k,
                                algorithm=algorithm if algorithm not in (None, "auto")
                                else "exhaustive",
                                progress=(not quiet) and sys.stderr.isatty(), tail=tail, **kw)
        elif sharded:
            from .._native.parallel import cpus
            from ..retrieval.sharded import search_sharded

            res = search_sharded(idx, tops, model, k,
                                 progress=(not quiet) and sys.stderr.isatty(),
                                 jobs=jobs if jobs > 0 else cpus(), **kw)
        else:
            res = search(idx, tops, model, k, progress=(not quiet) and sys.stderr.isatty(),
                         **kw)
    except IndexFormatError as e:
        fail(str(e))
    except NotImplementedError as e:
        fail(str(e))
    except (TypeError, ValueError) as e:
        fail(f"model {model}: {e}")
    _warn_empty(res)
    if score_precision != "float64":
        from ..retrieval.search import format_scores

        res, fwarn = format_scores(idx, res, score_precision)
        for key, v in fwarn.items():
            click.echo(f"tiebreak: warning: --score-precision {score_precision}: {key}: {v}",
                       err=True)
    # the model's parameters; traversal options (--algorithm, --quantize, --rho, --budget) are
    # not the model's
    tagged = {n: v for n, v in kw.items() if n not in ("algorithm", "quantize", "rho", "budget")}
    write_run(sys.stdout, idx, res, tag or default_tag(
        model, tagged, f"{first}-{rerank}" if rerank else f"{model}-{prf}" if prf else model))
    sys.stdout.flush()


def models_text(fmt: str = "text") -> str:
    """The registry as text (one block per model), tsv or a markdown table."""
    from ..retrieval.registry import ALIASES, MODELS

    rows = []
    for m in MODELS.values():
        params = " ".join(f"{p.name}={_show(p.default, p.none)}" for p in m.params)
        names = [a for a, (c, _) in ALIASES.items() if c == m.name]
        rows.append((m.name, ", ".join(names), m.kind, "+".join(m.needs), params or "-",
                     m.summary, m.citation))
    if fmt == "tsv":
        head = ("model", "aliases", "kind", "needs", "parameters", "summary", "citation")
        return "".join("\t".join(r) + "\n" for r in [head] + rows)
    if fmt == "markdown":
        out = ["| model | aliases | kind | needs | parameters (defaults) | source |",
               "|---|---|---|---|---|---|"]
        out += [f"| `{r[0]}` | {r[1] or '-'} | {r[2]} | {r[3]} | {r[4]} | {r[6]} |"
                for r in rows]
        return "\n".join(out) + "\n"
    out = []
    for r, m in zip(rows, MODELS.values()):
        alias = f"; aliases {r[1]}" if r[1] else ""
        extra = " (+ traversal options)" if m.traversal else ""
        out.append(f"{r[0]} ({r[2]}; needs {r[3].replace('+', ', ')}{alias})\n"
                   f"  {r[5]}\n  parameters: {r[4]}{extra}\n  source: {r[6]}\n")
    return "\n".join(out)


def _show(v, none: str = "all") -> str:
    if isinstance(v, tuple):
        return ",".join(_show(x) for x in v)
    if v is None:
        return none
    return f"{v:g}" if isinstance(v, float) else str(v)


@click.command("models")
@click.option("--format", "fmt", type=click.Choice(["text", "tsv", "markdown"]), default="text",
              show_default=True, help="Blocks, a TSV table, or the README's markdown table.")
def models_cmd(fmt):
    """List every retrieval model: aliases, kind, the index data it needs, its parameters
    with defaults (set with 'tiebreak search --model NAME -p NAME=VALUE') and its source."""
    click.echo(models_text(fmt), nl=False)
