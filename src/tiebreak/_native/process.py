"""A command as a process: the one error path of every command and the early exit, without
click, so that a command can run without importing click (:mod:`tiebreak.__main__`):
``tiebreak trec_eval`` (whose arguments are trec_eval's) and the common form of ``tiebreak
eval`` (:mod:`tiebreak.cli.eval_command`).

:mod:`tiebreak.cli` uses the same functions for every click command. Messages are printed as
``click.echo`` prints them (:func:`echo_err`; click itself is imported only where its text
would differ): the text is the same whichever way a command was started.
"""

from __future__ import annotations

import errno
import sys

__all__ = ["INPUT_ERRORS", "echo_err", "exit_now", "imports", "input_errors",
           "os_error_message", "quiet_stdout", "report_errors", "run_standalone"]

# errno values that mean "the destination failed", with what the user can do about it
_WRITE_HINTS = {
    errno.ENOSPC: "the disk is full: free some space or write elsewhere",
    errno.EDQUOT: "the disk quota is exceeded: free some space or write elsewhere",
    errno.EFBIG: "the file is too large for its file system: write elsewhere",
    errno.EROFS: "the file system is read-only: write elsewhere",
    errno.EACCES: "permission denied: write elsewhere or change the permissions",
    errno.EPERM: "permission denied: write elsewhere or change the permissions",
    errno.ENOENT: "no such file or directory: create the directory first",
    errno.ENOTDIR: "a part of the path is not a directory",
    errno.EISDIR: "it is a directory: give a file name",
    errno.EIO: "input/output error on the device",
}

# the error classes of bad input (module, class); looked up only in modules already imported,
# so that the error path imports nothing (an exception of a module never imported cannot occur)
INPUT_ERRORS = (("tiebreak.io.source", "InputError"),
                ("tiebreak.index.manifest", "IndexFormatError"),
                ("tiebreak.measures.errors", "MeasureError"))


def input_errors() -> tuple[type, ...]:
    return tuple(getattr(sys.modules[m], n) for m, n in INPUT_ERRORS if m in sys.modules)


def echo_err(message: str) -> None:
    """``click.echo(message, err=True)`` without importing click where the text is the same:
    the line and a newline written to ``sys.stderr`` and flushed. Click is used when it would
    change the text: ANSI escape codes (removed when stderr is not a terminal) or a stderr
    whose encoding is ASCII (re-encoded as UTF-8 by click)."""
    err = sys.stderr
    if err is None:
        return
    if "\x1b" not in message and _utf8_capable(err):
        err.write(message + "\n")
        err.flush()
        return
    import click

    click.echo(message, err=True)


def _utf8_capable(stream) -> bool:
    """The stream is one click writes to unchanged (its encoding is not ASCII)."""
    import codecs

    try:
        return codecs.lookup(stream.encoding or "ascii").name != "ascii"
    except (LookupError, AttributeError, TypeError):
        return False


def _passing() -> tuple[type[BaseException], ...]:
    """What ends a command normally: ``SystemExit``, and click's ``Exit`` once click is loaded
    (it cannot be raised before)."""
    click = sys.modules.get("click")
    return (SystemExit,) if click is None else (SystemExit, click.exceptions.Exit)


def quiet_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's last flush of what could
    not be written neither fails again nor prints 'Exception ignored'."""
    import os

    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):  # pragma: no cover - stdout replaced/closed
        pass


def os_error_message(e: OSError) -> str:
    """One line for an :class:`OSError` of a command: the file (or standard output when the
    error names none) and what to do."""
    what = e.filename if e.filename is not None else "standard output"
    if isinstance(what, bytes):
        what = what.decode("utf-8", "backslashreplace")
    hint = _WRITE_HINTS.get(e.errno) or (e.strerror or str(e))
    return f"{what}: {hint} ([Errno {e.errno}] {e.strerror or e})" if e.errno else f"{what}: {e}"


def report_errors(run):
    """Call ``run()`` (a command's invocation) with the one error path of every command.

    * :class:`~tiebreak.io.InputError`, :class:`~tiebreak.index.manifest.IndexFormatError`,
      :class:`~tiebreak.measures.MeasureError`: ``tiebreak: error: MESSAGE`` (the message names
      file and line, field, row or column), exit status 2;
    * :class:`OSError` (a write that failed: disk full, missing directory, closed pipe): one line
      naming the file, or standard output, and what to do, exit status 1; a closed pipe
      (``tiebreak eval ... | head``) ends quietly with status 1;
    * standard output is flushed here, so a failure at the last write is reported too.
    Nothing else is caught: any other exception is a bug and keeps its traceback.
    """
    try:
        try:
            out = run()
        except BaseException as e:
            if isinstance(e, _passing()):
                sys.stdout.flush()
            raise
        sys.stdout.flush()
        return out
    except Exception as e:
        if isinstance(e, input_errors()):
            try:
                sys.stdout.flush()
            except OSError:
                quiet_stdout()
            echo_err(f"tiebreak: error: {e}")
            sys.exit(2)
        if not isinstance(e, OSError):
            raise
        # a write error names no file: standard output's (files a command writes go through
        # open_output, which names them); what standard output holds can never be written
        if e.filename is None:
            quiet_stdout()
        else:
            try:
                sys.stdout.flush()
            except OSError:
                quiet_stdout()
        if e.errno != errno.EPIPE:
            echo_err(f"tiebreak: error: {os_error_message(e)}")
        sys.exit(1)


def run_standalone(run) -> None:
    """Run a command's invocation ``run()`` as a command-line process without click, as click's
    standalone mode would around it -- ``EOFError``/``KeyboardInterrupt`` as "Aborted!" (status
    1), a closed pipe as status 1 -- then through the one error path (:func:`report_errors`)
    and the early exit (:func:`exit_now`). Never returns."""
    import errno

    def standalone():
        try:
            run()
        except (EOFError, KeyboardInterrupt):
            echo_err("")
            echo_err("Aborted!")
            sys.exit(1)
        except OSError as e:
            if e.errno != errno.EPIPE:
                raise
            from click.utils import PacifyFlushWrapper

            sys.stdout = PacifyFlushWrapper(sys.stdout)
            sys.stderr = PacifyFlushWrapper(sys.stderr)
            sys.exit(1)
        sys.exit(0)

    try:
        report_errors(standalone)
    except SystemExit as e:
        exit_now(e.code)
    exit_now(0)  # pragma: no cover - standalone() always raises SystemExit


def exit_now(code) -> None:
    """End a finished command-line process: ``os._exit`` after flushing stdout and stderr,
    skipping the interpreter's teardown (freeing every module, array and numba/LLVM object one
    by one: 0.2 s of CPU after a search, 10% of a one-run ``tiebreak eval``), when nothing
    needs it: no other thread, no child process, no Dask client, no coverage measurement.
    Otherwise, and when flushing fails (a closed pipe), ``sys.exit(code)`` as usual."""
    import os

    mp = sys.modules.get("multiprocessing")
    threading = sys.modules.get("threading")  # never imported: no other thread (0.7 ms)
    if ((threading is not None and threading.active_count() > 1) or "coverage" in sys.modules
            or "distributed" in sys.modules or (mp is not None and mp.active_children())):
        sys.exit(code)
    if code is None:
        code = 0
    elif not isinstance(code, int):
        sys.exit(code)  # a message: printed by the interpreter, status 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - e.g. a closed pipe: the interpreter reports it
        sys.exit(code)
    os._exit(code)


class imports:
    """``with imports(): import ...``: the cyclic garbage collector paused while a command's
    modules are imported (they allocate only long-lived objects: modules, functions, classes,
    tables, which every collection would walk again); its state is restored on exit. With
    ``freeze`` (a command-line process, :mod:`tiebreak.__main__`), everything alive is then
    moved out of later collections (``gc.freeze``). A few ms of a one-run command."""

    def __init__(self, freeze: bool = False):
        self.freeze = freeze

    def __enter__(self):
        import gc

        self.was = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc):
        import gc

        if self.freeze:
            gc.freeze()
        if self.was:
            gc.enable()
        return False
