"""The README's examples run as written: its Python lines and every command of its
shell blocks, in a fresh folder, on the built-in data."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readmes_python_lines_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = re.search(r"```python\n(.*?)```", README, re.S)[1]
    exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})
    printed = capsys.readouterr().out.split()
    assert printed[:2] == ["21", "covariance"]  # what the comment beside the line says
    assert (tmp_path / "digits.lowdim").stat().st_size > 0


def test_the_readmes_commands_run_as_written(tmp_path, monkeypatch, capsys):
    """Every `lowdim ...` line of the README's shell blocks, in a fresh folder, in order."""
    import shlex

    from lowdim.cli.main import main

    blocks = re.findall(r"```bash\n(.*?)```", README, re.S)
    commands = [line.split("#")[0].strip() for block in blocks for line in block.splitlines()]
    commands = [c for c in commands if c.startswith("lowdim ")]
    assert len(commands) >= 4
    monkeypatch.chdir(tmp_path)
    for command in commands:
        argv = shlex.split(command)[1:]
        assert main(argv + ["--quiet"]) == 0, (command, capsys.readouterr().err)
        outputs = [argv[i + 1] for i, a in enumerate(argv) if a in ("-o", "--plot", "--save-model")]
        assert outputs and all((tmp_path / o).stat().st_size > 0 for o in outputs), command
