"""Checking outputs before anything is written (report, reproduce).

`--out` must be a directory, or absent with a parent in which it can be
created; `--csv` a regular file, or absent likewise. A path that is a file
where a directory is needed (or the reverse), a device such as /dev/full, a
FIFO, or a location on a read-only file system or without permission is
refused with ReportError naming the option, before figures/ is created.

A file records are appended to (reproduce's sweep outputs and verdicts) must
be absent, empty, or a pmemids result file: its first line a JSON object with
"schema_version" (a file holding only a torn first record may continue), the
rule `pmemids run/micro/crash/sweep --out` follow (src/util/file_checks.h).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import stat
from pathlib import Path

from .load import ReportError


def non_empty(kind):
    """An argparse type refusing '' (an empty --out would silently mean '.')."""
    def convert(text: str):
        if not text:
            raise argparse.ArgumentTypeError("an empty value; give one (leave the option out for "
                                             "the default)")
        return kind(text)
    convert.__name__ = kind.__name__
    return convert


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a regular file"


def _creatable(option: str, path: Path) -> None:
    """`path` is absent: its nearest existing ancestor must be a writable directory."""
    missing, parent = path, path.parent
    while True:
        try:
            st = os.stat(parent)
        except (FileNotFoundError, NotADirectoryError):
            missing, parent = parent, parent.parent
            continue
        except OSError as e:
            raise ReportError(f"{option} {path}", f"'{parent}' cannot be used: {e.strerror}") from e
        if not stat.S_ISDIR(st.st_mode):
            raise ReportError(f"{option} {path}", f"'{parent}' is {_kind(st.st_mode)}, not a directory")
        if not os.access(parent, os.W_OK | os.X_OK):
            reason = os.strerror(errno.EROFS if _read_only(parent) else errno.EACCES)
            raise ReportError(f"{option} {path}", f"cannot create '{missing.name}' in '{parent}': {reason}")
        return


def _read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _writable(option: str, path: Path) -> None:
    if not os.access(path, os.W_OK | (os.X_OK if path.is_dir() else 0)):
        reason = os.strerror(errno.EROFS if _read_only(path) else errno.EACCES)
        raise ReportError(f"{option} {path}", f"cannot be written: {reason}")


def check_dir(option: str, out_dir: Path) -> None:
    """`out_dir` is a writable directory, or can be created."""
    _check_dir(option, out_dir, "a directory (created if missing)", lambda: _creatable(option, out_dir))


def check_existing_dir(option: str, path: Path) -> None:
    """`path` is an existing directory this process can write in (pmemids' --pool-dir)."""
    def missing():
        raise ReportError(f"{option} {path}", "does not exist; accepted: an existing directory "
                          "(it is not created)")
    _check_dir(option, path, "an existing directory", missing)


def _check_dir(option: str, path: Path, accepted: str, if_missing) -> None:
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        if_missing()
        return
    if not stat.S_ISDIR(st.st_mode):
        raise ReportError(f"{option} {path}", f"is {_kind(st.st_mode)}; accepted: {accepted}")
    _writable(option, path)


def check_results_file(option: str, path: Path) -> None:
    """`path` can take appended records: absent (creatable), empty, or a result file."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        _creatable(option, path)
        return
    if not stat.S_ISREG(st.st_mode):
        raise ReportError(f"{option} {path}", f"is {_kind(st.st_mode)}; accepted: a result file "
                          "or a new file's path")
    _writable(option, path)
    head = b""
    with open(path, "rb") as f:  # the first line, after blank ones; a record is far below 64 MiB
        while b"\n" not in head and len(head) < 1 << 26:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            head = (head + chunk).lstrip(b" \t\r\n")
    if not head:
        return
    line, newline, _ = head.partition(b"\n")
    if not newline and head.startswith(b"{"):
        return  # a torn first record
    try:
        first = json.loads(line)
    except (ValueError, RecursionError):
        first = None
    if not (isinstance(first, dict) and "schema_version" in first):
        raise ReportError(f"{option} {path}", "exists and is not a pmemids result file (its first "
                          "line is not a pmemids record); accepted: a result file to append to, "
                          "an empty file or a new file's path")


def check(out_dir: Path, csv_path: Path | None) -> None:
    check_dir("--out", out_dir)
    if csv_path is None:
        return
    try:
        st = os.stat(csv_path)
    except (FileNotFoundError, NotADirectoryError):
        _creatable("--csv", csv_path)
    else:
        if not stat.S_ISREG(st.st_mode):
            raise ReportError(f"--csv {csv_path}", f"is {_kind(st.st_mode)}; accepted: a regular "
                              "file (created or replaced)")
        _writable("--csv", csv_path)
