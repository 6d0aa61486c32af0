"""Outputs that appear whole or not at all: every file lowdim writes goes to a
temporary file in the target's folder, which becomes the target in one step when it is
complete. An interrupted run (Ctrl-C, a kill) leaves the previous file as it was; two
runs writing the same target either refuse the second (without overwrite) or leave the
last complete file whole (with overwrite)."""

import os
import tempfile
from contextlib import contextmanager


def _file_mode():
    """The permissions a new file gets under the process's umask (mkstemp's are 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def atomic_path(path, *, overwrite):
    """Yield a temporary path beside ``path`` (same folder and extension) to write to;
    on success it replaces ``path`` atomically (``overwrite``) or takes its place only
    if ``path`` still does not exist (``FileExistsError`` otherwise). On any error or
    interruption the temporary file is removed and ``path`` is untouched.

    Parameters
    ----------
    path : str or os.PathLike
    overwrite : bool

    Examples
    --------
    >>> import tempfile, os
    >>> target = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with atomic_path(target, overwrite=False) as tmp:
    ...     _ = open(tmp, "w").write("whole")
    >>> open(target).read(), sorted(os.listdir(os.path.dirname(target)))
    ('whole', ['out.txt'])
    """
    path = os.fspath(path)
    check_regular(path)
    folder, name = os.path.split(os.path.abspath(path))
    stem, ext = os.path.splitext(name)
    _remove_stale_partials(folder, stem, ext)
    fd, tmp = tempfile.mkstemp(prefix=f".{stem}.{os.getpid()}-", suffix=f".partial{ext}", dir=folder)
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, _file_mode())
        if overwrite:
            os.replace(tmp, path)
        else:
            _place_new(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def check_regular(path):
    """Refuse a target that exists but is not a regular file (a device such as
    /dev/null, a folder, a pipe): replacing it with a file would destroy it.

    Examples
    --------
    >>> check_regular("/dev/null")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ValueError: /dev/null is not a regular file ...
    """
    if os.path.lexists(path) and not os.path.isfile(path):
        raise ValueError(f"{path} is not a regular file (a folder, device or pipe); name a file to write.")


def _remove_stale_partials(folder, stem, ext):
    """Remove the partial files of earlier writes of this target whose process has
    ended (a kill -9 leaves them: ``.<stem>.<pid>-<random>.partial<ext>``)."""
    prefix, suffix = f".{stem}.", f".partial{ext}"
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(suffix)):
            continue
        pid = name[len(prefix) :].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def _place_new(tmp, path):
    """``tmp`` becomes ``path`` only if ``path`` does not exist (a hard link fails
    atomically when it does)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise FileExistsError(
            f"{path} exists (another run wrote it meanwhile); pass --overwrite to replace it."
        ) from None
    except OSError:  # a file system without hard links: check, then move
        if os.path.exists(path):
            raise FileExistsError(f"{path} exists; pass --overwrite to replace it.") from None
        os.replace(tmp, path)
