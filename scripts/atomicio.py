"""Output files that never destroy data, for the Python tools: the rule of include/tpu/outfile.h.

A regular file (or a path that does not exist yet, or a symbolic link to either) is written to a
temporary file ".NAME.tpu-tmp-PID-XXXXXX" in the final file's directory, flushed and fsynced,
and renamed over NAME only when the `with` block ends without an exception; an exception removes
the temporary file and leaves NAME as it was. A device, a FIFO and anything under /dev/ or
/proc/ is written in place (never created, truncated, renamed or removed).

    with atomic_open(path) as f:
        f.write(text)
"""
import contextlib
import os
import stat
import tempfile


def _in_place(path):
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(path)
    return not stat.S_ISREG(st.st_mode) or path.startswith(("/dev/", "/proc/"))


@contextlib.contextmanager
def atomic_open(path, mode="w", **kw):
    """A file object for path, committed when the block ends (see the module's text)."""
    if _in_place(path):
        with open(path, mode, **kw) as f:  # (O_TRUNC does nothing to a device or FIFO)
            yield f
        return
    final = os.path.realpath(path)
    d, base = os.path.split(final)
    old = None
    try:
        old = os.stat(final)
    except FileNotFoundError:
        pass
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.tpu-tmp-{os.getpid()}-", dir=d)
    try:
        if old is not None:
            os.chmod(tmp, stat.S_IMODE(old.st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, mode, **kw) as f:
            fd = -1
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
        tmp = None
        dfd = os.open(d, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    finally:
        if fd >= 0:
            os.close(fd)
        if tmp is not None:
            os.unlink(tmp)


def write_text(path, text):
    """The whole of text to path through atomic_open."""
    with atomic_open(path) as f:
        f.write(text)
