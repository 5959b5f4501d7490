"""Reading a deal file from disk: bounded, streamed, and the same bytes every time.

:func:`parse_deal_file` reads a whole file into :class:`~kraken_solver.notation.dealfile.DealSpec`
records; :class:`DealReader` streams one, a block of :data:`READ_BLOCK` bytes at a time, for
``kraken-batch`` (whose input may hold millions of deals), and records the SHA-256 of exactly
the bytes read, so a later reading that differs is caught (a file changed under a run).  The
format is :mod:`kraken_solver.notation.dealfile`'s.  A file is UTF-8 text (a byte-order mark
is skipped) of at most 64 MiB (:data:`MAX_FILE_BYTES`); a file that is not text, too long, or
cannot be read is one
:class:`~kraken_solver.errors.DealFileError` naming the path, never a traceback.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat

from ..errors import DealFileError
from .dealfile import MAX_LINE_CHARS, DealSpec, line_too_long, parse_lines


def parse_deal_file(path, *, trump=None, first=None, rules=None, hidden: bool = False
                    ) -> list[DealSpec]:
    """Read a deal file (UTF-8 text) -> the list of its deals; ``path`` ``"-"`` reads standard
    input.  The deals of :class:`DealReader` (its overrides, ``hidden`` and errors), all at
    once: for a large file iterate a DealReader instead, which holds one deal at a time."""
    return list(DealReader(path, trump=trump, first=first, rules=rules, hidden=hidden))


#: the largest deal file read, in bytes (64 MiB: hundreds of thousands of deals)
MAX_FILE_BYTES = 64 * 1024 * 1024
#: bytes read from a deal file at a time
READ_BLOCK = 1 << 16
#: what :meth:`DealReader.check_ahead` reads and checks before the first deal is used
LOOKAHEAD_BYTES = 1 << 20
_EOL = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


class DealReader:
    """The deals of a deal file, read as a stream: one :class:`DealSpec` at a time, so the
    memory stays that of one deal (and a block of the file) however large the file is.

    ``path``: a file name, or ``"-"`` for standard input (read as bytes and decoded as UTF-8
    whatever the locale; named ``<stdin>`` in errors).  ``trump``, ``first``, ``rules``: the
    overrides of :func:`parse_deal_text`, and its ``hidden`` (hands written ``-`` allowed, for
    ``kraken-hint``).  ``check``: a function called with each DealSpec
    before it is given out (it raises KrakenError for a deal the caller cannot use, e.g. one
    with played cards).  ``name``: the file's name in errors (default: ``path``; a caller
    that reads an absolute path names the file as the user gave it).

    Iterating gives the deals in file order and may be done once.  Afterwards ``deals`` is
    their number, ``bytes_read`` the bytes read and ``sha256`` the SHA-256 (hex) of exactly
    those bytes.  :meth:`check_ahead` reads and checks the start of the file before the first
    deal is used, so that a mistake in a small file is reported before any work is done.

    Errors (raised while iterating; each a KrakenError with ``source``, ``line``, ``column``
    and ``token``): those of :func:`parse_deal_text` and of ``check``; DealFileError for a
    file that cannot be read (missing, a directory), is not UTF-8 text (a byte that is not
    UTF-8 or a NUL byte: its line and column, and its byte in the file), is larger than
    :data:`MAX_FILE_BYTES` (64 MiB; refused before reading when the file says its size), or
    has a line longer than :data:`MAX_LINE_CHARS` characters.  Both limits are far above any
    real deal file: they keep a wrong path such as ``/dev/zero`` from running without end."""

    def __init__(self, path, *, trump=None, first=None, rules=None, hidden: bool = False,
                 check=None, name: str | None = None):
        self.path = os.fspath(path)
        self.name = name or ("<stdin>" if self.path == "-" else self.path)
        self.overrides = {"trump": trump, "first": first, "rules": rules, "hidden": hidden}
        self.check = check
        self.deals = 0
        self.bytes_read = 0
        self.sha256 = None
        self._hash = hashlib.sha256()
        self._ahead = None          # bytes read and checked by check_ahead, to be parsed again
        self.ahead_deals = 0        # the deals check_ahead found (all of them if the file is small)
        self._stream = None
        self._started = False

    # -- reading bytes
    def _open(self):
        name = self.name
        try:
            if self.path == "-":
                import sys
                if sys.stdin is None:
                    raise DealFileError("cannot read the file: standard input is closed",
                                        source=name)
                stream = getattr(sys.stdin, "buffer", None)
                if stream is None:      # a text stream without bytes below it (a StringIO)
                    return _TextAsBytes(sys.stdin)
                return stream
            f = open(self.path, "rb")
        except OSError as e:
            raise DealFileError(f"cannot read the file: {e.strerror or e}",
                                source=name) from None
        try:
            st = os.fstat(f.fileno())
        except OSError:
            st = None
        if st is not None and stat.S_ISREG(st.st_mode) and st.st_size > MAX_FILE_BYTES:
            f.close()
            raise self._too_large()
        return f

    def _too_large(self) -> DealFileError:
        return DealFileError(f"the file is larger than {MAX_FILE_BYTES // 2**20} MiB; a deal "
                             "file is at most that (split it into smaller files)",
                             source=self.name)

    def _read(self, n: int) -> bytes:
        if self._stream is None:
            self._stream = self._open()
        try:
            read = getattr(self._stream, "read1", None) or self._stream.read
            data = read(n)
        except OSError as e:
            raise DealFileError(f"cannot read the file: {e.strerror or e}",
                                source=self.name) from None
        if data:
            self.bytes_read += len(data)
            if self.bytes_read > MAX_FILE_BYTES:
                raise self._too_large()
            self._hash.update(data)
        return data

    def close(self) -> None:
        """Close the file (standard input stays open)."""
        stream, self._stream = self._stream, None
        if stream is not None and self.path != "-":
            try:
                stream.close()
            except OSError:
                pass

    def _lines(self, blocks):
        """(line number, text) of every line of the bytes ``blocks`` yields, decoded and
        checked (UTF-8, no NUL, not too long), lines ending at \\n, \\r\\n or \\r."""
        buf = b""
        offset = 0                  # the file's byte offset of buf[0]
        lineno = 0
        eof = False
        it = iter(blocks)
        while not eof:
            block = next(it, b"")
            if block:
                buf += block
            else:
                eof = True
            start = 0
            while True:
                m = _EOL.search(buf, start)
                if m is None or (not eof and m.end() == len(buf) and m.group() == b"\r"):
                    break           # no whole line left (a \r may be the first half of \r\n)
                lineno += 1
                yield lineno, self._decode(buf[start:m.start()], offset + start, lineno)
                start = m.end()
            if start:
                buf = buf[start:]
                offset += start
            if len(buf) > 4 * MAX_LINE_CHARS + 4:       # surely too long: say so now
                text = self._decode(buf, offset, lineno + 1, partial=True)
                raise line_too_long(text, self.name, lineno + 1)
        if buf:
            lineno += 1
            yield lineno, self._decode(buf, offset, lineno)

    def _decode(self, data: bytes, offset: int, lineno: int, partial: bool = False) -> str:
        skip = 3 if offset == 0 and data.startswith(_BOM) else 0
        bad = data.find(b"\x00")
        try:
            text = data[skip:].decode("utf-8")
            if bad < 0:
                return text
            why = "a NUL byte"
        except UnicodeDecodeError as e:
            if partial and e.start >= len(data) - skip - 3 and e.reason == "unexpected end of data":
                return data[skip:e.start + skip].decode("utf-8")   # cut inside a character
            if bad < 0 or e.start + skip < bad:
                bad = e.start + skip
                why = f"byte 0x{data[bad]:02X} is not UTF-8"
            else:
                why = "a NUL byte"
        column = len(data[skip:bad].decode("utf-8", "replace")) + 1
        raise DealFileError(f"not a UTF-8 text file ({why}; byte {offset + bad + 1} of the "
                            "file)", source=self.name, line=lineno, column=column)

    def _blocks(self):
        if self._ahead is not None:
            data, self._ahead = self._ahead, None
            yield data
        while True:
            data = self._read(READ_BLOCK)
            if not data:
                return
            yield data

    # -- deals
    def check_ahead(self, limit: int | None = None) -> None:
        """Read up to ``limit`` bytes (default :data:`LOOKAHEAD_BYTES`; the whole file if it
        is smaller) and check every deal in them, before the first one is used; they are
        parsed again when iterating.  Raises the errors of the reader for the deals in that
        part of the file."""
        if limit is None:
            limit = LOOKAHEAD_BYTES
        if self._started or self._ahead is not None:
            raise RuntimeError("check_ahead comes before iterating, once")
        chunks, n = [], 0
        while n < limit:
            data = self._read(min(READ_BLOCK, limit - n))
            if not data:
                break
            chunks.append(data)
            n += len(data)
        self._ahead = data = b"".join(chunks)
        complete = n < limit            # the whole file is in memory
        if not complete:                # only whole lines: the last one may be cut
            cut = max(data.rfind(b"\n"), data.rfind(b"\r"))
            data = data[:cut + 1] if cut >= 0 else b""
        lines = self._lines([data])
        specs = parse_lines(lines, self.name, **self.overrides)
        try:
            for spec in specs:
                if self.check is not None:
                    self.check(spec)
                self.ahead_deals += 1
        except DealFileError as e:
            if not complete and e.message.startswith("no deal in this file"):
                return
            raise
        finally:
            specs.close()

    def __iter__(self):
        if self._started:
            raise RuntimeError("a DealReader is read once")
        self._started = True
        try:
            for spec in parse_lines(self._lines(self._blocks()), self.name,
                                     **self.overrides):
                if self.check is not None:
                    self.check(spec)
                self.deals += 1
                yield spec
            self.sha256 = self._hash.hexdigest()
        finally:
            self.close()


class _TextAsBytes:
    """A text stream (``io.StringIO`` as standard input) read as UTF-8 bytes."""

    def __init__(self, stream):
        self.stream = stream

    def read(self, n: int) -> bytes:
        data = self.stream.read(n)
        return data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
