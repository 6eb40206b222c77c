"""Files the CLI reads and writes, safely: lines decoded one by one, outputs locked and written whole.

- :func:`raw_lines` splits on ``\\n`` only (never on U+2028, U+2029 or U+0085, which may sit inside
  JSON strings) and :func:`decode_line` decodes each line on its own: one bad byte spoils one line,
  not the file; a UTF-8 byte-order mark before the first line is dropped.
- :func:`line_sha256` fingerprints an input line, so that ``--resume`` can tell a changed input.
- :class:`LockedOutput` holds an exclusive lock (``flock``) on a JSONL output while it is written, and
  writes each line whole: a failed write cuts its torn line off again.
- :func:`write_atomic` writes a whole file through a temporary file and a rename: the old file stays
  until the new one is complete.

Example:
    >>> decode_line(b'\\xef\\xbb\\xbf{"a": 1}\\r\\n', 1), line_sha256(b'{"a": 1}\\n') == line_sha256(b'{"a": 1}')
    ('{"a": 1}', True)
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "LockedOutput",
    "OutputInUseError",
    "decode_line",
    "json_rows",
    "jsonl_line",
    "line_sha256",
    "raw_lines",
    "same_file",
    "write_atomic",
]

_BOM = b"\xef\xbb\xbf"
#: Opening an output whose file another run removes or replaces in between is tried again this often.
_OPEN_ATTEMPTS = 5
#: Characters that some line splitters (Python's str.splitlines, old JavaScript) take for line ends.
_SEPARATORS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\u0085": "\\u0085"}


class OutputInUseError(OSError):
    """Another process holds the lock on the output file."""


def raw_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line number, bytes)`` for each line of a file, split on ``\\n`` only (endings kept)."""
    with open(path, "rb") as handle:
        yield from enumerate(handle, start=1)


def json_rows(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, JSON value)`` for each non-blank line of a JSONL file, read once; a line that
    is not UTF-8 or not JSON yields its :class:`ValueError` in place of the value.

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "rows.jsonl"
        >>> _ = path.write_bytes(b'{"a": 1}\\n\\n[2\\n\\xff\\n')
        >>> [(n, value if n == 1 else type(value).__name__) for n, value in json_rows(path)]
        [(1, {'a': 1}), (3, 'JSONDecodeError'), (4, 'ValueError')]
    """
    for line_no, line in raw_lines(path):
        if line.strip():
            try:
                yield line_no, json.loads(decode_line(line, line_no))
            except ValueError as exc:
                yield line_no, exc


def _content(raw: bytes | str, line_no: int) -> bytes:
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if line_no == 1 and data.startswith(_BOM):
        data = data[len(_BOM) :]
    return data.rstrip(b"\r\n")


def decode_line(raw: bytes | str, line_no: int) -> str:
    """The text of one input line: no line ending, no byte-order mark on line 1.

    Raises:
        ValueError: If the line is not valid UTF-8, saying where.
    """
    data = _content(raw, line_no)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        msg = f"line {line_no} is not valid UTF-8 ({exc.reason} at byte {exc.start + 1})"
        raise ValueError(msg) from None


def line_sha256(raw: bytes | str, line_no: int = 2) -> str:
    """SHA-256 (hex) of a line's bytes, without its line ending (nor a byte-order mark on line 1)."""
    return hashlib.sha256(_content(raw, line_no)).hexdigest()


def jsonl_line(row: Any, *, default: Callable[[Any], Any] | None = None) -> str:
    """One JSON line, non-ASCII kept, but U+2028, U+2029 and U+0085 escaped so that no splitter breaks it
    (``default`` as for :func:`json.dumps`)."""
    text = json.dumps(row, ensure_ascii=False, default=default)
    for char, escaped in _SEPARATORS.items():
        if char in text:  # outside strings JSON holds none of them, so escaping is exact
            text = text.replace(char, escaped)
    return text + "\n"


def same_file(a: str | Path, b: str | Path) -> bool:
    """True when two paths name the same file (links followed), or would once created."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class LockedOutput:
    """A JSONL output file, exclusively locked while open, written one whole line at a time.

    Opening never truncates before the lock is held: a second run refused for the lock leaves the
    file as it was. Once locked, the path must still name the file opened (a run that failed may
    remove the file it created, :meth:`rewrite` replaces it); else the new file is opened and locked.
    Each :meth:`write` is one line; when it fails (a full disk) the part written is cut off, so the
    file only ever holds whole lines, and the error is kept in ``error``. Devices (``/dev/null``) are
    written as they are, unlocked.

    Args:
        path: the output file.
        append: keep what the file holds (``--resume``); otherwise it is emptied once locked.

    Raises:
        OutputInUseError: If another process holds the lock.
        OSError: If the file cannot be opened for writing.
    """

    def __init__(self, path: str | Path, *, append: bool = False) -> None:
        self.path = Path(path)
        self.rows = 0
        self.error: OSError | None = None
        for _ in range(_OPEN_ATTEMPTS):
            self.created = not os.path.lexists(self.path)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
            try:
                self.regular = stat.S_ISREG(os.fstat(self._fd).st_mode)
                if not self.regular or self._lock():
                    break
            except BaseException:
                os.close(self._fd)
                raise
            os.close(self._fd)  # the file we locked was removed or replaced meanwhile: open the new one
        else:
            msg = f"{self.path} keeps being replaced by another program; choose another --out"
            raise OutputInUseError(msg)
        if self.regular and not append:
            try:
                os.ftruncate(self._fd, 0)
            except BaseException:
                os.close(self._fd)
                raise

    def _lock(self) -> bool:
        """Lock the open file; False when the path no longer names it (a run that held the lock before
        removed the file, or rewrote it, between our open and our lock)."""
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            msg = f"another run is writing {self.path} (it is locked); wait for it or choose another --out"
            raise OutputInUseError(msg) from None
        held = os.fstat(self._fd)
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return False
        return (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)

    def write(self, text: str) -> int:
        """Write one whole line (or nothing, if the write fails)."""
        data = text.encode("utf-8")
        start = os.lseek(self._fd, 0, os.SEEK_END) if self.regular else 0
        try:
            _write_all(self._fd, data)
        except BaseException as exc:
            if self.regular:
                os.ftruncate(self._fd, start)
            if isinstance(exc, OSError):
                self.error = exc
            raise
        self.rows += 1
        return len(text)

    def flush(self) -> None:
        """Lines are written unbuffered: nothing to flush."""

    def rewrite(self, keep: Callable[[bytes], bool]) -> int:
        """Keep only the lines for which ``keep`` is true; return how many were dropped.

        The kept lines go to a temporary file beside the output, locked before it is renamed over it,
        so that a crash leaves the old file or the new one whole and the lock is never let go.

        Raises:
            OSError: If the temporary file cannot be written (the output is then untouched).
        """
        target = Path(os.path.realpath(self.path))  # a link to the output stays a link
        with target.open("rb") as handle:
            lines = list(handle)
        kept = [line for line in lines if keep(line)]
        if len(kept) == len(lines):
            return 0
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _write_all(fd, b"".join(kept))
            os.fchmod(fd, stat.S_IMODE(os.fstat(self._fd).st_mode))
            os.fsync(fd)
            os.replace(temporary, target)
        except BaseException:
            os.close(fd)
            Path(temporary).unlink(missing_ok=True)
            raise
        os.close(self._fd)
        self._fd = fd
        return len(lines) - len(kept)

    def close(self, *, failed: bool = False) -> None:
        """Release the lock; when the run failed (or a write did) having created the file and written no
        row, remove the file."""
        if self._fd < 0:
            return
        failed = failed or self.error is not None
        if failed and self.created and self.rows == 0 and self.regular:
            self.path.unlink(missing_ok=True)
        os.close(self._fd)
        self._fd = -1

    def __enter__(self) -> LockedOutput:
        return self

    def __exit__(self, kind: Any, *_: Any) -> None:
        self.close(failed=kind is not None)


def write_atomic(path: str | Path, text: str) -> None:
    """Write a whole file: into a temporary file beside it, then renamed over it.

    On failure the temporary file is removed and ``path`` is untouched. A path that exists and is not
    a regular file (a device, a pipe) is written directly, and so is a writable file in a folder where
    no file can be created (then a failed write can leave it half-written).

    Raises:
        OSError: If the file cannot be written.
    """
    path = Path(path).resolve() if Path(path).is_symlink() else Path(path)
    data = text.encode("utf-8")
    if path.exists() and not path.is_file():
        with path.open("wb") as handle:
            handle.write(data)
        return
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o666 & ~_umask()
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except PermissionError:
        if not (path.exists() and os.access(path, os.W_OK)):
            raise
        with path.open("wb") as handle:  # a read-only folder: the file itself can still be rewritten
            handle.write(data)
        return
    try:
        try:
            _write_all(fd, data)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
