"""Judging the judgments: pools, evaluation depth and meta-evaluation (Lu 2018, ch. 5).

* :mod:`tiebreak.judgments.pool`: fixed-depth, sampled and targeted pools; simulated shallow
  pools from deep qrels.
* :mod:`tiebreak.judgments.depth`: coverage, inversion, discrimination, volatility and
  leave-out studies of evaluation depth against pooling depth.

X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*, PhD thesis,
RMIT University, 2018; Lu, Moffat & Culpepper, "The effect of pooling and evaluation depth on IR
metrics", Information Retrieval Journal 19(4), 2016.
"""
