#!/usr/bin/env python3
"""Fails when the modules of src/model import each other in a circle.

`src/model` is read as a graph: one node per file (a `mod.rs` is its folder's module), and an
edge from a file to every module of `src/model` that its code names, through `use` (`super::…`,
`self::…`, `crate::model::…`, braces included) or a path written inline (`crate::model::x::f()`,
`super::x::T`). Test code counts too: a test module is part of its file. Comments (doc links
included) do not.

Usage: python3 scripts/model_imports.py [ROOT]   (ROOT defaults to the repository's src/model)
       python3 scripts/model_imports.py --edges   also prints every edge
       python3 scripts/model_imports.py --self-test   first checks that a planted circle is caught
       python3 scripts/model_imports.py --no-tests    leaves `#[cfg(test)]` items out (for comparison)
Exit 0 when the graph is acyclic; 1 with each circle printed otherwise.
"""

import pathlib
import re
import sys


def without_tests(code: str) -> str:
    """`code` without the items marked `#[cfg(test)]` (a test module, a test helper)."""
    out, i = [], 0
    while True:
        j = code.find("#[cfg(test)]", i)
        if j < 0:
            out.append(code[i:])
            return "".join(out)
        out.append(code[i:j])
        # The item runs to its first `;` at brace depth 0, or to the `}` closing its first `{`.
        k, depth = j + len("#[cfg(test)]"), 0
        while k < len(code):
            c = code[k]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    k += 1
                    break
            elif c == ";" and depth == 0:
                k += 1
                break
            k += 1
        i = k


def module_of(path: pathlib.Path, root: pathlib.Path) -> tuple:
    """`src/model/train/trainer.rs` → ("train", "trainer"); `train/mod.rs` → ("train",)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "mod":
        parts.pop()
    return tuple(parts)


def strip_comments(text: str) -> str:
    """The code without `//` and `/* */` comments or string literals (which may hold `//`)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    out = []
    for line in text.splitlines():
        # Drop string literals first so that "http://…" is not taken for a comment.
        line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
        out.append(line.split("//", 1)[0])
    return "\n".join(out)


def expand_use(tree: str) -> list:
    """`a::{b, c::{d, e}}` → ["a::b", "a::c::d", "a::c::e"] (renames dropped, globs kept)."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)  # a rename does not change what is imported
    tree = re.sub(r"\s+", "", tree)
    depth, start = 0, None
    for i, c in enumerate(tree):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                prefix, inner, rest = tree[:start], tree[start + 1 : i], tree[i + 1 :]
                items, d, last = [], 0, 0
                for j, ch in enumerate(inner + ","):
                    if ch in "{":
                        d += 1
                    elif ch == "}":
                        d -= 1
                    elif ch == "," and d == 0:
                        if inner[last:j]:
                            items.append(inner[last:j])
                        last = j + 1
                paths = []
                for item in items:
                    paths += expand_use(prefix + item + rest)
                return paths
    return [tree]


def resolve(path: str, here: tuple, modules: set):
    """The module of `src/model` that `path` (as written in module `here`) lands in, if any."""
    segs = [s for s in path.split("::") if s]
    if not segs:
        return None
    if segs[0] == "crate":
        if len(segs) < 2 or segs[1] != "model":
            return None
        base, rest = (), segs[2:]
    elif segs[0] in ("super", "self"):
        # A file's `super` is its parent module; a `mod.rs`'s `self` is its folder.
        base = here
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
        rest = segs
    else:
        return None
    # The longest prefix of the path that is a module file.
    best = base if base in modules else None
    for n in range(1, len(rest) + 1):
        candidate = base + tuple(rest[:n])
        if candidate in modules:
            best = candidate
    return best


def inline_depths(code: str) -> list:
    """For each character of `code`, how many inline modules (`mod tests { … }`) enclose it."""
    depth_at = [0] * (len(code) + 1)
    opens = []  # brace depth at which each open inline module started
    brace = 0
    pending = False
    inline = 0
    i = 0
    while i < len(code):
        m = re.match(r"\bmod\s+\w+\s*\{", code[i:]) if code[i].isalpha() and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] == "_")) else None
        if m:
            pending = True
            i_end = i + m.end() - 1  # the "{"
            for k in range(i, i_end):
                depth_at[k] = inline
            i = i_end
            continue
        c = code[i]
        if c == "{":
            brace += 1
            if pending:
                opens.append(brace)
                inline += 1
                pending = False
        elif c == "}":
            if opens and opens[-1] == brace:
                opens.pop()
                inline -= 1
            brace -= 1
        depth_at[i] = inline
        i += 1
    return depth_at


def graph(root: pathlib.Path) -> dict:
    files = sorted(root.rglob("*.rs"))
    modules = {module_of(f, root) for f in files}
    edges = {m: set() for m in modules}
    for f in files:
        here = module_of(f, root)
        code = strip_comments(f.read_text(encoding="utf-8"))
        if "--no-tests" in sys.argv:
            code = without_tests(code)
        depths = inline_depths(code)
        found = []
        for m in re.finditer(r"\buse\s+([^;]+);", code):
            found += [(p, depths[m.start()]) for p in expand_use(m.group(1))]
        for m in re.finditer(r"\b(?:crate::model|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+", code):
            found.append((m.group(0), depths[m.start()]))
        for path, depth in found:
            # Inside `depth` inline modules, the first `depth` supers climb back to the file.
            segs = path.split("::")
            k = 0
            while k < depth and segs and segs[0] == "super":
                segs = segs[1:]
                k += 1
            if k and segs and segs[0] not in ("super", "self"):
                segs = ["self"] + segs
            if not segs:
                continue
            target = resolve("::".join(segs), here, modules)
            if target is not None and target != here:
                edges[here].add(target)
    return edges


def cycles(edges: dict) -> list:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges[v]:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def name(m: tuple) -> str:
    return "::".join(m) or "model"


def planted_circle_is_caught(root: pathlib.Path) -> bool:
    """The check itself, tested: a copy of `root` with one planted import that closes a circle
    (the attention code naming the link state, which depends on it) must fail."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "model"
        shutil.copytree(root, copy)
        attention = copy / "attention.rs"
        attention.write_text(
            "use crate::model::url_state::ViewState;\n" + attention.read_text(encoding="utf-8"),
            encoding="utf-8",
        )
        return bool(cycles(graph(copy)))


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = pathlib.Path(args[0]) if args else pathlib.Path(__file__).resolve().parent.parent / "src" / "model"
    if "--self-test" in sys.argv:
        if not planted_circle_is_caught(root):
            print("model imports: a planted circle was NOT caught", file=sys.stderr)
            return 1
        print("model imports: a planted circle (attention -> url_state) is caught")
    edges = graph(root)
    if "--edges" in sys.argv:
        for m in sorted(edges):
            print(f"{name(m)} -> {', '.join(name(t) for t in sorted(edges[m]))}")
    found = cycles(edges)
    if not found:
        print(f"model imports: {len(edges)} modules, no import circle")
        return 0
    for comp in found:
        print("import circle among: " + ", ".join(name(m) for m in comp), file=sys.stderr)
    print(f"model imports: {len(found)} circle(s)", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
