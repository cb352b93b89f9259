"""trec_eval 10.0 drop-in replacement (``tiebreak trec_eval``)."""
