"""Entry point of the ``lowdim`` console script.

Commands live in their own modules (``COMMANDS``), each with ``HELP``,
``add_arguments(parser)`` and ``run(args, say) -> exit code``; adding a command means
adding one line here. Exit codes: 0 ok, 2 bad input or usage, 1 internal error.
"""

import argparse
import difflib
import os
import sys
from importlib import import_module

COMMANDS = {
    "embed": "lowdim.cli._embed",
    "pca": "lowdim.cli._pca",
    "cluster": "lowdim.cli._cluster",
    "transform": "lowdim.cli._transform",
    "info": "lowdim.cli._info",
    "report": "lowdim.cli._report",
    "explore": "lowdim.cli._explore",
    "demo": "lowdim.cli._demo",
    "compress": "lowdim.cli._compress",
    "denoise": "lowdim.cli._denoise",
    "eigenfaces": "lowdim.cli._eigenfaces",
}


def build_parser():
    """The argument parser with one sub-parser per registered command."""
    # no abbreviated options: argparse would read "--k 3" as "--key 3" where no other
    # option starts so, and the run would go on with the wrong setting, silently
    parser = argparse.ArgumentParser(
        prog="lowdim", description="Dimensionality reduction and unsupervised structure discovery.", allow_abbrev=False
    )
    from .._version import __version__

    parser.add_argument("--version", action="version", version=f"lowdim {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        mod = import_module(module)
        mod.add_arguments(sub.add_parser(name, help=mod.HELP, description=mod.HELP, allow_abbrev=False))
    return parser


def _close_options(parser, given):
    """The options of ``parser`` a mistyped ``given`` probably means: the short option it
    doubles the dash of ("--k" for "-k"), those it abbreviates, and near spellings."""
    spelled = {o: "/".join(action.option_strings) for action in parser._actions for o in action.option_strings}
    name = given.split("=", 1)[0]
    exact = [o for o in spelled if o == "-" + name.lstrip("-") and len(name.lstrip("-")) == 1]
    prefixed = [o for o in spelled if o.startswith(name) and o.startswith("--")]
    near = difflib.get_close_matches(name, list(spelled), n=3, cutoff=0.75)
    return list(dict.fromkeys(spelled[o] for o in exact + prefixed + near))


def parse_arguments(parser, argv=None):
    """``parser.parse_args(argv)``, but an unknown option is named with the options it
    probably means (``--k`` -> ``-k``; ``--stand`` -> ``--standardize``), as an error.

    Examples
    --------
    >>> args = parse_arguments(build_parser(), ["pca", "--dataset", "iris", "-k", "2"])
    >>> args.command, args.n_components
    ('pca', 2)
    """
    args, extra = parser.parse_known_args(argv)
    if not extra:
        return args
    command = parser._subparsers._group_actions[0].choices.get(getattr(args, "command", None), parser)
    unknown = [a for a in extra if a.startswith("-") and len(a) > 1 and not a[1:2].isdigit()]
    if not unknown:
        command.error(f"unrecognized arguments: {' '.join(extra)}")
    hints = _close_options(command, unknown[0])
    listed = ", ".join(hints[:-1]) + (" or " if len(hints) > 1 else "") + (hints[-1] if hints else "")
    hint = f"; did you mean {listed}?" if hints else f"; see lowdim {args.command or ''} --help."
    command.error(f"unrecognized option {unknown[0]}{hint}".replace("  ", " "))


def _numba_threads(threads):
    from ._common import UsageError

    if threads < 1:
        raise UsageError(f"--threads must be at least 1; got {threads}.")
    import numba

    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))


def _closed_streams_to_devnull():
    """A process started with stdout or stderr closed (``>&-``) has None there: what it
    would print goes nowhere instead of failing."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w"))  # noqa: SIM115 - lives as long as the process


def main(argv=None):
    """Run the CLI; returns the exit code.

    Examples
    --------
    >>> main(["pca", "--dataset", "iris", "-k", "2", "--quiet"])
    0
    """
    _closed_streams_to_devnull()
    parser = build_parser()
    args = parse_arguments(parser, argv)
    if args.command is None:
        parser.print_help()
        return 2
    quiet = getattr(args, "quiet", False) or getattr(args, "json", False)
    # with the table on standard output (-o -), what the run says goes to stderr
    from ..io import STDOUT

    said = sys.stderr if getattr(args, "output", None) == STDOUT else None
    piped = None  # the temporary file of a table piped in (input -), named <stdin> in messages

    def say(message):
        if not quiet:
            print(shown(str(message), piped), file=said)

    import warnings

    from threadpoolctl import threadpool_limits

    warned = set()

    def show(message, *_args, **_kwargs):
        # several estimators of one run warn about the same data; say each thing once
        text = shown(str(message), piped)
        key = text.split(": ", 1)[-1]
        if key not in warned:
            warned.add(key)
            print(f"lowdim {args.command}: warning: {text}", file=sys.stderr)

    from ._common import UsageError
    from ._stdin import piped_input, shown

    # ImportError: an optional package is missing (the message names the extra that installs it)
    expected = (UsageError, ValueError, TypeError, FileExistsError, OSError, MemoryError, ImportError)
    try:
        threads = getattr(args, "threads", None)
        if threads is not None:
            _numba_threads(threads)
        with piped_input(args) as piped, threadpool_limits(limits=threads), warnings.catch_warnings():
            warnings.showwarning = show
            code = import_module(COMMANDS[args.command]).run(args, say)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except BrokenPipeError:  # the reader (e.g. head) has all it wanted: end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"lowdim {args.command}: interrupted", file=sys.stderr)
        return 130
    except expected as exc:
        if args.debug:
            raise
        print(f"lowdim {args.command}: error: {shown(str(exc), piped)}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - the CLI's last line of defence
        if args.debug:
            raise
        print(
            f"lowdim {args.command}: internal error: {type(exc).__name__}: {exc} (rerun with --debug for a traceback)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
