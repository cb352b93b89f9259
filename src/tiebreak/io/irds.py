"""Qrels from ir_datasets (``irds:DATASET_ID``), e.g. ``tiebreak eval irds:vaswani run.txt``.

ir_datasets (MacAvaney, Yates, Feldman, Downey, Cohan & Goharian, "Simplified data wrangling with
ir_datasets", SIGIR 2021) finds a dataset's files under ``IR_DATASETS_HOME`` (default
``~/.ir_datasets``) and downloads them when they are missing. Without network and without the
files, reading fails; this module turns that into one :class:`~tiebreak.io.InputError` that names
the dataset and the folder searched.
"""

from __future__ import annotations

import os

from . import InputError, Qrels

__all__ = ["read_irds_qrels"]


def _home() -> str:
    return os.environ.get("IR_DATASETS_HOME", os.path.expanduser("~/.ir_datasets"))


def read_irds_qrels(dataset_id: str) -> Qrels:
    """Qrels of an ir_datasets dataset (``"vaswani"``, ``"msmarco-passage/dev/small"``, ...).

    The judgments are passed through :func:`tiebreak.io.frames.qrels_from_frame`'s checks and
    read by :func:`tiebreak.io.read_qrels`, so they equal the same lines in a TREC qrels file
    (the ``iteration`` field is ignored, as trec_eval does). The result's ``name`` is
    ``irds:DATASET_ID``.

    Raises
    ------
    InputError
        ir_datasets is not installed, the id is unknown, the dataset has no qrels, or its files
        are not available (not under ``IR_DATASETS_HOME`` and no network to download them).
    """
    try:
        import ir_datasets
    except ImportError:
        raise InputError(f"irds:{dataset_id}: reading ir_datasets ids needs the ir_datasets "
                         "package: pip install 'tiebreak[irds]'") from None
    import logging

    try:
        ds = ir_datasets.load(dataset_id)
    except KeyError:
        raise InputError(f"irds:{dataset_id}: unknown ir_datasets id (see "
                         "https://ir-datasets.com for the list)") from None
    if not ds.has_qrels():
        raise InputError(f"irds:{dataset_id}: this dataset has no qrels")
    from .frames import qrels_from_dict

    # ir_datasets logs every download retry at INFO/WARNING; the error below says it once
    prev = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        judged: dict[str, dict[str, int]] = {}
        for r in ds.qrels_iter():
            judged.setdefault(r.query_id, {})[r.doc_id] = r.relevance
    except InputError:
        raise
    except Exception as e:  # network, missing file, corrupt archive: all mean "not here"
        raise InputError(
            f"irds:{dataset_id}: the qrels are not available offline ({type(e).__name__}: "
            f"{e}); ir_datasets looked in IR_DATASETS_HOME={_home()}; download them once with "
            "network access or point IR_DATASETS_HOME at a folder that holds them") from None
    finally:
        logging.disable(prev)
    q = qrels_from_dict(judged, name=f"irds:{dataset_id}")
    q.name = f"irds:{dataset_id}"
    return q
