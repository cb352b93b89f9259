"""Scale-out on Dask: a LocalCluster of 2 worker processes gives the local results exactly."""

from __future__ import annotations

import numpy as np
import pytest

import tiebreak as tb

distributed = pytest.importorskip("distributed", reason="Dask not installed: pip install "
                                  "'tiebreak[dask]'")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_dask_equals_local(client, shared_data):
    d = shared_data / "trec_covid" / "round1"
    runs = sorted((d / "runs").iterdir())[:6]
    q = tb.read_qrels(d / "qrels-rnd1.txt")
    ev = tb.Evaluator(q, ["AP", "nDCG@10", "P@10"], ["trec_eval", "expected"])
    local = ev.evaluate(runs)
    remote = tb.Evaluator(q, ["AP", "nDCG@10", "P@10"],
                          ["trec_eval", "expected"]).evaluate(runs, client=client)
    assert remote.runs == local.runs
    np.testing.assert_array_equal(remote.per_topic, local.per_topic)
    np.testing.assert_array_equal(remote.mean, local.mean)
    assert remote.warnings == local.warnings
    # a second evaluation of an identical evaluator gets a copy of its own (no key shared with
    # the first one while the cluster releases it)
    again = tb.Evaluator(q, ["AP", "nDCG@10", "P@10"],
                         ["trec_eval", "expected"]).evaluate(runs, client=client)
    np.testing.assert_array_equal(again.per_topic, local.per_topic)
