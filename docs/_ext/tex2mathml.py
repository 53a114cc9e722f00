"""A small TeX-to-MathML converter for the formulas of these docs (used by the docs build only).

The site renders its math at build time as MathML, which every current browser displays without a
script and without network access (MathJax from a CDN showed raw TeX offline). This handles the
subset of LaTeX the pages use: letters, numbers, operators, Greek letters, ``^``/``_`` scripts,
``\\frac`` (``\\dfrac``, ``\\tfrac``), ``\\sqrt``, ``\\binom``, big operators (``\\sum``,
``\\prod``), named functions (``\\log``, ``\\max``...), accents (``\\hat``, ``\\bar``,
``\\overline``), ``\\text`` and friends, ``\\left``/``\\middle``/``\\right`` fences, spaces,
and the ``cases`` environment. An unknown command raises `TexError` (the build fails, so a
formula is never shown half-converted).
"""

from __future__ import annotations

import html
import re

__all__ = ["TexError", "tex_to_mathml"]


class TexError(ValueError):
    """A construct this converter does not know."""


GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ",
    "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ",
    "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
}
UPPER_GREEK = {
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}
SYMBOLS = {
    "cdot": "⋅", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠",
    "in": "∈", "notin": "∉", "sim": "∼", "approx": "≈", "mid": "∣", "times": "×", "pm": "±",
    "infty": "∞", "dots": "…", "ldots": "…", "cdots": "⋯", "top": "⊤", "supseteq": "⊇",
    "subseteq": "⊆", "subset": "⊂", "supset": "⊃", "wedge": "∧", "vee": "∨", "lfloor": "⌊",
    "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉", "{": "{", "}": "}", "|": "‖", "#": "#",
    "%": "%", "&": "&", "_": "_", "to": "→", "rightarrow": "→", "leftarrow": "←",
    "Rightarrow": "⇒", "cup": "∪", "cap": "∩", "setminus": "∖", "forall": "∀", "exists": "∃",
    "partial": "∂", "propto": "∝", "equiv": "≡", "lt": "<", "gt": ">", "prime": "′",
    "langle": "⟨", "rangle": "⟩", "backslash": "\\", "lvert": "|", "rvert": "|",
    "lVert": "‖", "rVert": "‖", "vert": "|", "Vert": "‖", "ll": "≪", "gg": "≫", "neg": "¬",
    "ell": "ℓ", "hbar": "ℏ", "nabla": "∇", "aleph": "ℵ", "triangleq": "≜", "coloneqq": "≔",
    "emptyset": "∅", "cdotp": "⋅", "circ": "∘", "ast": "∗", "star": "⋆", "oplus": "⊕",
}
BIG = {"sum": "∑", "prod": "∏", "int": "∫", "bigcup": "⋃", "bigcap": "⋂"}
FUNCTIONS = {"log", "ln", "exp", "max", "min", "arctan", "sin", "cos", "tan", "det", "arg",
             "sup", "inf", "lim", "var", "Var", "mean", "median"}
SPACES = {",": "0.1667em", ":": "0.2222em", ";": "0.2778em", "!": "-0.1667em", " ": "0.25em",
          "quad": "1em", "qquad": "2em"}
TEXT = {"text": None, "textrm": None, "mathrm": "normal", "operatorname": "normal",
        "texttt": "monospace", "mathbf": "bold", "textbf": "bold", "mathit": "italic",
        "mathsf": "sans-serif", "mathcal": "script"}
ACCENTS = {"hat": "^", "widehat": "^", "bar": "¯", "overline": "‾", "tilde": "~",
           "widetilde": "~", "vec": "→", "dot": "˙"}
SIZES = {"big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "displaystyle",
         "textstyle", "limits", "nolimits"}
OPERATORS = set("+-=<>,;:()[]|!/*.?'")
#: functions whose scripts go under them in display formulas (max over j)
_LIMITS = {f"<mi>{f}</mi>" for f in ("max", "min", "lim", "sup", "inf")}

_TOKEN = re.compile(r"\\([A-Za-z]+|.)|(\d+(?:\.\d+)?)|(\s+)|(.)", re.S)


def _esc(s: str) -> str:
    return html.escape(s, quote=False)


class _Parser:
    def __init__(self, tex: str, display: bool) -> None:
        self.toks: list[tuple[str, str]] = []
        for m in _TOKEN.finditer(tex):
            if m[1] is not None:
                self.toks.append(("cmd", m[1]))
            elif m[2] is not None:
                self.toks.append(("num", m[2]))
            elif m[3] is not None:
                self.toks.append(("space", m[3]))
            else:
                self.toks.append(("chr", m[4]))
        self.i = 0
        self.display = display
        self.tex = tex

    # ------------------------------------------------------------------ token helpers
    def peek(self, skip_space: bool = True) -> tuple[str, str] | None:
        while skip_space and self.i < len(self.toks) and self.toks[self.i][0] == "space":
            self.i += 1
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise TexError(f"unexpected end of formula: {self.tex!r}")
        self.i += 1
        return tok

    def expect(self, value: str) -> None:
        tok = self.take()
        if tok != ("chr", value):
            raise TexError(f"expected {value!r}, got {tok[1]!r} in {self.tex!r}")

    def raw_group(self) -> str:
        """The text of a ``{...}`` group as written (for ``\\text``)."""
        self.expect("{")
        depth, out = 1, []
        while self.i < len(self.toks):
            kind, val = self.toks[self.i]
            self.i += 1
            if (kind, val) == ("chr", "{"):
                depth += 1
            elif (kind, val) == ("chr", "}"):
                depth -= 1
                if depth == 0:
                    return "".join(out)
            out.append("\\" + val if kind == "cmd" else val)
        raise TexError(f"unclosed group in {self.tex!r}")

    # ----------------------------------------------------------------------- grammar
    def expr(self, stop: tuple[str, ...] = ()) -> str:
        """A sequence of scripted atoms up to ``}``, ``&``, ``\\\\``, ``\\right``, ``\\end``."""
        out: list[str] = []
        while True:
            tok = self.peek()
            if tok is None or tok == ("chr", "}") or tok == ("chr", "&") or \
                    tok in (("cmd", "\\"), ("cmd", "right"), ("cmd", "end"), ("cmd", "middle")) \
                    or (tok[0] == "chr" and tok[1] in stop):
                return "".join(out)
            out.append(self.scripted())

    def mrow(self, stop: tuple[str, ...] = ()) -> str:
        return f"<mrow>{self.expr(stop)}</mrow>"

    def arg(self) -> str:
        """A command argument: a ``{group}`` or a single token (``\\frac12``)."""
        tok = self.peek()
        if tok == ("chr", "{"):
            self.take()
            inner = self.mrow()
            self.expect("}")
            return inner
        if tok is not None and tok[0] == "num" and len(tok[1]) > 1:
            self.toks[self.i] = ("num", tok[1][1:])
            return f"<mn>{tok[1][0]}</mn>"
        return self.atom()

    def scripted(self) -> str:
        base = self.atom()
        if base == "<mrow></mrow>":  # {}_2F_1: scripts written before the next atom
            sub, sup = self._scripts(base)[1:]
            if (sub is not None or sup is not None) and self.peek() is not None:
                return self._prescripted(sub, sup)
            return self._attach(base, sub, sup, big=False)
        big = base.startswith("<mo largeop") or base in _LIMITS
        base, sub, sup = self._scripts(base)
        return self._attach(base, sub, sup, big)

    def _scripts(self, base: str) -> tuple[str, str | None, str | None]:
        """The primes, subscript and superscript after ``base``."""
        sub = sup = None
        while True:
            tok = self.peek(skip_space=True)
            if tok == ("chr", "'"):
                self.take()
                base = f"<mrow>{base}<mo>′</mo></mrow>"
            elif tok == ("chr", "^") and sup is None:
                self.take()
                sup = self.arg()
            elif tok == ("chr", "_") and sub is None:
                self.take()
                sub = self.arg()
            else:
                return base, sub, sup

    def _prescripted(self, pre_sub: str | None, pre_sup: str | None) -> str:
        """``{}_2F_1``: one ``mmultiscripts`` with the prescripts and the atom's own scripts."""
        base, sub, sup = self._scripts(self.atom())
        none = "<none/>"
        return (f"<mmultiscripts>{base}{sub or none}{sup or none}<mprescripts/>"
                f"{pre_sub or none}{pre_sup or none}</mmultiscripts>")

    def _attach(self, base: str, sub: str | None, sup: str | None, big: bool) -> str:
        under = big and self.display
        if sub is not None and sup is not None:
            tag = "munderover" if under else "msubsup"
            return f"<{tag}>{base}{sub}{sup}</{tag}>"
        if sub is not None:
            tag = "munder" if under else "msub"
            return f"<{tag}>{base}{sub}</{tag}>"
        if sup is not None:
            tag = "mover" if under else "msup"
            return f"<{tag}>{base}{sup}</{tag}>"
        return base

    def atom(self) -> str:
        kind, val = self.take()
        if kind == "num":
            return f"<mn>{val}</mn>"
        if kind == "chr":
            if val == "{":
                inner = self.mrow()
                self.expect("}")
                return inner
            if val.isalpha():
                return f"<mi>{_esc(val)}</mi>"
            if val in OPERATORS:
                if val in "()[]|":
                    return f'<mo stretchy="false">{_esc(val)}</mo>'
                return f"<mo>{'−' if val == '-' else _esc(val)}</mo>"
            raise TexError(f"unexpected {val!r} in {self.tex!r}")
        return self.command(val)

    def command(self, name: str) -> str:
        if name in GREEK:
            return f"<mi>{GREEK[name]}</mi>"
        if name in UPPER_GREEK:
            return f'<mi mathvariant="normal">{UPPER_GREEK[name]}</mi>'
        if name in SPACES:
            return f'<mspace width="{SPACES[name]}"></mspace>'
        if name in SYMBOLS:
            return f"<mo>{_esc(SYMBOLS[name])}</mo>"
        if name in BIG:
            return f'<mo largeop="true" movablelimits="true">{BIG[name]}</mo>'
        if name in FUNCTIONS:
            return f"<mi>{name}</mi>" if f"<mi>{name}</mi>" in _LIMITS else \
                f"<mi>{name}</mi><mo>\u2061</mo>"
        if name in SIZES:
            return ""
        if name in ("frac", "dfrac", "tfrac", "cfrac"):
            num, den = self.arg(), self.arg()
            style = ' displaystyle="true"' if name == "dfrac" else \
                ' displaystyle="false"' if name == "tfrac" else ""
            frac = f"<mfrac>{num}{den}</mfrac>"
            return f"<mstyle{style}>{frac}</mstyle>" if style else frac
        if name == "binom":
            top, bottom = self.arg(), self.arg()
            return (f'<mrow><mo>(</mo><mfrac linethickness="0">{top}{bottom}</mfrac>'
                    "<mo>)</mo></mrow>")
        if name == "sqrt":
            if self.peek() == ("chr", "["):
                self.take()
                index = self.mrow(stop=("]",))
                self.expect("]")
                return f"<mroot>{self.arg()}{index}</mroot>"
            return f"<msqrt>{self.arg()}</msqrt>"
        if name in TEXT:
            text = self.raw_group()
            variant = TEXT[name]
            # spaces at the ends of a text would collapse: keep them as no-break spaces
            text = re.sub(r"^ +| +$", lambda m: "\u00a0" * len(m[0]), text)
            if variant is None:
                return f"<mtext>{_esc(text)}</mtext>"
            if variant == "normal":
                return f'<mi mathvariant="normal">{_esc(text)}</mi>'
            return f'<mstyle mathvariant="{variant}"><mtext>{_esc(text)}</mtext></mstyle>'
        if name in ACCENTS:
            body = self.arg()
            stretch = ' stretchy="true"' if name in ("overline", "widehat", "widetilde") else ""
            return f'<mover accent="true">{body}<mo{stretch}>{ACCENTS[name]}</mo></mover>'
        if name == "left":
            opening = self.fence()
            inner = [self.expr()]
            while self.peek() == ("cmd", "middle"):
                self.take()
                inner.append(f"<mo>{self.fence() or '|'}</mo>")
                inner.append(self.expr())
            tok = self.take()
            if tok != ("cmd", "right"):
                raise TexError(f"\\left without \\right in {self.tex!r}")
            closing = self.fence()
            return (f'<mrow><mo fence="true">{opening}</mo>{"".join(inner)}'
                    f'<mo fence="true">{closing}</mo></mrow>')
        if name == "begin":
            env = self.raw_group()
            if env not in ("cases", "matrix", "pmatrix", "array", "aligned"):
                raise TexError(f"unknown environment {env!r} in {self.tex!r}")
            return self.table(env)
        raise TexError(f"unknown command \\{name} in {self.tex!r}")

    def fence(self) -> str:
        kind, val = self.take()
        if kind == "chr" and val == ".":
            return ""
        if kind == "chr":
            return _esc(val)
        if val in SYMBOLS:
            return _esc(SYMBOLS[val])
        raise TexError(f"unknown delimiter \\{val} in {self.tex!r}")

    def table(self, env: str) -> str:
        rows: list[list[str]] = [[]]
        while True:
            cell = self.mrow()
            rows[-1].append(f"<mtd>{cell}</mtd>")
            tok = self.take()
            if tok == ("chr", "&"):
                continue
            if tok == ("cmd", "\\"):
                if self.peek() == ("chr", "["):  # \\[2ex]: the spacing is left out
                    while self.take() != ("chr", "]"):
                        pass
                rows.append([])
                continue
            if tok == ("cmd", "end"):
                self.raw_group()
                break
            raise TexError(f"unexpected {tok[1]!r} in {env} of {self.tex!r}")
        rows = [r for r in rows if r and r != ["<mtd><mrow></mrow></mtd>"]]
        body = "".join("<mtr>" + "".join(r) + "</mtr>" for r in rows)
        table = f'<mtable columnalign="left left">{body}</mtable>'
        if env == "cases":
            # the brace spans the rows: stretchy and symmetric, at least as tall as the rows
            # (browsers without a math font would otherwise draw a one-line brace)
            size = f"{1.3 * len(rows):.1f}em"
            return (f'<mrow><mo fence="true" form="prefix" stretchy="true" symmetric="true" '
                    f'minsize="{size}" maxsize="{size}">{{</mo>{table}</mrow>')
        if env == "pmatrix":
            return f"<mrow><mo>(</mo>{table}<mo>)</mo></mrow>"
        return table


def tex_to_mathml(tex: str, *, display: bool = False) -> str:
    """The MathML ``<math>`` element of a TeX formula (``display=True``: a block formula).

    >>> tex_to_mathml(r"\\frac1n")
    '<math><mfrac><mn>1</mn><mi>n</mi></mfrac></math>'
    """
    p = _Parser(tex, display)
    body = p.expr()
    if p.peek() is not None:
        raise TexError(f"unexpected {p.peek()[1]!r} in {tex!r}")
    if not display:
        return f"<math>{body}</math>"
    annotation = f'<annotation encoding="application/x-tex">{_esc(tex)}</annotation>'
    return (f'<math display="block"><semantics><mrow>{body}</mrow>{annotation}</semantics>'
            "</math>")
