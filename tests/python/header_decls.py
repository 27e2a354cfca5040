"""The functions the public headers declare: every `tpu_*` name declared as a function at file
scope in include/tpu/*.h and the generated tpu_spec.h, leaving out `static inline` definitions
(they are compiled into the caller, never exported) and macros."""
import re
from pathlib import Path

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_CPLUSPLUS = re.compile(r"#ifdef __cplusplus.*?#endif", re.S)
_FUNC = re.compile(r"\b(tpu_\w+)\s*\(")


def _file_scope_statements(text):
    """The declarations at file scope, bodies of braces dropped, one string each."""
    text = _CPLUSPLUS.sub("", _COMMENT.sub(" ", text))
    text = "\n".join(l for l in text.replace("\\\n", " ").splitlines()
                     if not l.lstrip().startswith("#"))
    depth, cur = 0, []
    for ch in text:
        if ch == "{":
            depth += 1
            cur.append(" {} ")
        elif ch == "}":
            depth -= 1
            if depth == 0 and "".join(cur).lstrip().startswith("static"):
                yield "".join(cur)  # an inline definition ends at its brace
                cur = []
        elif depth == 0:
            if ch == ";":
                yield "".join(cur)
                cur = []
            else:
                cur.append(ch)


def declared_functions(headers):
    names = set()
    for h in headers:
        for stmt in _file_scope_statements(Path(h).read_text()):
            s = stmt.strip()
            if s.startswith("static") or s.startswith("typedef"):
                continue
            m = _FUNC.search(s)
            if m:
                names.add(m.group(1))
    return names


if __name__ == "__main__":
    import sys
    for n in sorted(declared_functions(sys.argv[1:])):
        print(n)
