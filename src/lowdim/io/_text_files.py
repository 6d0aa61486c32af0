"""Text files as the readers and writers open them: compressed or not (gzip, bzip2, xz,
zstandard, by the name's suffix; read as streams, never unpacked to disk), and what a
file that is not text is, for the message that says so."""

import io
import os

from ..exceptions import DataFileError

# compressed text read as a stream (never unpacked to disk): suffix -> name
COMPRESSIONS = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstandard"}


def split_compression(path):
    """``(path without its compression suffix, compression name or None)``.

    Examples
    --------
    >>> split_compression("cells.tsv.gz"), split_compression("a.csv")
    (('cells.tsv', 'gzip'), ('a.csv', None))
    """
    base, ext = os.path.splitext(str(path))
    kind = COMPRESSIONS.get(ext.lower())
    return (base, kind) if kind else (str(path), None)


def _zstandard(path, doing):
    """The zstandard module, or the error naming the extra that brings it."""
    try:
        import zstandard
    except ImportError:
        raise DataFileError(
            f"{path}: {doing} .zst files needs the zstandard package; install lowdim[io] (pip install 'lowdim[io]')."
        ) from None
    return zstandard


def _opener(compression):
    """``open`` of the standard library's module for gzip, bzip2 or xz."""
    import bz2
    import gzip
    import lzma

    return {"gzip": gzip.open, "bzip2": bz2.open, "xz": lzma.open}[compression]


def open_text(path, encoding="utf-8-sig"):
    """A text stream of ``path``, decompressed on the fly for .gz, .bz2, .xz and .zst.

    Examples
    --------
    >>> import gzip, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.csv.gz")
    >>> with gzip.open(p, "wt") as fh:
    ...     _ = fh.write("a,b\\n1,2\\n")
    >>> with open_text(p) as fh:
    ...     fh.readline().strip()
    'a,b'
    """
    kind = split_compression(path)[1]
    if kind is None:
        return open(path, newline="", encoding=encoding)
    if kind == "zstandard":
        stream = _zstandard(path, "reading").ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)
        return io.TextIOWrapper(stream, encoding=encoding, newline="")
    return _opener(kind)(path, "rt", newline="", encoding=encoding)


def create_text(path, compression=None):
    """A UTF-8 text stream writing ``path``, compressed by ``compression`` (a value of
    ``COMPRESSIONS``; None: plain text), as ``open_text`` reads it back.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.tsv.gz")
    >>> with create_text(p, "gzip") as fh:
    ...     _ = fh.write("a;b")
    >>> with open_text(p) as fh:
    ...     fh.read()
    'a;b'
    """
    if compression is None:
        return open(path, "w", newline="", encoding="utf-8")
    if compression == "zstandard":
        stream = _zstandard(path, "writing").ZstdCompressor().stream_writer(open(path, "wb"), closefd=True)
        return io.TextIOWrapper(stream, encoding="utf-8", newline="")
    return _opener(compression)(path, "wt", newline="", encoding="utf-8")


# the first bytes of the binary files a CSV path may turn out to hold: what it is, its extension
SIGNATURES = (
    ("PK\x03\x04", "a zip archive (an Excel workbook is one)", ".xlsx"),
    ("PAR1", "a Parquet file", ".parquet"),
    ("\x93NUMPY", "a NumPy array", ".npy"),
    ("\x89HDF\r\n\x1a\n", "an HDF5 file (AnnData's .h5ad is one)", ".h5 or .h5ad"),
    ("\xd0\xcf\x11\xe0", "an Excel 97-2003 workbook", ".xls, then save it as .xlsx"),
    ("$FL2", "an SPSS data file", ".sav"),
    ("$FL3", "a compressed SPSS data file", ".zsav"),
    ("<stata_dta>", "a Stata data file", ".dta"),
    ("\x89PNG", "a PNG image", ".png, for lowdim compress or denoise"),
    ("\xff\xd8\xff", "a JPEG image", ".jpg, for lowdim compress or denoise"),
    # Stata 8-12's files (formats 113-115): their version, byte order and file type
    *((f"{version}{order}\x01\x00", "a Stata data file", ".dta") for version in "qrs" for order in "\x01\x02"),
)


UTF16_MARKS = ("\xff\xfe", "\xfe\xff")  # the byte-order marks, as latin-1 reads them


def utf16_marked(path):
    """Whether ``path`` (compressed or not) starts with a UTF-16 byte-order mark: text
    Excel saves as "Unicode text" and PowerShell writes, read as UTF-16 whatever the
    encoding asked for, as the mark leaves no doubt (a UTF-8 mark is read the same way).

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "u.csv")
    >>> _ = open(p, "w", encoding="utf-16").write("a,b\\n1,2\\n")
    >>> utf16_marked(p)
    True
    """
    with open_text(path, "latin-1") as fh:
        return fh.read(2) in UTF16_MARKS


def _utf16_without_mark(start):
    """UTF-16 text without a mark: a NUL beside every ASCII character, so on one side of
    the byte pairs only (binary files have NULs on both)."""
    even, odd = start[0::2].count("\x00"), start[1::2].count("\x00")
    return max(even, odd) > len(start) // 4 and min(even, odd) <= len(start) // 50


def _encoding_hint(path):
    """Which encoding the file probably is, and the option that reads it; or what
    binary file it is, by its first bytes (a workbook renamed .csv, a Parquet file piped
    in), and the name that reads it."""
    with open_text(path, "latin-1") as fh:
        start = fh.read(4096)
    for signature, what, extension in SIGNATURES:
        if start.startswith(signature):
            return f"; by its first bytes it is {what}, not text: read it by a name ending in {extension}."
    if _utf16_without_mark(start):
        return "; it looks like UTF-16 text without a byte-order mark: pass --encoding utf-16-le (or -be)."
    if "\x00" in start:
        return "; it holds NUL bytes, as binary files do (a program, an archive, an image), not text: is it a table?"
    with open_text(path, "cp1252") as fh:
        try:
            fh.read(1 << 20)
            return "; it reads as Windows-1252 / Latin-1: pass --encoding cp1252 (or latin-1)."
        except UnicodeDecodeError:
            return "; is it a CSV? Pass its text encoding with --encoding."


def _decompression_errors():
    import gzip
    import lzma
    import zlib

    errors = [gzip.BadGzipFile, lzma.LZMAError, zlib.error, EOFError]
    try:
        import zstandard

        errors.append(zstandard.ZstdError)
    except ImportError:
        pass
    return tuple(errors)
