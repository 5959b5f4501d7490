"""Every table of a match as a PBN deal with its play: ``kraken-arena --records FILE.pbn``.

Each table is one deal of the deal-file format (:mod:`kraken_solver.notation.dealfile`), so
``kraken-analyse`` and ``kraken-analyse --view player`` review it as it is: ``[Deal]``,
``[Trump]``, ``[First]``, ``[Rules]`` and the ``[Play]`` section (one trick a line), with
PBN's informational tags: ``[Event]`` (the match), ``[Board]`` (deal_id + 1), ``[Room]``
(``open`` for table 0, ``closed`` for table 1, as duplicate bridge names them), ``[North]``
.. ``[West]`` (the bots), ``[Generator]`` (the version and commit) and ``[Description]``
(the scores, made/nat/pit and the double-dummy score).
"""

from __future__ import annotations

from ..notation.outputs import write_text

__all__ = ["records_text", "write_records"]


def _quote(text) -> str:
    return str(text).replace('"', "'")


def records_text(df, *, event: str, generator: str) -> str:
    """The PBN text of the match's rows (a DataFrame of the match columns)."""
    out = []
    for row in df.itertuples(index=False):
        seats = {"North": row.ns_bot, "South": row.ns_bot, "East": row.ew_bot,
                 "West": row.ew_bot}
        result = "pit" if row.pit else ("made" if row.made else "nat")
        desc = (f"N-S {row.ns_score}, E-W {row.ew_score} ({row.first}'s team {result}); "
                f"points N-S {row.ns_points}, E-W {row.ew_points}; double dummy "
                f"{row.dd_score}" + (f"; trump by {row.trump_bot}" if row.trump_bot else ""))
        out.append(f'[Event "{_quote(event)}"]')
        out.append(f'[Board "{int(row.deal_id) + 1}"]')
        out.append(f'[Room "{"open" if int(row.table) == 0 else "closed"}"]')
        out += [f'[{k} "{_quote(v)}"]' for k, v in seats.items()]
        out.append(f'[Generator "{_quote(generator)}"]')
        out.append(f'[Description "{_quote(desc)}"]')
        out.append(f'[Deal "{row.deal}"]')
        out.append(f'[Trump "{row.trump}"]')
        out.append(f'[First "{row.first}"]')
        out.append(f'[Rules "{row.rules}"]')
        out.append(f'[Play "{row.first}"]')
        cards = str(row.play).split(" ")
        out += [" ".join(cards[i:i + 4]) for i in range(0, len(cards), 4)]
        out.append("")
    return "\n".join(out)


def write_records(path, df, *, event: str, generator: str, inputs=()) -> str:
    """Write the records (atomically, never over an input).  Raises OutputError."""
    return write_text(path, records_text(df, event=event, generator=generator),
                      what="the records", inputs=inputs)
