"""trec_eval 10.0's command line, parsed the way its getopt_long call does.

Short options ``hvqm:cl:nD:JN:M:R:T:oZ:`` (clustered or separate, arguments attached or next),
the matching long options (unique prefixes accepted), GNU argument permutation, ``--`` to end
the options and ``-`` as a file name (standard input). tiebreak adds long options of its own:
``--regime``, ``--score-precision``, ``--strict``, ``--samples``, ``--seed``, ``--jobs``.
"""

from __future__ import annotations

from ..measures.trec_names import TrecEvalError
from ..measures.trec_names import atol as _atol

USAGE = """Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_qrels' prints all qrels measures, '-m official' is default)
"""

SHORT_WITH_ARG = set("mlDNMRTZ")
SHORT_FLAGS = set("hvqcnJo")
LONG = {
    "help": ("h", False), "version": ("v", False), "query_eval_wanted": ("q", False),
    "measure": ("m", True), "complete_rel_info_wanted": ("c", False),
    "level_for_rel": ("l", True), "nosummary": ("n", False), "Debug_level": ("D", True),
    "Judged_docs_only": ("J", False), "Number_docs_in_coll": ("N", True),
    "Max_retrieved_per_topic": ("M", True), "Rel_info_format": ("R", True),
    "Results_format": ("T", True), "Output_old_results_format": ("o", True),
    "Zscore": ("Z", True),
    # tiebreak extensions
    "regime": ("regime", True), "score-precision": ("score-precision", True),
    "strict": ("strict", False), "samples": ("samples", True), "seed": ("seed", True),
    "jobs": ("jobs", True),
}


class Options:
    """Parsed trec_eval options (defaults as in trec_eval 10.0); ``Options(name=value, ...)``
    sets any of them. A plain class rather than a dataclass: it is defined at every start of
    ``tiebreak trec_eval``, where a 20-field dataclass costs about 1 ms."""

    help: bool = False
    version: bool = False
    query: bool = False
    measures: list[str]
    complete: bool = False
    level: int = 1
    summary: bool = True
    debug_level: int = 0
    debug_query: str | None = None
    judged_only: bool = False
    num_docs_in_coll: int = 0
    max_docs: int | None = None
    rel_format: str = "qrels"
    results_format: str = "trec_results"
    zscore_file: str | None = None
    regime: str = "trec_eval"
    score_precision: str = "float64"
    strict: bool = False
    samples: int = 1000
    seed: int = 0
    jobs: int | None = None
    files: list[str]

    def __init__(self, **values):
        self.measures, self.files = [], []
        for k, v in values.items():
            if k not in Options.__annotations__:
                raise TypeError(f"Options has no option {k!r}")
            setattr(self, k, v)

    def __repr__(self) -> str:
        return "Options(" + ", ".join(f"{k}={getattr(self, k)!r}"
                                      for k in Options.__annotations__) + ")"

    def __eq__(self, other) -> bool:
        return type(other) is Options and all(getattr(self, k) == getattr(other, k)
                                              for k in Options.__annotations__)

    __hash__ = None


def parse_args(argv: list[str]) -> Options:
    """Parse ``argv`` (without the program name). Raises :class:`TrecEvalError` with trec_eval's
    message and exit status 1 for an unknown option or a missing argument."""
    o = Options()
    pos: list[str] = []
    k = 0
    n = len(argv)

    def need(opt_desc: str) -> str:
        nonlocal k
        if k + 1 >= n:
            raise TrecEvalError(f"trec_eval: option requires an argument -- {opt_desc}\n"
                                + USAGE)
        k += 1
        return argv[k]

    while k < n:
        a = argv[k]
        if a == "--":
            pos.extend(argv[k + 1:])
            break
        if a.startswith("--"):
            name, eq, val = a[2:].partition("=")
            hits = [x for x in LONG if x == name] or [x for x in LONG if x.startswith(name)]
            if len(hits) != 1:
                what = "ambiguous" if len(hits) > 1 else "unrecognized"
                raise TrecEvalError(f"trec_eval: {what} option '{a}'\n" + USAGE)
            key, takes = LONG[hits[0]]
            if takes and not eq:
                val = need(f"'{hits[0]}'")
            elif not takes and eq:
                raise TrecEvalError(
                    f"trec_eval: option '--{hits[0]}' doesn't allow an argument\n" + USAGE)
            _apply(o, key, val if takes else None)
        elif a.startswith("-") and a != "-":
            j = 1
            while j < len(a):
                c = a[j]
                if c in SHORT_WITH_ARG:
                    val = a[j + 1:] if j + 1 < len(a) else need(f"'{c}'")
                    _apply(o, c, val)
                    break
                if c in SHORT_FLAGS:
                    _apply(o, c, None)
                    j += 1
                    continue
                raise TrecEvalError(f"trec_eval: invalid option -- '{c}'\n" + USAGE)
        else:
            pos.append(a)
        k += 1
    o.files = pos
    return o


def _apply(o: Options, key: str, val: str | None) -> None:
    if key == "h":
        o.help = True
    elif key == "v":
        o.version = True
    elif key == "q":
        o.query = True
    elif key == "m":
        o.measures.append(val)
    elif key == "c":
        o.complete = True
    elif key == "l":
        o.level = _atol(val)
    elif key == "n":
        o.summary = False
    elif key == "D":
        lvl, dot, q = val.partition(".")
        o.debug_level = _atol(lvl)
        o.debug_query = q if dot else None
    elif key == "J":
        o.judged_only = True
    elif key == "N":
        o.num_docs_in_coll = _atol(val)
    elif key == "M":
        o.max_docs = _int(val, "-M (Max_retrieved_per_topic)", 1)
    elif key == "R":
        o.rel_format = val
    elif key == "T":
        o.results_format = val
    elif key == "o":
        pass  # obsolete in trec_eval 10.0; accepted and ignored
    elif key == "Z":
        o.zscore_file = val
    elif key == "regime":
        o.regime = val
    elif key == "score-precision":
        if val not in ("float64", "float32"):
            from ..ranking.formats import parse_format

            try:
                val = str(parse_format(val, "--score-precision"))
            except ValueError as e:
                raise TrecEvalError(f"tiebreak trec_eval: {e}") from None
        o.score_precision = val
    elif key == "strict":
        o.strict = True
    elif key == "samples":
        o.samples = _int(val, "--samples", 1)
    elif key == "seed":
        o.seed = _int(val, "--seed", 0)
    elif key == "jobs":
        o.jobs = _int(val, "--jobs", 0)  # 0: every core, as every tiebreak command's -j 0


def _int(val: str, what: str, least: int) -> int:
    """A whole number option, at least ``least``; anything else is a usage error."""
    try:
        v = int(val.strip())
    except ValueError:
        v = None
    if v is None or v < least:
        raise TrecEvalError(f"tiebreak trec_eval: {what} needs a whole number >= {least}, "
                            f"not '{val}'")
    return v
