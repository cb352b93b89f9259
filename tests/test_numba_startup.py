"""tiebreak._native.jit: numba's BLAS and cffi probes are deferred, not lost."""

import subprocess
import sys

import pytest

pytest.importorskip("numba")

CHILD = r"""
import sys
import numpy as np
from tiebreak.io import _fast
assert _fast.no_repeats(np.zeros(3, np.int64), np.arange(3), 1, 3) == 1
print("scipy.linalg" in sys.modules, "cffi" in sys.modules)
from numba.np import arraymath
from numba.core.typing import cffi_utils
print(bool(arraymath._HAVE_BLAS), bool(cffi_utils.SUPPORTED))
"""

PLAIN = r"""
from numba.np import arraymath
from numba.core.typing import cffi_utils
print(bool(arraymath._HAVE_BLAS), bool(cffi_utils.SUPPORTED))
"""


def _run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split("\n")


def test_kernel_runs_without_scipy_linalg_and_cffi_and_probes_give_numbas_answer():
    _run(CHILD)  # compiles the kernel when numba's cache does not hold it yet
    out = _run(CHILD)
    assert out[0] == "False False"  # a compiled reader kernel ran; neither library was imported
    assert out[1] == _run(PLAIN)[0]  # read later, the flags are what numba's own probes say


def test_compiled_dot_still_works_after_deferral():
    out = _run("import numpy as np\nfrom tiebreak._native.jit import njit\n"
               "f = njit(lambda a, b: np.dot(a, b))\n"
               "print(f(np.arange(3.0), np.arange(3.0)))")
    assert out[0] == "5.0"


def test_command_line_process_ends_early_with_the_same_output_and_status():
    """``python -m tiebreak`` skips the interpreter's teardown (cli._exit_now): same stdout,
    stderr and exit status as the command run in-process by click's test runner."""
    from click.testing import CliRunner

    from tiebreak.cli import main

    paths = _run("from tiebreak.cli import main\nmain(['example'], standalone_mode=False)")
    qrels, run = paths[0].split()
    for args, status in ((["eval", qrels, run], 0), (["eval", qrels, run + ".missing"], 2)):
        p = subprocess.run([sys.executable, "-m", "tiebreak", *args], capture_output=True,
                           text=True)
        r = CliRunner().invoke(main, args)
        assert p.returncode == r.exit_code == status
        assert p.stdout == r.stdout
        assert p.stderr.strip() and p.stderr == r.stderr
