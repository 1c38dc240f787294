#!/usr/bin/env python3
"""Fails when a file of src/ imports a layer that docs/architecture.md says it may not.

The rules live in one place: the table under "## The layers" in docs/architecture.md. Each row
names a part of src/ (`src/text/`, `src/format.rs`, `src/model/train/lab/`) and, in the column
"may import", the layers it may use, in backticks; a layer named after the word "not" is refused.
A name stands for its row and every row inside it (`model` is all of src/model), and the most
specific name wins, so `model`, not `model/train/page` allows all of the model but the page's
part. A file belongs to the row with the longest path that holds it, and may always import its
own row. Test code (a `#[cfg(test)]` item, a `tests.rs` file) obeys the same row, plus the names
in the column "its tests may also import".

An import is a `use` (braces expanded) or a path written inline, starting from `crate::`,
`super::` or `self::` (in a page's binary, `attention_explorer::`). Comments and strings do
not count. The script also runs the import-circle check of src/model (scripts/model_imports.py),
and checks that every file of src/ is named in the module tables under "## Every module".

Usage: python3 scripts/layer_imports.py [SRC]       (SRC defaults to the repository's src/)
       python3 scripts/layer_imports.py --self-test  first checks that planted imports are caught
Exit 0 when every import keeps to the table; 1 with each wrong import, as file:line, otherwise.
"""

import pathlib
import re
import shutil
import sys
import tempfile

import model_imports

REPO = pathlib.Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "architecture.md"


# ---- The table ----------------------------------------------------------------------------


def layer_name(path: str) -> str:
    """`src/model/train/lab/` → "model/train/lab"; `src/format.rs` → "format"."""
    path = path.removeprefix("src/").rstrip("/")
    return path.removesuffix(".rs")


def names_in(cell: str) -> list:
    """The layers a cell names, as (name, allowed): those after the word "not" are refused."""
    out, allowed = [], True
    for m in re.finditer(r"`([^`]+)`|\bnot\b", cell):
        if m.group(1) is None:
            allowed = False
        else:
            out.append((m.group(1), allowed))
    return out


def read_table(doc: pathlib.Path) -> dict:
    """{layer name: {"line": n, "may": [(name, allowed)], "tests": [...]}} from the doc's table."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    start = lines.index("## The layers")
    rows, header = {}, None
    for n, line in enumerate(lines[start + 1 :], start + 2):
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            if header:
                break  # the table has ended
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            may, tests = header.index("may import"), header.index("its tests may also import")
            continue
        if set(cells[0]) <= set("-: "):
            continue  # the line under the header
        for path in re.findall(r"`([^`]+)`", cells[0]):
            if path.startswith("src/"):
                rows[layer_name(path)] = {
                    "line": n,
                    "may": names_in(cells[may]),
                    "tests": names_in(cells[tests]),
                }
    if not rows:
        sys.exit(f"{doc}: no table of layers under '## The layers'")
    for name, row in rows.items():
        for ref, _ in row["may"] + row["tests"]:
            if ref not in rows:
                sys.exit(f"{doc}:{row['line']}: `{ref}` in the row of `{name}` is not a layer")
    return rows


def row_of(segments: tuple, rows: dict):
    """The row with the longest path that holds `segments` (("model", "train", "x")), if any."""
    for n in range(len(segments), 0, -1):
        name = "/".join(segments[:n])
        if name in rows:
            return name
    return None


def allowed(importer: str, target: str, entries: list) -> bool:
    """Whether the row `importer` may import the row `target`, given its (name, allowed) entries:
    its own row always; otherwise as the most specific entry that holds `target` says."""
    if target == importer:
        return True
    best, verdict = "", False
    for name, ok in entries:
        if (target == name or target.startswith(name + "/")) and len(name) > len(best):
            best, verdict = name, ok
    return verdict


# ---- The code -----------------------------------------------------------------------------

RAW_STRING = re.compile(r'b?r(#*)"')  # r"…", r#"…"#, br"…"
WORD = re.compile(r"\w")


def raw_string_at(code: str, i: int):
    """The match of a raw string's opening at `i` (not inside a word such as `bar"`), if any."""
    if code[i] not in "br" or (i > 0 and WORD.match(code, i - 1)):
        return None
    return RAW_STRING.match(code, i)


def blank(code: str) -> str:
    """`code` with comments and string and char literals replaced by spaces (newlines kept), so
    that positions, and so line numbers, stay those of the file."""
    out = list(code)
    i, n = 0, len(code)

    def wipe(a, b):
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = code[i]
        if code.startswith("//", i):
            j = code.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif code.startswith("/*", i):
            depth, j = 0, i
            while j < n:
                if code.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif code.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                    if depth == 0:
                        break
                else:
                    j += 1
            wipe(i, j)
            i = j
        elif (raw := raw_string_at(code, i)) is not None:
            end = code.find('"' + raw.group(1), raw.end())
            j = n if end < 0 else end + 1 + len(raw.group(1))
            wipe(i, j)
            i = j
        elif c == '"':
            j = i + 1
            while j < n and code[j] != '"':
                j += 2 if code[j] == "\\" else 1
            wipe(i, j + 1)
            i = j + 1
        elif c == "'":
            # A char literal ('x', '\n', '\u{..}'), or else a lifetime ('a), which stays.
            if code.startswith("\\", i + 1):
                j = code.find("'", i + 3)
                wipe(i, j + 1)
                i = j + 1
            elif i + 2 < n and code[i + 2] == "'":
                wipe(i, i + 3)
                i += 3
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


def test_spans(code: str) -> list:
    """(start, end) of every item marked `#[cfg(test)]`: to its `;`, or to the `}` closing it."""
    spans = []
    for m in re.finditer(r"#\[cfg\(test\)\]", code):
        k, depth = m.end(), 0
        while k < len(code):
            if code[k] == "{":
                depth += 1
            elif code[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            elif code[k] == ";" and depth == 0:
                break
            k += 1
        spans.append((m.start(), k + 1))
    return spans


def inline_modules(code: str) -> list:
    """(start, end, name) of every `mod name { … }` written inside the file."""
    closing, stack = {}, []
    for i, c in enumerate(code):
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            closing[stack.pop()] = i
    return [
        (m.end() - 1, closing.get(m.end() - 1, len(code)), m.group(1))
        for m in re.finditer(r"\bmod\s+(\w+)\s*\{", code)
    ]


def module_of(rel: tuple) -> tuple:
    """The module path of a file under src/ (("model", "mod.rs") → ("model",); lib.rs → ())."""
    parts = list(rel)
    parts[-1] = parts[-1].removesuffix(".rs")
    if parts[-1] == "mod" or parts == ["lib"]:
        parts.pop()
    return tuple(parts)


def is_binary(rel: tuple) -> bool:
    """Whether the file under src/ is a page's binary (`main.rs`, `bin/…`)."""
    return rel == ("main.rs",) or rel[0] == "bin"


def resolve(path: str, here: tuple, binary: bool):
    """The crate-root path that `path`, written in module `here`, names (None: outside the crate)."""
    segs = [s for s in path.split("::") if s]
    if not segs:
        return None
    # A page's binary is a crate of its own: its `crate::` is itself, and it reaches the app's
    # crate by name.
    if segs[0] == "attention_explorer" or (segs[0] == "crate" and not binary):
        rest = segs[1:]
    elif segs[0] in ("super", "self") and not binary:
        base = list(here)
        while segs and segs[0] in ("super", "self"):
            if segs.pop(0) == "super" and base:
                base.pop()
        rest = base + segs
    else:
        return None
    return tuple(s for s in rest if s not in ("self", "*"))


def imports(code: str):
    """(position, path) of every import in blanked `code`: `use` trees expanded, inline paths."""
    found, in_use = [], []
    for m in re.finditer(r"\buse\s+([^;]+);", code):
        in_use.append((m.start(), m.end()))
        for p in model_imports.expand_use(m.group(1)):
            found.append((m.start(), p))
    for m in re.finditer(r"\b(?:crate|super|self|attention_explorer)(?:::[A-Za-z_]\w*)+", code):
        if not any(a <= m.start() < b for a, b in in_use):
            found.append((m.start(), m.group(0)))
    return found


def wrong_imports(src: pathlib.Path, rows: dict) -> list:
    """("file:line", importer, target, path) for every import the table does not allow."""
    wrong = []
    for f in sorted(src.rglob("*.rs")):
        rel = f.relative_to(src).parts
        file_row = row_of(tuple(layer_name("/".join(rel)).split("/")), rows)
        shown = f"src/{'/'.join(rel)}"
        if file_row is None:
            wrong.append((f"{shown}:1", "(no layer)", "", "the file is in no row of the table"))
            continue
        text = f.read_text(encoding="utf-8")
        code = blank(text)
        tests = test_spans(code)
        mods = inline_modules(code)
        whole_file_is_test = rel[-1] == "tests.rs"
        for pos, path in imports(code):
            here = module_of(rel) + tuple(name for a, b, name in mods if a < pos < b)
            target = resolve(path, here, is_binary(rel))
            if target is None:
                continue
            target_row = row_of(target, rows) if target else None
            if target_row in ("lib", "main", "bin"):
                target_row = None
            entries = rows[file_row]["may"]
            if whole_file_is_test or any(a <= pos < b for a, b in tests):
                entries = entries + rows[file_row]["tests"]
            if target_row is None or not allowed(file_row, target_row, entries):
                line = text.count("\n", 0, pos) + 1
                wrong.append((f"{shown}:{line}", file_row, target_row or "(no layer)", path))
    # One report per line and layer: `use a::{B, C}` is one wrong import, not two.
    reported, seen = [], set()
    for w in wrong:
        if (w[0], w[2]) not in seen:
            seen.add((w[0], w[2]))
            reported.append(w)
    return reported


# ---- The module tables --------------------------------------------------------------------


def unlisted_files(src: pathlib.Path, doc: pathlib.Path) -> list:
    """The files of src/ that no module table under "## Every module" names. A section starts
    with a bold folder (**`src/text/`**); a file counts as named when its path inside that folder,
    or (in a subfolder) its own name, is in backticks in the section."""
    text = doc.read_text(encoding="utf-8")
    body = text.split("## Every module", 1)[1].split("\n## ", 1)[0]
    sections = {}  # folder under src/ ("" for the top level) → the backticked names in it
    folder = None
    for line in body.splitlines():
        m = re.match(r"\*\*(?:Top level of )?`src/([^`]*)`", line)
        if m:
            folder = layer_name(m.group(1)) if m.group(1) else ""
            sections.setdefault(folder, set())
        if folder is not None:
            sections[folder].update(re.findall(r"`([^`]+)`", line))
    missing = []
    for f in sorted(src.rglob("*.rs")):
        rel = "/".join(f.relative_to(src).parts)
        owner = max((d for d in sections if d == "" or rel.startswith(d + "/")), key=len, default=None)
        inside = rel[len(owner) + 1 :] if owner else rel
        names = sections.get(owner, set())
        if inside not in names and not ("/" in inside and f.name in names):
            missing.append(f"src/{rel}")
    return missing


# ---- Running it ---------------------------------------------------------------------------


def plant(src: pathlib.Path, rel: str, line: str) -> str:
    """Writes `line` at the top of src/`rel` and returns where a report of it would point."""
    f = src / rel
    f.write_text(line + "\n" + f.read_text(encoding="utf-8"), encoding="utf-8")
    return f"src/{rel}:1"


def self_test(src: pathlib.Path, rows: dict) -> bool:
    """The check itself, tested: in a copy of src/, a `use` from the model of a component and a
    `super::` path from the text layer into the state must both be reported, at their lines."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "src"
        shutil.copytree(src, copy)
        planted = {
            plant(copy, "model/attention.rs", "use crate::components::heatmap::Heatmap;"): "model -> components",
            plant(copy, "text/mod.rs", "use super::state::Training;"): "text -> state (through super::)",
        }
        caught = {where for where, *_ in wrong_imports(copy, rows)}
        for where, what in planted.items():
            if where not in caught:
                print(f"layers: a planted import ({what}) was NOT caught", file=sys.stderr)
                return False
            print(f"layers: a planted import ({what}) is caught")
    if not model_imports.planted_circle_is_caught(src / "model"):
        print("model imports: a planted circle was NOT caught", file=sys.stderr)
        return False
    print("model imports: a planted circle (attention -> url_state) is caught")
    return True


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = pathlib.Path(args[0]) if args else REPO / "src"
    rows = read_table(DOC)
    if "--self-test" in sys.argv and not self_test(src, rows):
        return 1
    failed = False
    wrong = wrong_imports(src, rows)
    for where, importer, target, path in wrong:
        print(f"{where}: `{importer}` may not import `{target}`: {path}", file=sys.stderr)
    if wrong:
        print(f"layers: {len(wrong)} import(s) outside docs/architecture.md's table", file=sys.stderr)
        failed = True
    else:
        print(f"layers: every import of src/ keeps to the table ({len(rows)} rows)")
    missing = unlisted_files(src, DOC)
    for rel in missing:
        print(f"{rel}: not in docs/architecture.md's module tables", file=sys.stderr)
    if missing:
        failed = True
    circles = model_imports.cycles(model_imports.graph(src / "model"))
    for comp in circles:
        print("import circle among: " + ", ".join(model_imports.name(m) for m in comp), file=sys.stderr)
    if circles:
        failed = True
    else:
        print(f"model imports: no import circle among src/model's {len(model_imports.graph(src / 'model'))} modules")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
