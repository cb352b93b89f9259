"""``tiebreak study depth --out``: top-weighted volatility matrices and per-system score curves
(Lu 2018 Figs. 5.1-5.5, 5.8-5.10)."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli import main


@pytest.mark.slow
def test_volatility_stats_and_score_curves(shared_data, tmp_path):
    d = shared_data / "robust03_trectools"
    runs = [str(d / "runs" / f"input.{r}.gz") for r in ("InexpC2", "Sel50", "uwmtCR0",
                                                         "aplrob03a")]
    out = tmp_path / "o"
    r = CliRunner().invoke(main, [
        "study", "depth", "--qrels", str(d / "qrels" / "robust03_qrels.txt.gz"), "--topics",
        "601-620", "--pool-depth", "5", "--eval-depth", "5", "--volatility-depths", "1-6",
        "-m", "AP_b", "-m", "RBP(p=0.8)", "--no-leave-out", "--volatility-stat", "tau",
        "--volatility-stat", "rbo", "--volatility-stat", "tau_ap", "--out", str(out), *runs])
    assert r.exit_code == 0, r.output
    assert (out / "scores_by_depth.png").exists() and (out / "volatility_rbo.png").exists()
    import pandas as pd

    for stat in ("rbo", "tau_ap"):
        M = pd.read_csv(out / f"volatility_{stat}_AP_b.tsv", sep="\t", index_col=0).to_numpy()
        # at k = 1 the mean scores tie, and tie-aware statistics then stay below 1 on the diagonal
        assert M.shape == (6, 6) and np.allclose(np.diag(M)[1:], 1)
        assert (M <= 1 + 1e-9).all()
    T = pd.read_csv(out / "volatility_AP_b.tsv", sep="\t", index_col=0).to_numpy()
    R = pd.read_csv(out / "volatility_rbo_AP_b.tsv", sep="\t", index_col=0).to_numpy()
    assert np.allclose(R, R.T, atol=1e-4)  # RBO is symmetric, tau_AP need not be
    assert np.allclose(T, T.T)
