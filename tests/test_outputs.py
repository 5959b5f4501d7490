"""The one policy for files the tools write (kraken_solver.notation.outputs): where, never over an
input, atomically."""

import errno
import os
import stat

import pytest

from kraken_solver.errors import KrakenError
from kraken_solver.notation.outputs import (OutputError, atomic_open, check_output, check_outputs,
                                            make_output_dir, write_bytes, write_text)


def test_new_file_is_written_with_the_usual_mode_and_no_temporary_left(tmp_path):
    out = tmp_path / "r.json"
    write_text(out, "hello\n")
    assert out.read_text() == "hello\n"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask
    assert sorted(os.listdir(tmp_path)) == ["r.json"]


def test_replaced_file_keeps_its_mode(tmp_path):
    out = tmp_path / "r.csv"
    out.write_text("old")
    os.chmod(out, 0o640)
    write_bytes(out, b"new")
    assert out.read_bytes() == b"new"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_a_link_is_written_through_and_stays_a_link(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    write_text(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new"


@pytest.mark.parametrize("link_name, target_name", [
    ("bm.csv", "b.csv.meta.json"),          # an output's name on an earlier run's sidecar
    ("out.csv.meta.json", "b.csv"),         # a sidecar's name on an earlier output
    ("page.html", "deals.txt"),             # an exported page on a deal file
    ("plot.png", "deals.txt"),
    ("report.json", "notes"),               # a file without an extension
    ("notes", "report.json"),
])
def test_a_link_to_a_file_of_another_kind_is_refused(tmp_path, link_name, target_name):
    """A link is written through only to a file whose name ends as its own (the same
    extension, ``.meta.json`` for a sidecar): a link made for something else was followed
    over another file (kraken-batch --out bm.csv, bm.csv -> b.csv.meta.json, replaced the
    earlier run's sidecar with rows).  The file stays as it was, the link a link; a new
    name behind a dangling link of another kind is refused as well."""
    target = tmp_path / target_name
    target.write_text("keep")
    link = tmp_path / link_name
    link.symlink_to(target)
    # a sidecar's name is refused as such before its link is looked at (only a run writes it)
    sidecar = link_name.endswith(".meta.json")
    with pytest.raises(OutputError, match=r"must not be named \*\.meta\.json" if sidecar
                       else "a link to .*a file of another kind") as e:
        write_text(link, "new")
    assert e.value.source == str(link)
    assert target.read_text() == "keep" and link.is_symlink()
    target.unlink()
    with pytest.raises(OutputError, match=r"must not be named \*\.meta\.json" if sidecar
                       else "a file of another kind"):
        check_output(link)
    assert not target.exists()


def test_a_link_of_the_same_kind_and_a_linked_folder_are_written_through(tmp_path):
    """``latest.csv -> runs/2026.CSV`` (the case of the extension aside) and a path through a
    linked folder (the file's own name unchanged) are written through."""
    runs = tmp_path / "runs"
    runs.mkdir()
    (tmp_path / "latest.csv").symlink_to(runs / "2026.CSV")
    write_text(tmp_path / "latest.csv", "rows")
    assert (runs / "2026.CSV").read_text() == "rows"
    (tmp_path / "plots").symlink_to(runs)
    write_text(tmp_path / "plots" / "notes", "text")
    assert (runs / "notes").read_text() == "text"
    (tmp_path / "run.meta.json").symlink_to(runs / "old.csv.meta.json")
    write_text(tmp_path / "run.meta.json", "{}", own_store=True)     # as a run writes its own
    assert (runs / "old.csv.meta.json").read_text() == "{}"


@pytest.mark.parametrize("name", ["", "   ", "-"])
def test_empty_name_and_dash_are_refused(name):
    with pytest.raises(OutputError, match="file name"):
        check_output(name)


def test_devices_pipes_and_folders_are_refused(tmp_path):
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    for path, kind in ((os.devnull, "character device"), (fifo, "named pipe"),
                       (tmp_path, "directory")):
        with pytest.raises(OutputError, match=kind) as info:
            check_output(path)
        assert info.value.source == os.fspath(path)
    link = tmp_path / "to-null"
    link.symlink_to(os.devnull)
    with pytest.raises(OutputError, match="character device .through a link"):
        write_text(link, "x")
    assert link.is_symlink()


def test_missing_folder_is_refused(tmp_path):
    with pytest.raises(OutputError, match="folder"):
        check_output(tmp_path / "no" / "such.csv")


def test_an_input_is_never_an_output(tmp_path):
    inp = tmp_path / "deals.txt"
    inp.write_text("deals")
    hard = tmp_path / "hard.txt"
    os.link(inp, hard)
    soft = tmp_path / "soft.txt"
    soft.symlink_to(inp)
    for spelling in (inp, hard, soft, tmp_path / "." / "deals.txt"):
        with pytest.raises(OutputError, match="input"):
            write_text(spelling, "report", inputs=[str(inp)])
    assert inp.read_text() == "deals"
    write_text(tmp_path / "other.txt", "ok", inputs=[str(inp), None, "-"])


def test_two_outputs_of_one_command_must_differ(tmp_path):
    a = tmp_path / "a.csv"
    with pytest.raises(OutputError, match="same file"):
        check_outputs({"--json": a, "--csv": tmp_path / "." / "a.csv"})
    got = check_outputs({"--json": a, "--csv": tmp_path / "b.csv", "--plot": None})
    assert set(got) == {"--json", "--csv"}


def test_an_error_while_writing_leaves_the_old_file_and_no_temporary(tmp_path):
    out = tmp_path / "r.csv"
    out.write_text("good report")
    with pytest.raises(RuntimeError):
        with atomic_open(out) as f:
            f.write("half a rep")
            raise RuntimeError("killed")
    assert out.read_text() == "good report"
    assert sorted(os.listdir(tmp_path)) == ["r.csv"]


def test_a_full_disk_names_the_file_and_keeps_the_old_one(tmp_path, monkeypatch):
    out = tmp_path / "r.csv"
    out.write_text("good report")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError) as info:
        write_text(out, "new report")
    assert isinstance(info.value, KrakenError)
    assert "No space left on device" in str(info.value) and str(out) in str(info.value)
    assert out.read_text() == "good report"
    assert sorted(os.listdir(tmp_path)) == ["r.csv"]


def test_output_folder_is_made_or_must_be_a_folder(tmp_path):
    d = tmp_path / "plots" / "a"
    assert make_output_dir(d) == str(d) and d.is_dir()
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(OutputError, match="regular file"):
        make_output_dir(f)


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc")
def test_a_link_to_an_open_file_descriptor_is_refused(tmp_path):
    """As root, --out /dev/stdout replaced the system's /dev/stdout link: a link that names
    an open file descriptor (a pipe here) is no file to write through."""
    r, w = os.pipe()
    try:
        link = f"/proc/self/fd/{w}"
        with pytest.raises(OutputError, match="open file descriptor .a named pipe."):
            check_output(link)
        mine = tmp_path / "to-fd"
        mine.symlink_to(link)
        with pytest.raises(OutputError, match="open file descriptor"):
            write_text(mine, "x")
        assert mine.is_symlink() and os.readlink(mine) == link
    finally:
        os.close(r)
        os.close(w)
    # a deleted file still open: its link names no file any more
    gone = tmp_path / "gone.txt"
    fd = os.open(gone, os.O_WRONLY | os.O_CREAT)
    os.unlink(gone)
    try:
        with pytest.raises(OutputError, match="open file descriptor"):
            check_output(f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)
    assert sorted(os.listdir(tmp_path)) == ["to-fd"]


def test_temporaries_left_by_a_kill_are_found_and_removed(tmp_path):
    from kraken_solver.notation.outputs import remove_temporaries, temporaries
    out = tmp_path / "r.csv"
    out.write_text("good")
    left = [tmp_path / ".r.csv.abcd1234.tmp", tmp_path / ".r.csv.zz_z9999.tmp"]
    others = [tmp_path / ".r.csv.toolong123.tmp", tmp_path / ".x.csv.abcd1234.tmp",
              tmp_path / "r.csv.abcd1234.tmp"]
    for p in left + others:
        p.write_text("half")
    assert sorted(temporaries(out)) == sorted(map(str, left))
    assert remove_temporaries(out) == 2
    assert all(p.exists() for p in others) and out.read_text() == "good"


def test_every_command_writes_through_outputs():
    """The one policy: no command module writes a user file with open(..., 'w') itself."""
    import pathlib
    import re
    root = pathlib.Path(__file__).resolve().parent.parent
    for path in list((root / "cli").glob("*.py")) + list((root / "kraken_solver").glob("*.py")):
        if path.name == "outputs.py":
            continue
        text = path.read_text()
        for pattern in (r"(?<![_a-z.])open\((?!os\.devnull)[^)]*,\s*['\"][wax]b?['\"]",
                        r"\.savefig\(",
                        r"\.to_csv\((?!index=False\))", r"os\.replace\("):
            found = re.findall(pattern, text)
            assert not found, (path.name, pattern, found)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="Linux's /proc")
def test_a_folder_where_no_file_can_be_made_is_refused_before_work(tmp_path):
    """kraken-analyse --plot /proc/x.png (as root, where permissions say yes) reviewed the
    whole deal and then could not write the plot; kraken-view --export the same."""
    with pytest.raises(OutputError) as e:
        check_output("/proc/x.png", what="the plot")
    assert "the plot's folder takes no new file (making one there fails: " in str(e.value)
    assert e.value.source == "/proc/x.png"
    # the probe leaves nothing behind where it can make its file
    check_output(tmp_path / "r.csv")
    assert os.listdir(tmp_path) == []


def test_an_immutable_or_append_only_file_is_refused_before_work(tmp_path, monkeypatch):
    """A file made immutable (chattr +i) passed the check, the work was done, and the rename
    over it failed: 'Operation not permitted'."""
    import subprocess

    from kraken_solver.notation import outputs
    target = tmp_path / "p.png"
    target.write_bytes(b"old")
    assert outputs._file_flags(str(target)) & (outputs._IMMUTABLE | outputs._APPEND_ONLY) == 0
    check_output(target)
    made = subprocess.run(["chattr", "+i", str(target)], capture_output=True).returncode == 0
    try:
        if not made:
            # no chattr or no right to it here: the flags as such a file reports them
            monkeypatch.setattr(outputs, "_file_flags", lambda p: outputs._IMMUTABLE)
        with pytest.raises(OutputError) as e:
            check_output(target, what="the plot")
        assert "immutable or append-only" in str(e.value) and e.value.source == str(target)
    finally:
        if made:
            subprocess.run(["chattr", "-i", str(target)], check=True)
    assert target.read_bytes() == b"old"


@pytest.mark.parametrize("name", ["newfile/", "a/b/", "x/.", "x/.."])
def test_a_folder_name_is_refused_even_where_no_folder_is(tmp_path, name):
    """A trailing slash means a folder: ``newfile/`` was written as a plain file."""
    path = f"{tmp_path}/{name}"
    with pytest.raises(OutputError) as e:
        write_text(path, "x", what="--out")
    assert str(e.value) == f"--out: expected a file name, not a folder: {path}"
    assert os.listdir(tmp_path) == []


def test_a_sidecar_name_or_a_work_directory_is_written_only_by_its_run(tmp_path):
    """Any output named *.meta.json (any case) is refused unless the run writes its own store
    (``own_store``); so is a file in an unfinished run's work directory (*.parts holding
    run.meta.json)."""
    for name in ("b.csv.meta.json", "B.CSV.Meta.Json", "new.meta.json"):
        with pytest.raises(OutputError, match=r"--json must not be named \*\.meta\.json") as e:
            write_text(tmp_path / name, "x", what="--json")
        assert e.value.source == str(tmp_path / name)
    assert os.listdir(tmp_path) == []
    with pytest.raises(OutputError, match=r"--records must not be named \*\.meta\.json"):
        check_outputs({"--out": tmp_path / "a.csv", "--records": tmp_path / "a.csv.meta.json"})
    write_text(tmp_path / "b.csv.meta.json", "{}", own_store=True)
    assert (tmp_path / "b.csv.meta.json").read_text() == "{}"
    work = tmp_path / "b.csv.parts"
    work.mkdir()
    write_text(work / "notes.txt", "a folder named .parts without a running sidecar is free")
    write_text(work / "run.meta.json", "{}", own_store=True)
    with pytest.raises(OutputError, match="work directory of an unfinished run"):
        write_text(work / "page.html", "x", what="--export")
    write_bytes(work / "chunk-0000000-0123456789abcdef.csv", b"rows", own_store=True)
    assert sorted(os.listdir(work)) == ["chunk-0000000-0123456789abcdef.csv", "notes.txt",
                                        "run.meta.json"]


def test_an_error_naming_a_file_with_a_line_break_stays_one_line(tmp_path):
    """A file name with a newline or tab broke the one-line error in two."""
    from click.testing import CliRunner

    from kraken_solver.cli.batch import main as batch_main
    from kraken_solver.errors import KrakenError

    assert str(KrakenError("x", source="a\nb", token="c\x00")) == "a\\nb: x (got 'c\\x00')"
    assert str(KrakenError("♥ stays", source="é")) == "é: ♥ stays"
    r = CliRunner().invoke(batch_main, ["--deals", "1", "--out",
                                        str(tmp_path / "a\nb.meta.json")])
    assert r.exit_code == 1 and r.stderr.count("\n") == 1, r.stderr
    assert "a\\nb.meta.json" in r.stderr


def test_a_long_file_name_is_written(tmp_path):
    """A target of 242-255 bytes could not be written: its temporary file's name (the target's
    and 14 bytes) was too long.  The temporary name holds at most 200 bytes of it, and the
    clean-up finds it."""
    from kraken_solver.notation.outputs import TEMP_NAME_BYTES, _make_temporary, temporaries

    for name in ("a" * 251 + ".txt", "é" * 125 + ".txt"):     # 255 and 254 bytes
        target = tmp_path / name
        write_text(target, "x\n")
        assert target.read_text() == "x\n"
        fd, tmp = _make_temporary(str(tmp_path), name)
        os.close(fd)
        assert len(os.path.basename(tmp).encode()) <= TEMP_NAME_BYTES + 14
        assert temporaries(target) == [tmp]
        os.remove(tmp)
