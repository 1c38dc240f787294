#!/usr/bin/env python3
"""Where the bytes of a .wasm go: code size per function and per crate, from the name section.

Usage: python3 benches/wasm_size_profile.py FILE.wasm [--top N]

FILE must still have its name section (e.g. wasm-bindgen output run through `wasm-opt -Oz -g`;
scripts/bench.sh makes one). Sizes are function-body bytes; data segments and other sections are
listed separately. Crate attribution comes from the (demangled or legacy-mangled) symbol name: the
first path segment, or for `<A as B>::f` the crate of A. Used by BENCHMARKS.md to show what fills
the bundle.
"""
import re
import sys
from collections import defaultdict


def leb(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def read_name(buf, pos):
    n, pos = leb(buf, pos)
    return buf[pos : pos + n].decode("utf-8", "replace"), pos + n


def parse(buf):
    assert buf[:4] == b"\0asm", "not a wasm file"
    pos = 8
    sections = []
    imported_funcs = 0
    bodies = []
    names = {}
    data_bytes = 0
    while pos < len(buf):
        sid = buf[pos]
        size, p = leb(buf, pos + 1)
        end = p + size
        label = str(sid)
        if sid == 0:
            cname, q = read_name(buf, p)
            label = f"custom:{cname}"
            if cname == "name":
                while q < end:
                    sub = buf[q]
                    sub_size, q2 = leb(buf, q + 1)
                    if sub == 1:
                        count, r = leb(buf, q2)
                        for _ in range(count):
                            idx, r = leb(buf, r)
                            nm, r = read_name(buf, r)
                            names[idx] = nm
                    q = q2 + sub_size
        elif sid == 2:
            count, q = leb(buf, p)
            for _ in range(count):
                _, q = read_name(buf, q)
                _, q = read_name(buf, q)
                kind = buf[q]
                q += 1
                if kind == 0:
                    _, q = leb(buf, q)
                    imported_funcs += 1
                elif kind == 1:
                    q += 1
                    flags, q = leb(buf, q)
                    _, q = leb(buf, q)
                    if flags & 1:
                        _, q = leb(buf, q)
                elif kind == 2:
                    flags, q = leb(buf, q)
                    _, q = leb(buf, q)
                    if flags & 1:
                        _, q = leb(buf, q)
                elif kind == 3:
                    q += 2
                else:
                    raise ValueError(f"import kind {kind}")
        elif sid == 10:
            count, q = leb(buf, p)
            for k in range(count):
                bsize, q2 = leb(buf, q)
                bodies.append((imported_funcs + k, bsize + (q2 - q)))
                q = q2 + bsize
        elif sid == 11:
            data_bytes = size
        sections.append((label, size))
        pos = end
    return sections, bodies, names, data_bytes


def demangle_legacy(sym):
    m = re.match(r"_ZN((?:\d+[^\d]\S*?)+)E$", sym)
    if not m:
        return sym
    s, parts, i = m.group(1), [], 0
    while i < len(s) and s[i].isdigit():
        j = i
        while s[j].isdigit():
            j += 1
        n = int(s[i:j])
        parts.append(s[j : j + n])
        i = j + n
    if parts and re.fullmatch(r"h[0-9a-f]{16}", parts[-1]):
        parts.pop()
    out = "::".join(parts)
    for a, b in (("$LT$", "<"), ("$GT$", ">"), ("$u20$", " "), ("$RF$", "&"), ("$C$", ","), ("..", "::"), ("$u7b$", "{"), ("$u7d$", "}")):
        out = out.replace(a, b)
    return out


def crate_of(name):
    n = demangle_legacy(name)
    n = n.lstrip("<&*").replace("mut ", "").replace("dyn ", "")
    m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)", n)
    if not m:
        return "?"
    c = m.group(1)
    return "std/core/alloc" if c in ("core", "std", "alloc") else c


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 25
    buf = open(sys.argv[1], "rb").read()
    sections, bodies, names, data_bytes = parse(buf)
    total_code = sum(s for _, s in bodies)
    print(f"file {sys.argv[1]}: {len(buf)} bytes; code {total_code}, data {data_bytes}; {len(bodies)} functions, {len(names)} named")
    print("sections: " + ", ".join(f"{l}={s}" for l, s in sections))
    by_crate = defaultdict(lambda: [0, 0])
    for idx, size in bodies:
        c = crate_of(names.get(idx, "?"))
        by_crate[c][0] += size
        by_crate[c][1] += 1
    print(f"\ncode bytes by crate (share of {total_code}):")
    for c, (size, count) in sorted(by_crate.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"  {size:>8} {100 * size / total_code:5.1f}%  {count:>5} fns  {c}")
    print(f"\nlargest {top} functions:")
    for idx, size in sorted(bodies, key=lambda b: -b[1])[:top]:
        print(f"  {size:>8}  {demangle_legacy(names.get(idx, f'func{idx}'))[:150]}")


if __name__ == "__main__":
    main()
