"""Files the tools write for the user: one policy, in one place, for every command.

Every file a command writes (a batch output and its sidecar, a report, a table, a plot, a
page) is the user's data.  This module decides once what may be written and how:

- **Where.**  The path is resolved through symbolic links (:func:`os.path.realpath`): a link
  to a file is written *through*, on purpose (the file it points to is replaced; the link
  stays a link; ``latest.csv -> runs/2026-12-03.csv``), but only to a file of the link's own
  kind: its name must end as the link's does (the same extension, ``.meta.json`` for a
  sidecar), so that a link made for something else (``out.csv`` to a sidecar, ``page.html``
  to a deal file, a plot's name to a CSV) is refused rather than followed over another file.
  What the path resolves to must be a regular file or a new name in an existing directory.
  Anything else (a directory, a device such as ``/dev/null``, a named pipe, a socket, an empty name,
  ``-``, a link such as ``/dev/stdout`` that names an open file descriptor rather than a file) is
  refused before any work is done, and so is a folder where no file can be made (``/proc``,
  ``/sys``, a read-only mount: a temporary file is made and removed there to find out) or a file
  marked immutable or append-only (``chattr +i``, ``+a``: it cannot be replaced).
- **Not a folder, not a run's store.**  A name that ends in ``/`` (``newfile/``) means a
  folder: refused (``--out: expected a file name, not a folder: newfile/``), even where no
  such folder exists.  A run's sidecar (``OUT.meta.json``) and its work directory
  (``OUT.parts/``) are written by that run only (``own_store=True``): any other output named
  ``*.meta.json`` (this run's sidecar, another run's, or a name that would later be one) or
  made in a run's work directory is refused, so that a ``--records`` or an ``--out`` cannot
  replace a sidecar and leave ``--resume`` a damaged one.
- **Never over an input.**  The caller names the files it reads (``inputs``); an output that
  is one of them (same file by inode, or same resolved path) is refused, and so are two
  outputs of one command that are the same file.
- **Atomically.**  The data goes to a temporary file in the target's own directory (so the
  rename stays on one file system), is flushed and ``fsync``-ed, and is renamed over the target
  (:func:`os.replace`), and the directory is ``fsync``-ed.  A full disk, an error or Ctrl-C
  leaves the earlier file exactly as it was and no temporary file behind; a ``kill -9`` can
  leave a temporary file (``.NAME.XXXXXXXX.tmp``, never the target), which
  :func:`remove_temporaries` clears.  A new file gets the mode a plain ``open`` would give
  (``0o666`` less the umask); a replaced file keeps its mode.

Every refusal or failure is an :class:`OutputError` (a :class:`~kraken_solver.errors.KrakenError`)
whose ``source`` is the path the user gave (none for a folder's name such as ``newfile/``: that
message names the option and the path itself) and whose message says what it is and what was
expected, e.g. ``results.csv: cannot write the output: No space left on device``.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile

from ..errors import KrakenError

__all__ = ["OutputError", "check_output", "check_outputs", "atomic_open", "write_bytes",
           "write_text", "save_figure", "make_output_dir", "file_kind", "temporaries",
           "remove_temporaries"]


class OutputError(KrakenError):
    """An output file that must not or cannot be written (see the module docstring)."""


def file_kind(mode: int) -> str:
    """What an ``os.stat`` mode is, in words: ``"a directory"``, ``"a named pipe"``, ..."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "a special file"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _same(a: str, b: str) -> bool:
    """Do ``a`` and ``b`` name one file: the same inode when both exist, else the same
    resolved path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _resolve(path: str, what: str) -> str:
    """``os.path.realpath(path)``, checked: when the kernel finds a file at ``path`` (following
    its links) it must be the file at the resolved path.  A link that names an open file
    descriptor (``/dev/stdout``, ``/proc/self/fd/1``: its text is ``pipe:[...]`` or a file
    that is gone) is not a file to write through: OutputError."""
    target = os.path.realpath(path)
    try:
        here = os.stat(path)
    except OSError:
        return target               # a new name (or a dangling link to one)
    try:
        there = os.stat(target)
    except OSError:
        there = None
    if there is None or not os.path.samestat(here, there):
        raise OutputError(f"{what} must be a file with a name; this is a link to an open file "
                          f"descriptor ({file_kind(here.st_mode)}), as /dev/stdout is: give a "
                          "file name", source=path)
    return target


#: how a run's sidecar is named: ``OUT`` + this (:func:`kraken_solver.batch.config.paths_for`)
SIDECAR_SUFFIX = ".meta.json"
#: how a run's work directory is named (``OUT`` + this), and its running sidecar in it
WORK_DIR_SUFFIX, RUN_META_NAME = ".parts", "run.meta.json"


def _is_work_dir(folder: str) -> bool:
    """Is ``folder`` (resolved) a run's work directory: named ``*.parts`` and holding the
    running sidecar ``run.meta.json``?"""
    return (os.path.basename(folder).lower().endswith(WORK_DIR_SUFFIX)
            and os.path.lexists(os.path.join(folder, RUN_META_NAME)))


def _kind(name: str) -> str:
    """What a file name says its file is: ``.meta.json`` for a batch sidecar, else its last
    extension (lower case; ``""`` for none)."""
    name = name.lower()
    if name.endswith(".meta.json"):
        return ".meta.json"
    return os.path.splitext(name)[1]


def check_output(path, *, what: str = "the output", inputs=(), probe: bool = True,
                 own_store: bool = False) -> str:
    """Check that ``path`` may be written (module docstring) and return the resolved path the
    data will be renamed onto.  Changes nothing (but a temporary file made and removed in
    the target's folder, to learn that files can be made there; ``probe=False`` leaves that
    out, for a caller that makes its own temporary file there next).

    ``inputs``: paths the command reads (``None`` and ``"-"`` are skipped).  Raises
    OutputError (``source`` = ``path``) for an empty name or ``-``, a path that resolves to
    anything but a regular file or a new name, a missing or non-directory parent, a directory
    that cannot be written (also where permissions allow it but no file can be made), a file
    that cannot be replaced (immutable or append-only), a link to a file of another kind (its
    name ends otherwise than the link's: ``_kind``), or an output that is one of
    ``inputs``; also (the message naming ``what`` and the path, without a ``source``) a name
    that ends in a path separator or is ``.`` or ``..`` (a folder: ``newfile/``).

    A run's store (:mod:`kraken_solver.batch.store`: its sidecar ``OUT.meta.json``, its work
    directory ``OUT.parts/``) is written only by the run itself (``own_store=True``): any
    other output whose name ends in ``.meta.json`` (a sidecar's name, in any case) or whose
    folder is a run's work directory (named ``*.parts``, holding ``run.meta.json``) is
    refused."""
    if path is None or not isinstance(path, (str, os.PathLike)):
        raise OutputError(f"{what} must be a file name", token=repr(path))
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if path.strip() == "":
        raise OutputError(f"{what} must be a file name, not an empty one", token=repr(path))
    if path == "-":
        raise OutputError(f"{what} is written to a file; '-' (standard output) is not one "
                          "here: give a file name", source=path)
    if os.path.basename(path) in ("", ".", "..") or (os.altsep and path.endswith(os.altsep)):
        raise OutputError(f"{what}: expected a file name, not a folder: {path}")
    if not own_store and _kind(os.path.basename(os.path.abspath(path))) == SIDECAR_SUFFIX:
        raise OutputError(f"{what} must not be named *{SIDECAR_SUFFIX}: that is the name of a "
                          f"run's sidecar (kraken-batch and kraken-arena keep OUT{SIDECAR_SUFFIX}"
                          " beside each output, and --resume reads it); give a name that does "
                          f"not end in {SIDECAR_SUFFIX}", source=path)
    target = _resolve(path, what)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise OutputError(f"{what} cannot be used: {e.strerror or e}", source=path) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        via = f" (through a link to {target})" if target != os.path.abspath(path) else ""
        raise OutputError(f"{what} must be a regular file or a new file name, and this is "
                          f"{file_kind(st.st_mode)}{via}: give another name", source=path)
    given, found = os.path.basename(os.path.abspath(path)), os.path.basename(target)
    if given != found and _kind(given) != _kind(found):
        def said(k):
            return f"'{k}'" if k else "no extension"
        raise OutputError(f"{what} is a link to {target}, a file of another kind ("
                          f"{said(_kind(found))}, where the link's name has "
                          f"{said(_kind(given))}): writing through it would replace that file; "
                          f"a link is written through only to a file whose name ends as its "
                          f"own: give the file itself or another name", source=path)
    parent = os.path.dirname(target) or os.curdir
    try:
        pst = os.stat(parent)
    except OSError as e:
        raise OutputError(f"{what}'s folder cannot be used: {e.strerror or e}",
                          source=path, token=parent) from None
    if not stat.S_ISDIR(pst.st_mode):
        raise OutputError(f"{what}'s folder is {file_kind(pst.st_mode)}, not a folder",
                          source=path, token=parent)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{what}'s folder cannot be written", source=path, token=parent)
    if not own_store and _is_work_dir(parent):
        raise OutputError(f"{what} is in {parent}, the work directory of an unfinished run (it "
                          "holds the run's part files and its running sidecar "
                          f"{RUN_META_NAME}; the run removes it when done): give a name "
                          "outside it", source=path)
    if st is not None and _file_flags(target) & (_IMMUTABLE | _APPEND_ONLY):
        raise OutputError(f"{what} is marked immutable or append-only (chattr): it cannot be "
                          "replaced; give another name", source=path)
    if probe:
        _probe_folder(parent, os.path.basename(target), what, path)
    for inp in inputs or ():
        if inp is None or os.fspath(inp) in ("", "-"):
            continue
        if _same(path, os.fspath(inp)):
            raise OutputError(f"{what} is an input of this command ({os.fspath(inp)}); it "
                              "would be overwritten: give another name", source=path)
    return target


_IMMUTABLE, _APPEND_ONLY = 0x10, 0x20      # FS_IMMUTABLE_FL, FS_APPEND_FL (linux/fs.h)
_FS_IOC_GETFLAGS = 0x80086601


def _file_flags(path: str) -> int:
    """The file's Linux inode flags (``lsattr``), 0 where they cannot be read (another
    system, a file system without them)."""
    try:
        import fcntl
        import struct
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (ImportError, OSError):
        return 0
    try:
        buf = fcntl.ioctl(fd, _FS_IOC_GETFLAGS, struct.pack("l", 0))
        return struct.unpack("l", buf)[0]
    except OSError:
        return 0
    finally:
        os.close(fd)


#: the most bytes of the target's name a temporary file's name holds: with the 14 bytes
#: around it, within the 255 bytes a name may have (a target of 242-255 bytes could not be
#: written: its temporary file's name was too long)
TEMP_NAME_BYTES = 200


def _temp_stem(name: str) -> str:
    """``name``, cut to at most :data:`TEMP_NAME_BYTES` bytes of UTF-8 (whole characters)."""
    return name.encode("utf-8", "surrogateescape")[:TEMP_NAME_BYTES].decode(
        "utf-8", "ignore")


def _make_temporary(folder: str, name: str) -> tuple[int, str]:
    """A new temporary file beside target ``name`` in ``folder``: ``.NAME.XXXXXXXX.tmp`` (NAME
    cut to :data:`TEMP_NAME_BYTES` bytes), the name :func:`temporaries` finds.  Raises
    OSError."""
    return tempfile.mkstemp(dir=folder, prefix=f".{_temp_stem(name)}.", suffix=".tmp")


def _probe_folder(folder: str, name: str, what: str, shown: str) -> None:
    """Make and remove a temporary file in ``folder`` (named as :func:`atomic_open`'s, so a
    kill in between leaves one that :func:`remove_temporaries` clears): permissions say yes
    in ``/proc`` or on a read-only mount, yet no file can be made there."""
    try:
        fd, tmp = _make_temporary(folder, name)
    except OSError as e:
        raise OutputError(f"{what}'s folder takes no new file (making one there fails: "
                          f"{e.strerror or e})", source=shown, token=folder) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.remove(tmp)


def check_outputs(outputs, *, inputs=(), own_store=()) -> dict:
    """Check several outputs of one command at once: ``outputs`` maps a description (``"--json
    report"``) to a path or None (not asked).  Each is checked as by :func:`check_output`
    (``own_store``: the descriptions of the run's own store files, checked with
    ``own_store=True``), and no two may be the same file.  Returns description -> resolved
    path for those given.  Raises OutputError."""
    done = {}
    for what, path in outputs.items():
        if path is None:
            continue
        target = check_output(path, what=what, inputs=inputs, own_store=what in own_store)
        for other, (opath, otarget) in done.items():
            if otarget == target or _same(opath, path):
                raise OutputError(f"{what} and {other} are the same file: give two names",
                                  source=os.fspath(path))
        done[what] = (os.fspath(path), target)
    return {what: target for what, (_, target) in done.items()}


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", *, what: str = "the output", inputs=(),
                encoding: str | None = "utf-8", newline: str | None = None,
                own_store: bool = False):
    """Open a temporary file to write ``path`` with (``mode`` ``"w"`` or ``"wb"``); on a clean
    exit of the ``with`` block it is flushed, ``fsync``-ed and renamed over the target, on an
    exception (Ctrl-C included) it is removed and the target is untouched.

    ``path`` is checked first (:func:`check_output`, with ``own_store``).  Raises OutputError
    (naming ``path``) when it may not be written or a write fails (a full disk: ``No space left
    on device``)."""
    if mode not in ("w", "wb"):
        raise ValueError("atomic_open writes a whole file: mode 'w' or 'wb'")
    target = check_output(path, what=what, inputs=inputs, probe=False,  # mkstemp probes
                          own_store=own_store)
    shown = os.fspath(path)
    folder = os.path.dirname(target) or os.curdir
    try:
        fd, tmp = _make_temporary(folder, os.path.basename(target))
    except OSError as e:
        raise OutputError(f"cannot write {what}: {e.strerror or e}", source=shown) from None
    try:
        try:
            keep = stat.S_IMODE(os.stat(target).st_mode)
        except OSError:
            keep = 0o666 & ~_umask()
        os.fchmod(fd, keep)
        if "b" in mode:
            f = os.fdopen(fd, "wb")
        else:
            f = os.fdopen(fd, "w", encoding=encoding, newline=newline)
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        # still a regular file or a new name (nothing was put there meanwhile)
        check_output(path, what=what, inputs=inputs, probe=False, own_store=own_store)
        os.replace(tmp, target)
        tmp = None
        _fsync_dir(folder)
    except OSError as e:
        raise OutputError(f"cannot write {what}: {e.strerror or e}", source=shown) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.remove(tmp)


def _fsync_dir(folder: str) -> None:
    """Make a rename in ``folder`` durable (best effort: some file systems refuse)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def temporaries(path) -> list[str]:
    """The temporary files that :func:`atomic_open` may have left for ``path`` (its resolved
    target) when the process was killed while writing it: ``.NAME.XXXXXXXX.tmp`` in the
    target's folder, where ``XXXXXXXX`` is :func:`tempfile.mkstemp`'s random part."""
    target = os.path.realpath(os.fspath(path))
    folder = os.path.dirname(target) or os.curdir
    name = os.path.basename(target)
    pattern = re.compile(r"\." + re.escape(_temp_stem(name)) + r"\.[A-Za-z0-9_]{8}\.tmp")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names if pattern.fullmatch(n)]


def remove_temporaries(path) -> int:
    """Remove what :func:`temporaries` finds for ``path``; return how many were removed.  Call
    it only while no other process may be writing ``path`` (e.g. holding a lock)."""
    n = 0
    for tmp in temporaries(path):
        try:
            os.remove(tmp)
            n += 1
        except OSError:
            pass
    return n


def write_bytes(path, data: bytes, *, what: str = "the output", inputs=(),
                own_store: bool = False) -> str:
    """Write ``data`` to ``path`` atomically (:func:`atomic_open`); return ``path``.
    Raises OutputError."""
    with atomic_open(path, "wb", what=what, inputs=inputs, own_store=own_store) as f:
        f.write(data)
    return os.fspath(path)


def write_text(path, text: str, *, what: str = "the output", inputs=(),
               newline: str | None = None, own_store: bool = False) -> str:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_open`); return ``path``.
    Raises OutputError."""
    with atomic_open(path, "w", what=what, inputs=inputs, newline=newline,
                     own_store=own_store) as f:
        f.write(text)
    return os.fspath(path)


def save_figure(fig, path, *, what: str = "the plot", inputs=(), **savefig) -> str:
    """Save a matplotlib figure to ``path`` atomically (PNG unless ``format`` says otherwise);
    return ``path``.  Raises OutputError."""
    savefig.setdefault("format", "png")
    with atomic_open(path, "wb", what=what, inputs=inputs) as f:
        fig.savefig(f, **savefig)
    return os.fspath(path)


def make_output_dir(path, *, what: str = "the output folder", inputs=()) -> str:
    """Make the folder ``path`` (and its parents) for outputs written into it, or check that
    it is one; return ``path``.  Raises OutputError when it is something else (through a link
    too), cannot be made, or is an input."""
    if path is None or os.fspath(path).strip() == "" or os.fspath(path) == "-":
        raise OutputError(f"{what} must be a folder name", token=repr(path))
    path = os.fspath(path)
    target = _resolve(path, what)
    for inp in inputs or ():
        if inp is not None and os.fspath(inp) not in ("", "-") and _same(path, os.fspath(inp)):
            raise OutputError(f"{what} is an input of this command", source=path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        try:
            os.makedirs(target, exist_ok=True)
        except OSError as e:
            raise OutputError(f"cannot make {what}: {e.strerror or e}", source=path) from None
        return path
    except OSError as e:
        raise OutputError(f"{what} cannot be used: {e.strerror or e}", source=path) from None
    if not stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{what} must be a folder, and this is {file_kind(st.st_mode)}",
                          source=path)
    return path
