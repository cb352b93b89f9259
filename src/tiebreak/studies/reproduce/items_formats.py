"""Yang, Moffat & Turpin (2016) Table 3 beside the score formats of today (float16, bfloat16,
int8, scores printed with 2 decimals): ``tiebreak study precision-runs``.

Table 3 counts the systems whose banded scores are significantly >= 99 % / 97 % of the
original ones (one-tailed paired t over topics); at ρ = 1.1 every system stays (80 of 80 at
both ratios). A binary format with m mantissa bits is a relative step of 2^-m, a band ratio
ρ ≈ 1 + 2^-m far finer than 1.1 (float16: 1.001; bfloat16: 1.008), so the bands' conclusion
predicts that every system stays at every float format. The item counts the systems that do,
on the same substitute runs and metrics as ``ymt2016:table3``. YMT's bands are cut on ranks
(rank r in band g scores 1/g), a format rounds the scores themselves: documents whose scores
lie within one step of each other tie whatever their ranks, so the prediction can fail.
"""

from __future__ import annotations

from . import Cell, Context, Item, check, register
from .items_ymt2016 import METRICS, SUBST, TABLE3, _robust

FORMATS = ("float32", "float16", "bfloat16", "int8", "decimals:2")


def _study(ctx: Context):
    from ...io import read_qrels
    from ..precision_runs import run_study, tables

    q, runs = _robust(ctx)
    st = run_study(read_qrels(q), runs, FORMATS, METRICS, rhos=(), jobs=ctx.jobs)
    return st, tables(st)["formats"]


def _table3_formats(ctx: Context) -> list[Cell]:
    st, t = _study(ctx)
    n = len(st.systems)
    paper = " / ".join(TABLE3["1.1"])
    cells = []
    for f in FORMATS:
        rows = t[t["format"] == f].set_index("measure")
        ours = " / ".join(" ".join(str(int(rows.loc[m, c])) for m in METRICS)
                          for c in (">=99%", ">=97%"))
        every = all(int(rows.loc[m, c]) == n for m in METRICS for c in (">=99%", ">=97%"))
        rho = rows["rho"].iloc[0]
        band = f"rho = 1 + 2^-{int(rows['bits'].iloc[0])} = {rho:.8g}" if rho == rho else \
            "a linear grid"
        cells.append(check(
            f"{f} ({band}): systems >= 99 % / 97 % (RR RBP0.5 RBP0.85 AP)",
            f"{paper} (of 80, rho = 1.1)", f"{ours} (of {n})", every,
            "Sect. 4, Table 3: at rho = 1.1 every system stays above 99 % and 97 % of its "
            "original score; a float format is a finer band than rho = 1.1 (ours: the "
            "bridge rho = 1 + 2^-m)", SUBST,
            "none: every system of the substitute must stay, as the paper's 80 of 80"))
    return cells


register(Item(
    id="ymt2016:table3-formats",
    title="Table 3 with score formats (float16, bfloat16, int8, 2 decimals) for the bands",
    where="Sect. 4, Table 3 (bands); the formats are ours",
    command="tiebreak study precision-runs ../shared/data/robust03_trectools/qrels/"
            "robust03_qrels.txt.gz ../shared/data/robust03_trectools/runs/ --score-format "
            "float32,float16,bfloat16,int8,decimals:2 -m RR -m 'RBP(p=0.5)' -m 'RBP(p=0.85)' "
            "-m AP --rho ''",
    compute=_table3_formats, data=("robust03_trectools",)))
