"""The predicate language of claim files: parsed into a small tree, never eval()'d.

A check compares one statistic per group of configurations with a threshold:

    check      := stat test [quantifier]
    stat       := 'ratio' '(' sel ',' sel kwargs ')'    mean of A over mean of B (geometric means)
                | 'contrast' '(' sel ',' sel ',' sel ',' sel kwargs ')'
                                                        (A / B) / (C / D): whether A/B exceeds C/D
                | 'diff'  '(' sel ',' sel kwargs ')'    mean of A minus mean of B
                | 'value' '(' sel kwargs ')'            mean of A
    sel        := 'select' '(' [term {',' term}] ')'
    term       := KEY '=' WORD {'|' WORD}               the configuration's KEY is one of the words
    kwargs     := {',' ('metric' '=' metric | 'by' '=' '[' [KEY {',' KEY}] ']')}   metric required
    metric     := KEY [('/' | '-') KEY]                 a metric, or one over / minus another per record
                                                        (a name may also be a numeric configuration
                                                        or context field: hit_ratio_achieved-hit_ratio,
                                                        footprint_bytes/llc_bytes)
    test       := ('<' | '<=' | '>' | '>=') NUMBER
                | 'within' NUMBER '..' NUMBER           the interval inside the range (ends included)
                | 'equivalent' NUMBER '..' NUMBER       equivalence (TOST): the interval at twice the
                                                        error rate (two one-sided tests) inside the margin
                | 'outside' NUMBER '..' NUMBER          a difference either way: the interval wholly
                                                        outside the range
    quantifier := 'for' ('all' | 'any' | 'at' 'least' INT ['%'])           default: for all

KEY is a configuration field (ds, mode, workload, threads, ...) or a metric name; WORD
is a value as the records hold it (letters, digits and . _ - + / : characters). `by`
names the fields whose values make the groups: each group compares the configurations of
A and B that share those values. Example:

    ratio(select(mode=pmem-trans, workload=pmemids-write),
          select(mode=pmem-persist, workload=pmemids-write),
          metric=ops_per_sec, by=[ds]) < 1 for all

parse(text) returns a Check or raises PredicateError naming the column and what was
expected there. Which keys and metrics exist is checked by the caller (claims.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FUNCTIONS = ("ratio", "contrast", "diff", "value")
ARITY = {"ratio": 2, "contrast": 4, "diff": 2, "value": 1}
OPERATORS = ("<=", ">=", "<", ">")

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<range>\.\.)
  | (?P<op><=|>=|<|>)
  | (?P<punct>[(),=\[\]|%])
  | (?P<number>[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?![A-Za-z0-9_:/+-]))
  | (?P<word>[A-Za-z0-9_][A-Za-z0-9_.+/:-]*)
""", re.VERBOSE)


class PredicateError(ValueError):
    """A predicate that does not parse; str() names the column."""


@dataclass(frozen=True)
class Selection:
    terms: tuple[tuple[str, tuple[str, ...]], ...]  # (key, accepted values), in written order

    def text(self) -> str:
        return "select(" + ", ".join(f"{k}={'|'.join(v)}" for k, v in self.terms) + ")"


RANGE_TESTS = ("within", "equivalent", "outside")


@dataclass(frozen=True)
class Test:
    op: str                      # one of OPERATORS, or one of RANGE_TESTS
    low: float | None = None     # ranges: lower end; comparisons: the threshold
    high: float | None = None    # ranges: upper end

    def text(self) -> str:
        if self.op in RANGE_TESTS:
            return f"{self.op} {_num(self.low)}..{_num(self.high)}"
        return f"{self.op} {_num(self.low)}"


@dataclass(frozen=True)
class Quantifier:
    kind: str          # "all", "any", "count" (at least N), "percent" (at least N%)
    n: int = 0

    def text(self) -> str:
        return {"all": "for all", "any": "for any", "count": f"for at least {self.n}",
                "percent": f"for at least {self.n}%"}[self.kind]

    def needed(self, groups: int) -> int:
        """How many groups must hold, out of `groups`."""
        if self.kind == "all":
            return groups
        if self.kind == "any":
            return 1
        if self.kind == "count":
            return self.n
        return -(-self.n * groups // 100)  # ceil


@dataclass(frozen=True)
class Check:
    function: str                      # ratio | contrast | diff | value
    selections: tuple[Selection, ...]  # ARITY[function] of them
    metric: str                        # "name", "name/name" or "name-name": per record
    by: tuple[str, ...]
    test: Test
    quantifier: Quantifier = field(default_factory=lambda: Quantifier("all"))

    def metrics(self) -> tuple[str, ...]:
        """The record fields the check reads (metrics, or numeric config/context fields)."""
        return metric_names(self.metric)

    def keys(self) -> set[str]:
        """Every configuration field the check names."""
        return {k for s in self.selections for k, _ in s.terms} | set(self.by)

    def text(self) -> str:
        args = [s.text() for s in self.selections] + [f"metric={self.metric}"]
        if self.by:
            args.append(f"by=[{', '.join(self.by)}]")
        return f"{self.function}({', '.join(args)}) {self.test.text()} {self.quantifier.text()}"


def _num(v: float | None) -> str:
    return f"{v:g}"


_METRIC = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:([/-])([A-Za-z_][A-Za-z0-9_]*))?")


def metric_names(metric: str) -> tuple[str, ...]:
    """'a' -> (a,); 'a/b' and 'a-b' -> (a, b)."""
    m = _METRIC.fullmatch(metric)
    return (m.group(1),) if m.group(3) is None else (m.group(1), m.group(3))


def metric_operator(metric: str) -> str | None:
    """'/' or '-' for a metric over or minus another, None for one metric."""
    return _METRIC.fullmatch(metric).group(2)


@dataclass
class _Token:
    kind: str
    text: str
    col: int


def _tokens(text: str) -> list[_Token]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise PredicateError(f"column {pos + 1}: unexpected character {text[pos]!r}")
        if m.lastgroup != "space":
            out.append(_Token(m.lastgroup, m.group(), pos + 1))
        pos = m.end()
    out.append(_Token("end", "", len(text) + 1))
    return out


class _Parser:
    def __init__(self, text: str):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> _Token:
        return self.toks[self.i]

    def fail(self, expected: str) -> PredicateError:
        t = self.peek()
        found = "the end" if t.kind == "end" else repr(t.text)
        return PredicateError(f"column {t.col}: expected {expected}, found {found}")

    def take(self, text: str) -> _Token:
        t = self.peek()
        if t.text != text or t.kind == "end":
            raise self.fail(repr(text))
        self.i += 1
        return t

    def accept(self, text: str) -> bool:
        if self.peek().text == text and self.peek().kind != "end":
            self.i += 1
            return True
        return False

    def word(self, what: str) -> str:
        t = self.peek()
        # A value may look like a number (threads=16): numbers are words here.
        if t.kind not in ("word", "number"):
            raise self.fail(what)
        self.i += 1
        return t.text

    def key(self, what: str) -> str:
        t = self.peek()
        if t.kind != "word" or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", t.text):
            raise self.fail(what)
        self.i += 1
        return t.text

    def metric(self) -> str:
        t = self.peek()
        if t.kind != "word" or not _METRIC.fullmatch(t.text):
            raise self.fail("a metric name, or name/name, or name-name")
        self.i += 1
        return t.text

    def number(self) -> float:
        t = self.peek()
        if t.kind != "number":
            raise self.fail("a number")
        self.i += 1
        return float(t.text)

    def check(self) -> Check:
        t = self.peek()
        if t.text not in FUNCTIONS:
            raise self.fail(" or ".join(repr(f) for f in FUNCTIONS))
        self.i += 1
        function = t.text
        self.take("(")
        selections = [self.selection()]
        for _ in range(ARITY[function] - 1):
            self.take(",")
            selections.append(self.selection())
        metric, by = None, ()
        while self.accept(","):
            name = self.key("'metric' or 'by'")
            if name == "metric" and metric is None:
                self.take("=")
                metric = self.metric()
            elif name == "by" and not by:
                self.take("=")
                by = self.key_list()
            else:
                self.i -= 1
                raise self.fail("'metric' or 'by' (each at most once)")
        if metric is None:
            raise self.fail("', metric=<name>'")
        self.take(")")
        test = self.test()
        quantifier = self.quantifier()
        if self.peek().kind != "end":
            raise self.fail("the end of the predicate")
        if len(set(by)) != len(by):
            raise PredicateError(f"by=[{', '.join(by)}]: a key is listed twice")
        return Check(function, tuple(selections), metric, by, test, quantifier)

    def selection(self) -> Selection:
        self.take("select")
        self.take("(")
        terms: list[tuple[str, tuple[str, ...]]] = []
        if not self.accept(")"):
            while True:
                k = self.key("a configuration key")
                if any(k == seen for seen, _ in terms):
                    self.i -= 1
                    raise self.fail(f"a key not already in this select ('{k}' is)")
                self.take("=")
                values = [self.word("a value")]
                while self.accept("|"):
                    values.append(self.word("a value after '|'"))
                terms.append((k, tuple(values)))
                if self.accept(")"):
                    break
                self.take(",")
        return Selection(tuple(terms))

    def key_list(self) -> tuple[str, ...]:
        self.take("[")
        keys: list[str] = []
        if not self.accept("]"):
            while True:
                keys.append(self.key("a configuration key"))
                if self.accept("]"):
                    break
                self.take(",")
        return tuple(keys)

    def test(self) -> Test:
        t = self.peek()
        if t.kind == "op":
            self.i += 1
            return Test(t.text, self.number())
        if t.text in RANGE_TESTS:
            self.i += 1
            low = self.number()
            self.take("..")
            high = self.number()
            if low > high:
                raise PredicateError(f"column {t.col}: {t.text} {low:g}..{high:g}: the low end is above the high end")
            return Test(t.text, low, high)
        raise self.fail("a comparison (<, <=, >, >=), 'within A..B', 'equivalent A..B' or 'outside A..B'")

    def quantifier(self) -> Quantifier:
        if not self.accept("for"):
            return Quantifier("all")
        if self.accept("all"):
            return Quantifier("all")
        if self.accept("any"):
            return Quantifier("any")
        self.take("at")
        self.take("least")
        t = self.peek()
        if t.kind != "number" or not re.fullmatch(r"\d+", t.text) or int(t.text) < 1:
            raise self.fail("a whole number >= 1")
        self.i += 1
        n = int(t.text)
        if self.accept("%"):
            if n > 100:
                raise PredicateError(f"column {t.col}: at least {n}%: above 100%")
            return Quantifier("percent", n)
        return Quantifier("count", n)


def parse(text: str) -> Check:
    if not isinstance(text, str) or not text.strip():
        raise PredicateError("empty predicate")
    return _Parser(text).check()
