"""``kraken-view [FILE]``: explore a deal in the browser, every legal card marked with its value.

Starts a web server (waitress, with the limits of :mod:`kraken_solver.view.server`) on
127.0.0.1 (a free port, or ``--port``) over the double-dummy solver,
prints its address on stdout and opens the browser (unless ``--no-browser``); Ctrl-C stops it
(``kraken-view: stopped``, exit status 130, as the other tools end on Ctrl-C).  FILE is a deal
file as ``kraken-solve`` reads it; several deals give a list to pick from.  Without FILE the
table is empty, to deal into (or ``--random SEED`` deals deal 0 of ``kraken-batch --seed
SEED``).  A toggle on the page shows the player's-view hint (``kraken-hint``) of the player to
move instead of the double-dummy values.  ``--export page.html`` writes one self-contained page
instead (no server, no network): the deals and the values along the line played, continued by the
best line.

Bad input gives one line ``kraken-view: error: ...`` and exit status 1.  The page and its API
are in :mod:`kraken_solver.view`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

import click

from kraken_solver import __version__
from kraken_solver.cli import first_run_notice, interrupt_heard
from kraken_solver.cli.params import AsciiChoice, AsciiInt
from kraken_solver.errors import KrakenError
from kraken_solver.game.cards import SEATS
from kraken_solver.limits import MAX_SEED

PROG = "kraken-view"


def _say(text: str) -> None:
    click.echo(f"{PROG}: {text}", err=True)


def random_spec(seed: int, *, trump=None, first=None, rules=None):
    """Deal 0 of ``kraken-batch --seed SEED`` (``SeedSequence(seed)``), first player N unless
    ``first`` says otherwise, as a DealSpec."""
    from kraken_solver.dealing.seeded import generate_deals
    from kraken_solver.game.cards import as_seat, as_suit
    from kraken_solver.game.rules import Rules
    from kraken_solver.notation.dealfile import DealSpec
    deal = generate_deals(seed, 0, 1)[0]
    return DealSpec(deal=deal, trump=None if trump is None else as_suit(trump),
                    first=0 if first is None else as_seat(first),
                    rules=rules if rules is not None else Rules(), source=f"--random {seed}")


def open_browser(url: str) -> str | None:
    """Open ``url`` in the user's browser from a thread of its own; returns a note to print
    when there is no display to open it on."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY")
                                                 or os.environ.get("WAYLAND_DISPLAY")):
        return "no display here: open the address in a browser"
    import webbrowser
    threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    return None


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--random", "seed", type=AsciiInt(0, MAX_SEED), metavar="SEED",
              help="Deal a random deal (deal 0 of kraken-batch --seed SEED) instead of a FILE.")
@click.option("--port", type=AsciiInt(0, 65535), default=0, show_default=True,
              help="The port on 127.0.0.1 (0: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the address only; open no browser.")
@click.option("--export", "export", type=click.Path(dir_okay=False), metavar="PAGE.html",
              help="Write one self-contained page (no server, no network) with the values "
                   "along the line played (then the best line), and stop.")
@click.option("--trump", type=AsciiChoice(list("SHDC")),
              help="Trump suit for every deal (overrides the file).")
@click.option("--first", type=AsciiChoice(list(SEATS)),
              help="First player for every deal (overrides the file).")
@click.option("--rules", "rules_text", metavar="RULES",
              help="Rules for every deal (a preset such as kraken or klaverjas-rotterdam; "
                   "overrides [Rules], [Double] still applies).")
@click.option("--quiet", is_flag=True, help="No line on stderr for each search.")
@click.option("--idle-timeout", "idle_timeout", type=AsciiInt(1, 60), default=None,
              hidden=True, help="Seconds after which an idle connection is closed (30).")
@click.version_option(__version__, prog_name=PROG)
@click.pass_context
def main(ctx, file, seed, port, no_browser, export, trump, first, rules_text, quiet,
         idle_timeout):
    """Explore the deals of FILE in the browser: the four hands, the trick on the table, the
    score sheet, the trump table, and the double-dummy value of every legal card of the
    player to move (score with made/nat, or points), or on a toggle the player's view (the
    mean over the layouts that player cannot tell apart, and P(made), as kraken-hint).
    Click a card to play it; undo, redo, jump to any card, play the best line; paste or
    deal a new deal.

    Without FILE the table is empty (deal into it on the page), or --random SEED deals one.
    The address of the page encodes the position: a copied link shows it again.
    """
    notice = contextlib.ExitStack()
    t_start = time.perf_counter()     # --export times the whole command
    try:
        if file is not None and seed is not None:
            raise click.UsageError("give a FILE or --random SEED, not both")
        if export is not None and file is None and seed is None:
            raise click.UsageError("--export needs deals: give a FILE or --random SEED")
        if export is not None:
            # a page written to a file has no server: --port and --no-browser would be ignored
            given = [f"--{n.replace('_', '-')}" for n in ("port", "no_browser")
                     if ctx.get_parameter_source(n) == click.core.ParameterSource.COMMANDLINE]
            if given:
                raise click.UsageError(f"{' and '.join(given)} "
                                       f"{'apply' if len(given) > 1 else 'applies'} to the "
                                       "server, not to --export (a page written to a file)")
        from kraken_solver.game.rules import as_rules
        from kraken_solver.notation.outputs import check_output, write_text
        from kraken_solver.notation.reader import DealReader
        from kraken_solver.view.app import create_app
        from kraken_solver.view.page import MAX_DEALS, MAX_EXPORT_DEALS, deal_entry, export_page
        from kraken_solver.view.server import CHANNEL_TIMEOUT_S, make_server, run_until_stopped
        from kraken_solver.view.session import BoardSolver
        rules = None
        if rules_text is not None:
            try:
                rules = as_rules(rules_text)
            except KrakenError as e:
                raise KrakenError(e.message, source="--rules", token=e.token) from None
        if export is not None:
            check_output(export, what="the --export page", inputs=[file])
        # the first-run notice, once, if reading the file or loading the kernels compiles
        notice.enter_context(first_run_notice(PROG))
        specs = []
        source = None if file is None else ("<stdin>" if file == "-" else file)
        limit = MAX_EXPORT_DEALS if export is not None else MAX_DEALS
        if file is not None:
            # read no further than the deal past the limit: a file of a million deals was
            # read whole (1.4 GB, 38 s) before it was refused
            for spec in DealReader(file, trump=trump, first=first, rules=rules):
                specs.append(spec)
                if len(specs) > limit:
                    what = "an exported page holds" if export is not None else "the page lists"
                    raise KrakenError(f"more than {limit} deals: {what} at most {limit} "
                                      "(split the file)", source=source)
        elif seed is not None:
            specs = [random_spec(seed, trump=trump, first=first, rules=rules)]
        solver = BoardSolver()
        server = None
        if export is None:      # the port first: a port in use is said before the wait
            entries = [deal_entry(s, i) for i, s in enumerate(specs)]
            app = create_app(entries, source=source, solver=solver,
                                    log=None if quiet else _say)
            server = make_server(app, port, channel_timeout=idle_timeout or CHANNEL_TIMEOUT_S)
        t0 = time.perf_counter()
        with notice:
            solver.warm()
        _say(f"solver ready in {time.perf_counter() - t0:.1f} s")
        if export is not None:
            from tqdm import tqdm
            t1 = time.perf_counter()
            bar = tqdm(total=sum(4 * s.deal.size + 1 for s in specs), unit="position",
                       file=sys.stderr, disable=quiet or not sys.stderr.isatty(),
                       desc=PROG)
            html = export_page(specs, solver, source=source,
                                      progress=lambda done, total: bar.update(1))
            bar.close()
            write_text(export, html, what="the --export page", inputs=[file])
            click.echo(f"{PROG}: wrote {export} ({len(specs)} deal"
                       f"{'s' if len(specs) != 1 else ''}, {len(html) / 1024:.0f} KiB) in "
                       f"{time.perf_counter() - t_start:.1f} s (every position solved in "
                       f"{time.perf_counter() - t1:.1f} s)", err=True)
            return
        url = f"http://127.0.0.1:{server.effective_port}/"
        click.echo(f"{PROG}: serving {url}  (Ctrl-C stops)")
        sys.stdout.flush()
        if not no_browser:
            note = open_browser(url)
            if note:
                _say(note)
        # Ctrl-C and SIGTERM stop the server, also when it was started with SIGINT ignored
        # (a job in the background of a script)
        got = {}
        server_pid = os.getpid()

        def stop(signum, _frame):
            if os.getpid() != server_pid:
                # a hint's worker process forked from a thread, before it set its own
                # handlers: the pool's terminate (SIGTERM) ends it as the default would
                os._exit(128 + signum)
            if not got:             # the first signal stops; the stop itself takes seconds
                got["signum"] = signum
                raise KeyboardInterrupt
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        # returns on Ctrl-C or SIGTERM, after the hints still running are cancelled (their
        # clients answered, their worker processes stopped) and the connections closed
        run_until_stopped(server, solver.close)
        _say("stopped")
        ctx.exit(128 + got.get("signum", signal.SIGINT))
    except KrakenError as err:
        click.echo(f"{PROG}: error: {err}", err=True)
        ctx.exit(1)
    except KeyboardInterrupt:
        interrupt_heard()
        click.echo(f"\n{PROG}: interrupted", err=True)
        ctx.exit(130)
    finally:
        notice.close()


if __name__ == "__main__":  # pragma: no cover
    main()
