"""Studies built on the evaluation core: tie prevalence, tie impact, banding."""
