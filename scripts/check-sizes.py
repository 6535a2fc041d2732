#!/usr/bin/env python3
"""The size rule of docs/development.md: a source file stays under 700 lines and a function under 100.

Prints every file and function over its limit and exits 1 if there is one. Run from anywhere;
tests/CMakeLists.txt runs it as a test. A function is a brace block at namespace or class scope whose
head ends in a parameter list (and qualifiers, an initializer list or a trailing return type): what a
reader must hold in mind at once. Lambdas and nested blocks count towards the function around them.
"""
import pathlib
import re
import subprocess
import sys

MAX_FILE_LINES = 699
MAX_FUNCTION_LINES = 100
FOLDERS = ("bench", "cli", "gpu", "io", "job", "pce", "prover", "scripts", "tests")
SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh", ".h")

CONTROL = re.compile(r"^(if|for|while|switch|catch|else|do|try|return)\b")
SCOPE = re.compile(r"^((template\s*<.*>\s*)?(class|struct|union|enum|namespace)\b|extern\s+\"C)")


def strip_code(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'" and 0 < i < n - 1 and text[i - 1].isalnum() and text[i + 1].isalnum():
            out.append(c)  # a digit separator: 4'544
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def is_function_head(head):
    head = " ".join(head.split())
    if not head or CONTROL.match(head) or SCOPE.match(head) or head.startswith("#"):
        return False
    if head.endswith(("=", ",", "(", "[", "return")) or "](" in head or head.startswith("["):
        return False
    # `f(...) {`, `f(...) const noexcept override {`, `T(...) : a_(x), b_(y) {`, `auto f(...) -> T {`
    return re.search(r"\)\s*(const|noexcept|override|final|mutable|volatile|&|&&|\s)*(->[^{]*)?$", head) is not None \
        or re.search(r"\)\s*:\s*[\w:]+[({].*[)}]$", head) is not None


def long_functions(path):
    code = strip_code(path.read_text(errors="replace"))
    code = re.sub(r"(?m)^[ \t]*#.*$", "", code)  # preprocessor lines
    found, stack, head_start = [], [], 0
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            in_function = any(kind == "function" for kind, _ in stack)
            head = code[head_start:i]
            kind = "block"
            if not in_function:
                if is_function_head(head):
                    kind = "function"
                elif SCOPE.match(" ".join(head.split())):
                    kind = "scope"
            stack.append((kind, line))
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, begun = stack.pop()
                if kind == "function" and line - begun + 1 > MAX_FUNCTION_LINES:
                    found.append((begun, line - begun + 1))
            head_start = i + 1
        elif c == ";":
            head_start = i + 1
    return found


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    listed = subprocess.run(["git", "-C", str(root), "ls-files", *FOLDERS], capture_output=True, text=True,
                            check=True).stdout.split()
    problems = 0
    for name in sorted(listed):
        path = root / name
        if not name.endswith(SUFFIXES) or not path.is_file():
            continue
        lines = path.read_text(errors="replace").count("\n")
        if lines > MAX_FILE_LINES:
            print(f"{name}: {lines} lines (at most {MAX_FILE_LINES})")
            problems += 1
        for begun, length in long_functions(path):
            print(f"{name}:{begun}: a function of {length} lines (at most {MAX_FUNCTION_LINES})")
            problems += 1
    checked = sum(1 for name in listed if name.endswith(SUFFIXES))
    print(f"size rule: {checked} files checked, {problems} over")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
