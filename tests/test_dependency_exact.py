"""Exact scores of the term-dependency models and the two-stage path on a small fixed
collection: every score, bit for bit, against the values the kernels produced before their
speed-ups (``tests/data/dependency_exact.json``, written by ``python
tests/test_dependency_exact.py OUT`` with the code of that time). A change of the floating-point
operations or their order (in the unigram sums, the window counts, the Eq. 4.1 / 4.2 sums, the
Dirichlet potentials) fails here even where the ranking and the 1e-9 comparisons of
tests/test_dependency.py would not see it."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

pytest.importorskip("tiebreak.index")

DATA = Path(__file__).parent / "data" / "dependency_exact.json"
WORDS = ["alpha", "beta", "gamma", "delta", "kappa", "omega", "zeta", "sigma"]
QUERIES = [
    "alpha beta",
    "gamma delta kappa",
    "alpha beta gamma delta",
    "omega zeta alpha kappa sigma",
    "beta beta gamma",
    "sigma alpha delta omega beta gamma zeta",
]


def build(tmp: Path):
    """80 documents of 1-60 tokens over 8 words (random.Random(7): the same on every
    platform)."""
    from tiebreak.index import build_index

    rng = random.Random(7)
    lines = []
    for i in range(80):
        n = rng.randint(1, 60)
        k = rng.randint(3, len(WORDS))
        text = " ".join(rng.choice(WORDS[:k]) for _ in range(n))
        lines.append(json.dumps({"docno": f"d{i:03d}", "text": text}))
    src = tmp / "exact.jsonl"
    src.write_text("\n".join(lines) + "\n")
    return build_index(str(src), str(tmp / "exact_idx"), progress=False)


def cases(idx, dep, rerank, wsdm) -> dict:
    """{case: [[docno, score.hex()], ...]} for every model and query."""
    calls = {
        "sdm": lambda q: dep.sdm(idx, q, 50),
        "sdm-lps": lambda q: dep.sdm(idx, q, 50, method="lps_if_all"),
        "sdm-eps": lambda q: dep.sdm(idx, q, 50, method="eps_cdf_all", window=4, mu=300),
        "fdm": lambda q: dep.fdm(idx, q, 50),
        "fdm-eps": lambda q: dep.fdm(idx, q, 50, method="eps_cdf_all", max_prox_terms=4),
        "lkp": lambda q: dep.lkp(idx, q, 50),
        "lkp-lps": lambda q: dep.lkp(idx, q, 50, method="lps_if_all"),
        "lkp-eps": lambda q: dep.lkp(idx, q, 50, method="eps_cdf_all"),
        "lkpf": lambda q: dep.lkpf(idx, q, 50),
        "l2p": lambda q: dep.l2p(idx, q, 50),
        "l2p-eps": lambda q: dep.l2p(idx, q, 50, method="eps_cdf_all"),
        "wsdm": lambda q: wsdm(idx, q, 50, uni=(0.8, 0.01, 0.02), bi=(0.1, 0.01, 0.03)),
        "rerank-tail": lambda q: rerank(idx, q, 60, first_k=20, tail=True),
        "rerank-stop": lambda q: rerank(idx, q, 5, first_k=30),
        "rerank-lkpf": lambda q: rerank(idx, q, 40, first_k=40, model="lkpf", method="lps_if_all"),
    }
    out = {}
    for name, fn in calls.items():
        for i, text in enumerate(QUERIES):
            d, s = fn(idx.analyzer.analyze(text))
            out[f"{name} q{i}"] = [[idx.docno(int(x)), float(v).hex()] for x, v in zip(d, s)]
    return out


def test_scores_bit_for_bit(tmp_path):
    from tiebreak.retrieval import dependency as dep
    from tiebreak.retrieval.rerank import rerank
    from tiebreak.retrieval.wsdm import wsdm

    want = json.loads(DATA.read_text())
    got = cases(build(tmp_path), dep, rerank, wsdm)
    assert set(got) == set(want)
    assert sum(len(v) for v in want.values()) > 2000
    for key in want:
        assert got[key] == want[key], key


if __name__ == "__main__":  # regenerate (only when a score change is intended and explained)
    import importlib
    import tempfile

    pkg = sys.argv[2] if len(sys.argv) > 2 else "tiebreak"
    mods = [importlib.import_module(f"{pkg}.retrieval.{m}") for m in ("dependency", "rerank",
                                                                      "wsdm")]
    with tempfile.TemporaryDirectory() as tmp:
        res = cases(build(Path(tmp)), mods[0], mods[1].rerank, mods[2].wsdm)
    Path(sys.argv[1]).write_text(json.dumps(res, indent=0, sort_keys=True) + "\n")
