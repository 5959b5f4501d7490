"""Command-line tools of kraken-solver (installed as ``kraken_solver.cli``).

Every tool behaves the same way at its edges:

- results on standard output, news and progress on standard error;
- bad input: one line ``PROG: error: ...`` and exit status 1; a bad option or argument
  (Click's usage errors) is one line too, ``PROG: error: MESSAGE (see PROG --help)``, status 2;
- Ctrl-C (or SIGTERM where a tool maps it) at any moment, the start-up included (importing
  numpy and Numba, loading the kernels), while reading or while solving: one line
  ``PROG: interrupted`` and exit status 130;
- a standard output that cannot take the results (a full disk, an output closed with
  ``>&-``, any other write error), for results as for ``--help`` and ``--version``:
  ``PROG: error: cannot write the output: ...`` and exit status 1, never a traceback or a
  silent success;
- a pipe whose reader has gone (``kraken-solve deals.txt | head -1``): the tool stops at
  once, silently, with exit status 141 (128 + SIGPIPE), as ``cat`` or ``grep`` end there: the
  reader chose to stop reading, nothing went wrong.

The console scripts enter through :func:`kraken_solve`, :func:`kraken_batch`, ... (see
pyproject.toml), which import the command's module inside the guard: this module imports
nothing heavy, so a Ctrl-C during start-up is caught too.  A new command adds its entry
function here the same way and decorates its Click command with :func:`guard_output`.
"""

from __future__ import annotations

import errno
import functools
import os
import signal
import sys


def symbols_ok(stream) -> bool:
    """Can ``stream`` print the suit symbols? (Else the commands fall back to S H D C.)"""
    enc = getattr(stream, "encoding", None) or "utf-8"
    try:
        "\u2660\u2665\u2666\u2663".encode(enc)
        return True
    except (UnicodeEncodeError, LookupError):
        return False


class ClosedOutput:
    """Stands for a standard output that was closed when the tool started (its file
    descriptor then holds /dev/null, so that no file the tool opens takes its number):
    writing raises OSError("standard output is closed")."""

    closed = False
    encoding = "utf-8"

    def write(self, text):
        raise OSError(errno.EBADF, "standard output is closed")

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        raise OSError(errno.EBADF, "standard output is closed")


def stdout_closed() -> bool:
    return sys.stdout is None or isinstance(sys.stdout, ClosedOutput) or \
        getattr(sys.stdout, "closed", False)


#: True in a tool's own process (set by :func:`run`): only there may the end of a command
#: ignore SIGINT for good; a caller that runs a command in its own process (CliRunner, a
#: script) keeps its Ctrl-C
_TOOL_PROCESS = False


def interrupted(prog: str, *, newline: bool = True):
    """End the tool after Ctrl-C: one line on stderr (after a line break that ends the
    terminal's ``^C``, unless ``newline`` is False), exit status 130."""
    interrupt_heard()
    if _TOOL_PROCESS:
        _ignore_late_interrupts()
    try:
        sys.stderr.write(f"{chr(10) if newline else ''}{prog}: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    _quiet_stdout()
    sys.exit(130)


def fail(prog: str, err, code: int = 1):
    """End the tool with ``PROG: error: ERR`` on stderr and exit status ``code``."""
    try:
        sys.stderr.write(f"{prog}: error: {err}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    sys.exit(code)


def _quiet_stdout() -> None:
    """Nothing more can reach stdout: point it at /dev/null, so that the interpreter's last
    flush at exit does not print an error of its own."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


#: the exit status after the reader of a pipe has gone: 128 + SIGPIPE, what a shell shows
#: for ``cat`` or ``yes`` killed by the signal there (as 130 is 128 + SIGINT)
CLOSED_PIPE_STATUS = 141


def _stdout_reader_gone() -> bool:
    """Is standard output a pipe (or socket) whose reading end has been closed?  (poll
    says POLLERR or POLLHUP for it; where poll cannot tell, a broken pipe is taken to be
    standard output's.)"""
    try:
        import select
        fd = sys.stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return True


def _output_error(prog: str, e: OSError):
    """End the tool after standard output failed: a pipe whose reader has gone (EPIPE on
    standard output) silently with :data:`CLOSED_PIPE_STATUS`; any other error (a full disk,
    ...) with one line naming it and exit status 1."""
    gone = isinstance(e, BrokenPipeError) and _stdout_reader_gone()
    _quiet_stdout()
    if gone:
        sys.exit(CLOSED_PIPE_STATUS)
    fail(prog, f"cannot write the output: {e.strerror or e}")


def guard_output(prog: str, *, needs_stdout: bool = True):
    """Decorate a command so that its edges behave as the module docstring says: a closed or
    failing standard output (a full disk, ``>&-``) ends it with one line on stderr and exit
    status 1 (``needs_stdout``: refuse a closed one before any work), a pipe whose reader
    has gone silently with exit status 141, Ctrl-C with one line and exit status 130, a
    KrakenError that escaped the command with one line and exit status 1."""
    def deco(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            from kraken_solver.errors import KrakenError
            if needs_stdout and stdout_closed():
                fail(prog, "cannot write the output: standard output is closed")
            try:
                result = f(*args, **kwargs)
                sys.stdout.flush()
                return result
            except KeyboardInterrupt:
                interrupted(prog)
            except KrakenError as err:
                fail(prog, err)
            except OSError as e:
                _output_error(prog, e)
            except Exception as e:
                import click
                # the command's own end (``ctx.exit(130)`` after it reported an interrupt
                # on its own line) is raised while handling that KeyboardInterrupt: it is
                # not a second one to report
                if isinstance(e, click.exceptions.Exit) or not caused_by_interrupt(e):
                    raise
                interrupted(prog)
        return wrapper
    return deco


def caused_by_interrupt(exc: BaseException) -> bool:
    """Is a KeyboardInterrupt behind ``exc`` (its ``__cause__`` or ``__context__``, at any
    depth)?  Python wraps one that comes while a class is being made: a Ctrl-C as Numba's
    modules load gave ``RuntimeError: Error calling __set_name__ on 'cached_property'
    instance ...`` and a traceback, where the user had only pressed Ctrl-C."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _keep_standard_fds() -> None:
    """A standard stream closed by the caller (``>&-``) gets /dev/null on its file
    descriptor, so that a file the tool opens never takes number 0, 1 or 2 (and receives
    what was meant for the terminal); a closed stdout becomes :class:`ClosedOutput`."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, os.O_RDWR)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
            except OSError:
                continue
            if fd == 1:
                sys.stdout = ClosedOutput()
            elif fd == 2:
                sys.stderr = open(os.devnull, "w")


def run(module: str, prog: str, *, fast_exit: bool = False):
    """The console-script entry of tool ``prog``: import ``kraken_solver.cli.MODULE`` and run
    its ``main`` Click command, with Ctrl-C and output errors handled from the first
    instruction on (see the module docstring).

    ``fast_exit``: once the command has returned and stdout and stderr are flushed, end the
    process at once (``os._exit``) with its exit status.  The interpreter's own shutdown tears
    down Numba's and LLVM's loaded code and about 100,000 objects: 0.5 s of a 1.8 s one-deal
    ``kraken-solve`` run.  Only for a tool that writes nothing but stdout and stderr; an
    error, Ctrl-C or a stream that cannot be flushed ends the usual way."""
    global _TOOL_PROCESS
    _TOOL_PROCESS = True
    _keep_standard_fds()
    _interrupt_outside_llvm()
    try:
        code = _run_guarded(module, prog)
    finally:
        _ignore_late_interrupts()
    if fast_exit:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass
        else:
            os._exit(code)
    sys.exit(code)


#: how long a Ctrl-C that came while LLVM called back into Python waits before it is tried again
_RETRY_INTERRUPT_S = 0.02


def _interrupt_outside_llvm() -> None:
    """Ctrl-C as usual (KeyboardInterrupt), except while LLVM has called back into Python
    (llvmlite's callbacks, as Numba loads or compiles the kernels): an exception raised there
    is printed as 'Exception ignored on calling ctypes callback function ... KeyboardInterrupt'
    and dropped, and the run went on to exit 0; and while Numba's modules are imported (a C
    extension of Numba's that fails to import prints the interrupt's traceback itself).  Such a
    Ctrl-C is sent again a moment later, until it comes outside that code.  Not installed where SIGINT is ignored already
    (a tool started with nohup or in a background job keeps ignoring it)."""
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return
    try:
        signal.signal(signal.SIGINT, _on_interrupt)
    except (ValueError, OSError):      # not the main thread
        pass


#: a Ctrl-C raised a KeyboardInterrupt (:func:`_on_interrupt`), and a handler of the tool
#: heard it (:func:`interrupt_heard`)
_INTERRUPT_RAISED = False
_INTERRUPT_HEARD = False


def interrupt_heard() -> None:
    """A handler of the tool has caught the KeyboardInterrupt of a Ctrl-C (see
    :func:`_run_guarded`: one raised but never heard was lost)."""
    global _INTERRUPT_HEARD
    _INTERRUPT_HEARD = True


def report_lost_interrupt(prog: str) -> None:
    """At the end of a run: a Ctrl-C whose KeyboardInterrupt no handler of the tool heard
    (dropped where Python drops exceptions) ends the tool as interrupted (status 130)."""
    if _INTERRUPT_RAISED and not _INTERRUPT_HEARD:
        interrupted(prog)


def _on_interrupt(signum, frame):
    """The SIGINT handler of :func:`_interrupt_outside_llvm`.  A KeyboardInterrupt raised
    inside a weakref callback, an import lock's clean-up or another hook that Python runs
    without a caller is printed as 'Exception ignored' (or dropped) and lost, and the run
    went on to exit 0 as if nothing had been pressed: such a run ends with the interrupted
    line and status 130 (:func:`_run_guarded`)."""
    global _INTERRUPT_RAISED
    f = frame
    while f is not None:
        name = f.f_code.co_filename
        # llvmlite's callbacks, and Numba's modules while they are imported: a C extension
        # of Numba's that fails to import prints the KeyboardInterrupt's traceback itself
        # ("ImportError: numba._devicearray failed to import"), where the user had only
        # pressed Ctrl-C
        if "llvmlite" in name or (f.f_code.co_name == "<module>" and
                                  f"{os.sep}numba{os.sep}" in name):
            import threading
            t = threading.Timer(_RETRY_INTERRUPT_S, os.kill, (os.getpid(), signum))
            t.daemon = True
            t.start()
            return
        f = f.f_back
    _INTERRUPT_RAISED = True
    raise KeyboardInterrupt


def _ignore_late_interrupts() -> None:
    """The work is done and its output written: a Ctrl-C from now on has nothing left to
    stop.  Without this, one that comes while the interpreter tears down Numba's and LLVM's
    loaded code (up to half a second after the last line) killed the process by SIGINT
    (status -2, nothing said) after a complete run: CPython restores the default SIGINT
    action before its last clean-up, unless the signal is ignored.  (``signal`` is imported
    with this module: importing it here took long enough to be interrupted itself.)"""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):      # not the main thread
        pass


def _run_guarded(module: str, prog: str) -> int:
    """Run the command; its exit status (an error or Ctrl-C ends the process from here)."""
    code = 0
    try:
        import importlib

        import click
        try:
            command = importlib.import_module(f"kraken_solver.cli.{module}").main
            code = command.main(prog_name=prog, standalone_mode=False)
        except click.exceptions.Abort:     # Click has ended the line already
            interrupted(prog, newline=False)
        except click.exceptions.Exit as e:
            code = e.exit_code
        except click.exceptions.UsageError as e:
            # one line, as every other bad input (Click's own is three: usage, hint, error)
            message = " ".join(e.format_message().split())
            message = message[:-1] if message.endswith(".") else message
            sys.stderr.write(f"{prog}: error: {message} (see {prog} --help)\n")
            code = e.exit_code
        except click.exceptions.ClickException as e:
            e.show()
            code = e.exit_code
        except SystemExit:
            # Click itself ends with status 1 after EPIPE (--help or --version to a pipe
            # whose reader has gone), having wrapped stdout in its _PacifyFlushWrapper
            if type(sys.stdout).__name__.endswith("PacifyFlushWrapper") and \
                    _stdout_reader_gone():
                _quiet_stdout()
                code = CLOSED_PIPE_STATUS
            else:
                raise
        if sys.stdout is not None:
            sys.stdout.flush()
        _ignore_late_interrupts()      # inside the try: a Ctrl-C just before it is caught
        report_lost_interrupt(prog)
    except KeyboardInterrupt:
        interrupted(prog)
    except OSError as e:        # --help or --version to a full or closed stdout
        _output_error(prog, e)
    except Exception as e:      # a Ctrl-C that Python wrapped (``caused_by_interrupt``)
        if not caused_by_interrupt(e):
            raise
        interrupted(prog)
    return code if isinstance(code, int) and not isinstance(code, bool) else 0


def kraken_solve():
    run("solve", "kraken-solve", fast_exit=True)


def kraken_analyse():
    run("analyse", "kraken-analyse")


def kraken_batch():
    run("batch", "kraken-batch")


def kraken_advise():
    run("advise", "kraken-advise")


def kraken_bench():
    run("bench", "kraken-bench")


def kraken_hint():
    run("hint", "kraken-hint")


def kraken_view():
    run("view", "kraken-view")


def kraken_deal():
    run("deal", "kraken-deal")


def kraken_arena():
    run("arena", "kraken-arena")


def __getattr__(name):
    # the Click parameter types live in .params (importing click); exported here lazily
    if name in ("AsciiChoice", "AsciiInt"):
        from . import params
        return getattr(params, name)
    raise AttributeError(name)


#: the help of every command's ``--rules`` option
RULES_HELP = ("Rules: a preset (kraken, kraken-amsterdam, klaverjas-rotterdam, "
              "klaverjas-amsterdam), optionally followed by +option=value parts, e.g. "
              "kraken+multiplier=2 or klaverjas-rotterdam+trick_roem=false (options: "
              "trump_rule, undertrump, trick_roem, hand_roem, double_spades, multiplier, "
              "pit_bonus, long_runs_100); every rules name the tools print reads back.")


def rules_option(text):
    """The Rules of a ``--rules`` option's text (a rules spec, ``kraken+multiplier=2``;
    ``None`` stays ``None``).  Raises KrakenError (a RulesError) whose message starts with
    ``--rules:`` and lists what is allowed, for the command's one-line error."""
    if text is None:
        return None
    from kraken_solver.errors import KrakenError
    from kraken_solver.game.rules import as_rules
    try:
        return as_rules(text)
    except KrakenError as err:
        raise err.located(source="--rules") from None


def first_run_notice(prog: str):
    """A context manager: inside it, the first time Numba starts compiling (a cache miss:
    the first run), print ``PROG: first run: compiling the search kernels, about a minute
    ...`` on stderr, once (:func:`kraken_solver.engine.kernel_cache.compile_notice`).  A command
    wraps its whole run in it (reading the input, which may compile the legality kernels,
    loading the kernels, solving), so the notice comes once, when the first compile starts."""
    import click

    from kraken_solver.engine.kernel_cache import FIRST_RUN_MESSAGE, compile_notice
    return compile_notice(lambda: click.echo(f"{prog}: {FIRST_RUN_MESSAGE}", err=True))


def command_line(ctx, prog: str) -> list[str]:
    """The command ``prog`` as given, rebuilt from the parsed options of Click context
    ``ctx`` (works under any caller: a sidecar records it)."""
    import click

    words = [prog]
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name not in ctx.params:
            continue
        value = ctx.params[param.name]
        if value is None or value is False:
            continue
        flag = max(param.opts, key=len)
        if value is True:
            words.append(flag)
        elif isinstance(value, tuple):          # a repeatable option: each value
            for v in value:
                words += [flag, str(v)]
        else:
            words += [flag, str(value)]
    return words


def command_fail(ctx, prog: str, err) -> None:
    """End a Click command with ``PROG: error: ERR`` on stderr, exit status 1."""
    import click

    click.echo(f"{prog}: error: {err}", err=True)
    ctx.exit(1)


def stderr_log(prog: str, quiet: bool):
    """A ``log(line)`` for a long run: ``PROG: line`` on stderr, nothing with ``quiet``."""
    import click

    def log(line):
        if not quiet:
            click.echo(f"{prog}: {line}", err=True)
    return log


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def run_keeping_parts(ctx, prog: str, run, parts_dir: str | None, unit: str):
    """Run ``run()``, a long run that keeps its finished part files in ``parts_dir`` (the
    batch store), and return its result: SIGTERM acts as Ctrl-C; the first-run notice;
    a KrakenError ends the command with one line (status 1); an interrupt says whether
    finished ``unit``\\ s are kept for ``--resume``, or, without a ``parts_dir`` (no
    ``--out``), that nothing played was kept (status 130)."""
    import os
    import signal

    import click

    from kraken_solver.errors import KrakenError
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        with first_run_notice(prog):    # the local pool loads the kernels in this process
            return run()
    except KrakenError as err:
        command_fail(ctx, prog, err)
    except KeyboardInterrupt:
        interrupt_heard()
        done = bool(parts_dir) and os.path.isdir(parts_dir) and any(
            n.startswith("chunk-") for n in os.listdir(parts_dir))
        if done:
            say = (f"finished {unit}s are kept in {parts_dir}/: run the same command with "
                   "--resume to finish")
        elif parts_dir is None:
            say = (f"nothing was kept: without --out the {unit}s played are not saved (give "
                   "--out FILE to keep them and --resume to go on after an interrupt)")
        else:
            say = f"no {unit} was finished"
        click.echo(f"\n{prog}: interrupted; {say}", err=True)
        ctx.exit(130)
    finally:
        signal.signal(signal.SIGTERM, old_term)
