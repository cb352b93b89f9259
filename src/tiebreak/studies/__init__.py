"""Studies built on the evaluation core: tie prevalence, tie impact, banding."""


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend (plots render without a display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
