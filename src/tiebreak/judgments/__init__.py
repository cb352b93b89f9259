"""Judging the judgments: pools, evaluation depth, meta-evaluation and estimation (Lu 2018,
ch. 5 and 6).

* :mod:`tiebreak.judgments.pool`: fixed-depth, sampled and targeted pools; simulated shallow
  pools from deep qrels.
* :mod:`tiebreak.studies.depth`: coverage, inversion, discrimination, volatility and
  leave-out studies of evaluation depth against pooling depth.
* :mod:`tiebreak.judgments.estimate`: rank-level gain models and the two-stage estimator of
  deep RBP scores from shallow pools; :mod:`tiebreak.judgments.accuracy`: their accuracy
  against the deep range and the agreement of system orderings.
* :mod:`tiebreak.judgments.adjust`: adjustments for unjudged documents (Webber & Park 2009,
  anti-precision); :mod:`tiebreak.judgments.predict`: relevance predicted from ranks, from the
  documents' text or from both (Büttcher et al. 2007; Jayasinghe et al. 2014), and its
  cross-validation.
* :mod:`tiebreak.judgments.recall`: recall-based metrics (AP@k, nDCG@k) from shallow pools
  (ch. 7).

X. Lu, *Efficient and Effective Retrieval Using Higher-Order Proximity Models*, PhD thesis,
RMIT University, 2018; Lu, Moffat & Culpepper, "The effect of pooling and evaluation depth on IR
metrics", Information Retrieval Journal 19(4), 2016; Lu, Moffat & Culpepper, "Can deep
effectiveness metrics be evaluated using shallow judgment pools?", SIGIR 2017.
"""
