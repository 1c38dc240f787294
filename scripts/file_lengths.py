#!/usr/bin/env python3
"""Fails when a file the project writes by hand is longer than 700 lines (a house rule: a file
one can read in one sitting, and a sign that a module has two jobs).

Every text file git tracks counts (a binary file, such as an image, is not read), except data (the
trained checkpoints, the tests' recorded data, sentences and proptest regressions, Cargo.lock) and
the benchmark record: BENCHMARKS.md, which scripts/bench.sh writes, and benches/NOTES.md, the log
of measured paragraphs it quotes whole. Their length is their history, not one module's size.

Usage: python3 scripts/file_lengths.py [ROOT]       (ROOT defaults to the repository)
       python3 scripts/file_lengths.py --self-test  first checks that a planted 701-line file is caught
Exit 0, naming the longest counted file and its length, when every file is within the limit;
1 with each longer file printed otherwise.
"""

import pathlib
import subprocess
import sys
import tempfile

LIMIT = 700

# Data and generated records, not modules (see the docstring).
EXEMPT_PREFIXES = ("assets/checkpoints/", "tests/data/", "tests/sentences/")
EXEMPT_FILES = {"BENCHMARKS.md", "benches/NOTES.md", "Cargo.lock"}
EXEMPT_SUFFIXES = (".proptest-regressions",)


def tracked(root: pathlib.Path) -> list[str]:
    """The files git tracks under `root`, or every file when `root` is not a git work tree."""
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "ls-files"], check=True, capture_output=True, text=True
        ).stdout
        return out.splitlines()
    except subprocess.CalledProcessError:
        return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]


def counted(root: pathlib.Path) -> list[tuple[str, int]]:
    """(path, lines) for every counted file."""
    found = []
    for rel in tracked(root):
        if rel in EXEMPT_FILES or rel.startswith(EXEMPT_PREFIXES) or rel.endswith(EXEMPT_SUFFIXES):
            continue
        path = root / rel
        if not path.is_file():
            continue
        try:
            lines = path.read_text(encoding="utf-8").count("\n")
        except UnicodeDecodeError:
            continue  # binary: not a file one reads
        found.append((rel, lines))
    return found


def too_long(root: pathlib.Path) -> list[tuple[str, int]]:
    """(path, lines) for every counted file over the limit."""
    return [(rel, lines) for rel, lines in counted(root) if lines > LIMIT]


def self_test() -> None:
    """A 701-line file in a scratch tree must be reported, a 700-line one must not."""
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "src").mkdir()
        (root / "src" / "long.rs").write_text("//\n" * (LIMIT + 1))
        (root / "src" / "fits.rs").write_text("//\n" * LIMIT)
        (root / "BENCHMARKS.md").write_text("|\n" * (LIMIT + 1))
        found = too_long(root)
        if found != [("src/long.rs", LIMIT + 1)]:
            sys.exit(f"file lengths self-test: expected only src/long.rs, found {found}")
    print(f"file lengths: a planted {LIMIT + 1}-line file is caught")


def main() -> None:
    args = sys.argv[1:]
    if "--self-test" in args:
        self_test()
        args.remove("--self-test")
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    files = counted(root)
    found = [(rel, lines) for rel, lines in files if lines > LIMIT]
    for rel, lines in found:
        print(f"{rel}: {lines} lines (the limit is {LIMIT}): split it where it has two jobs")
    if found:
        sys.exit(1)
    rel, lines = max(files, key=lambda f: f[1], default=("no file", 0))
    print(f"file lengths: every file within {LIMIT} lines; the longest is {rel}, {lines} lines")


if __name__ == "__main__":
    main()
