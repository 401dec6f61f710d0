"""An analysis textbook set as LaTeX's book class sets one, written with PyMuPDF: chapters and
sections, numbered statements (Definition, Theorem, Lemma, Example, Exercise) with bold run-in heads
and italic bodies, proofs that end in a box at the right margin, displayed equations numbered
"(3.7)" at the right margin, a running head in body size that prints the section and the page
number, an Exercises section numbered "3.4." without the word, and back matter: answers to the
exercises and a glossary. Times (PyMuPDF's base-14 fonts) stands in for Computer Modern; 10 pt
body, 12 pt leading, a 345 pt text block."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

SIZE = 10.0
LEAD = 12.0
LEFT, WIDTH = 133.0, 345.0
RIGHT = LEFT + WIDTH
TOP, BOTTOM = 110.0, 700.0
HEAD_Y = 88.0  # the running head's baseline
FONTS = {"r": "tiro", "b": "tibo", "i": "tiit", "bi": "tibi"}
# Signs the base-14 fonts lack ("∈", "≤") come from a math font, as LaTeX takes them from cmsy.
MATH_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"

Run = tuple[str, str]  # (text, font key of FONTS)


@dataclass
class Book:
    """A page cursor over a PyMuPDF document: each method sets one element below the last."""

    first_page: int = 41  # the printed number of the first page
    doc: pymupdf.Document = field(default_factory=pymupdf.open)
    page: pymupdf.Page | None = None
    y: float = TOP
    head: str = ""  # the running head's section ("3.1 Continuity")

    def new_page(self, running_head: bool = True) -> None:
        self.page = self.doc.new_page(width=612, height=792)
        self.y = TOP
        number = str(self.first_page + self.doc.page_count - 1)
        if running_head and self.head:
            # Body size, slanted section title at one margin, the page number at the other.
            self._text(LEFT, HEAD_Y, self.head, "i")
            self._text(RIGHT - _width(number, "r"), HEAD_Y, number, "r")
        else:  # a chapter's opening page: its number centred at the foot
            self._text(LEFT + (WIDTH - _width(number, "r")) / 2, 740, number, "r")

    def _text(self, x: float, y: float, text: str, font: str, size: float = SIZE) -> None:
        assert self.page is not None
        for piece, math in _pieces(text):
            if math:
                self.page.insert_text((x, y), piece, fontname="math", fontfile=MATH_FONT, fontsize=size)
            else:
                self.page.insert_text((x, y), piece, fontname=FONTS[font], fontsize=size)
            x += _width(piece, font, size)

    def _room(self, height: float) -> None:
        if self.page is None or self.y + height > BOTTOM:
            self.new_page()

    def chapter(self, number: int, title: str) -> None:
        self.head = f"{number} {title}"
        self.new_page(running_head=False)
        self._text(LEFT, 180, f"Chapter {number}", "b", 20.7)
        self._text(LEFT, 220, title, "b", 24.9)
        self.y = 270

    def section(self, number: str, title: str) -> None:
        self._room(3 * LEAD)
        self.y += 1.2 * LEAD
        self._text(LEFT, self.y, number, "b", 14.4)
        self._text(LEFT + _width(number, "b", 14.4) + 14, self.y, title, "b", 14.4)
        self.head = f"{number} {title}"
        self.y += 1.6 * LEAD

    def paragraph(
        self,
        runs: Sequence[Run],
        indent: float = 15.0,
        box: bool = False,
        gap: float = 0.0,
        note: tuple[int, Sequence[str]] | None = None,
    ) -> None:
        """``runs`` filled into lines (ragged right), the first indented; ``box``: a proof's end mark
        at the right margin of its last line; ``gap``: space above, as a statement is set apart;
        ``note``: (n, lines) a margin note in the body's type beside the paragraph's line n (from 0),
        written after that line, where \\marginpar anchors it."""
        self.y += gap
        words = [(word, font) for text, font in runs for word in text.split()]
        lines: list[list[tuple[str, str]]] = [[]]
        x = indent
        for word, font in words:
            w = _width(word, font)
            if lines[-1] and x + w > WIDTH:
                lines.append([])
                x = 0.0
            lines[-1].append((word, font))
            x += w + _width(" ", "r")
        for n, line in enumerate(lines):
            self._room(LEAD)
            self.y += LEAD
            self._line(LEFT + (indent if n == 0 else 0.0), self.y, line)
            if note is not None and n == note[0]:
                for k, row in enumerate(note[1]):  # \marginparsep (11 pt) out from the text block
                    self._text(RIGHT + 11, self.y + k * LEAD, row, "r")
        if box:
            assert self.page is not None
            self.page.draw_rect(pymupdf.Rect(RIGHT - 6.5, self.y - 6.5, RIGHT, self.y), width=0.4)

    def _line(self, x: float, y: float, words: list[tuple[str, str]]) -> None:
        """One line, each run of words in one font set as one piece of text, spaces within it."""
        groups: list[tuple[str, str]] = []
        for word, font in words:
            if groups and groups[-1][1] == font:
                groups[-1] = (groups[-1][0] + " " + word, font)
            else:
                groups.append((word, font))
        for text, font in groups:
            self._text(x, y, text, font)
            x += _width(text + " ", font)

    def statement(self, head: str, body: str, title: str = "", italic: bool = True, alone: bool = False) -> None:
        """A numbered statement: "**Theorem 3.2 (Mean value theorem).** *body*"; ``alone``: amsthm's
        ``break`` style, the head (with its title, without a full stop) fills its own line and the
        body starts below it."""
        head_runs: list[Run] = [(f"{head} ({title})." if title else f"{head}.", "b")]  # LaTeX's \newtheorem
        body_runs: list[Run] = [(body, "i" if italic else "r")]
        if alone:
            self.paragraph([(head_runs[0][0].rstrip("."), "b")], indent=0.0, gap=LEAD / 2)
            self.paragraph(body_runs, indent=0.0)
        else:
            self.paragraph([*head_runs, *body_runs], indent=0.0, gap=LEAD / 2)

    def proof(self, body: str) -> None:
        self.paragraph([("Proof.", "i"), (body, "r")], box=True)
        self.y += LEAD / 2  # the proof environment's space below, as above a statement

    def display(self, math: str, tag: str = "") -> None:
        """A displayed equation centred in the text block, its number "(3.7)" at the right margin."""
        self._room(2 * LEAD)
        self.y += 1.6 * LEAD
        width = _width(math, "r")
        self._text(LEFT + (WIDTH - width) / 2, self.y, math, "r")
        if tag:
            self._text(RIGHT - _width(tag, "r"), self.y, tag, "r")
        self.y += 0.6 * LEAD

    def save(self, path: Path) -> Path:
        self.doc.save(path)
        return path


def _pieces(text: str) -> list[tuple[str, bool]]:
    """``text`` cut where it passes between Latin-1 and the signs set in the math font."""
    pieces: list[tuple[str, bool]] = []
    for char in text:
        math = ord(char) > 0xFF
        if pieces and pieces[-1][1] == math:
            pieces[-1] = (pieces[-1][0] + char, math)
        else:
            pieces.append((char, math))
    return pieces


def _width(text: str, font: str, size: float = SIZE) -> float:
    return sum(
        float(_MATH.text_length(piece, fontsize=size))
        if math
        else float(pymupdf.get_text_length(piece, fontname=FONTS[font], fontsize=size))
        for piece, math in _pieces(text)
    )


_MATH = pymupdf.Font(fontfile=MATH_FONT)


FILLER = (
    "Throughout this chapter the functions considered are real valued and defined on an interval of the real "
    "line, and the interval is taken to be open unless it is said otherwise. "
)
MVT = (
    "Let f be continuous on the closed interval [a, b] and differentiable on the open interval (a, b). Then "
    "there is a point c in (a, b) at which the tangent to the graph is parallel to the chord joining its ends."
)
ROLLE = "If g is continuous on [a, b], differentiable on (a, b) and g(a) = g(b), then g has a critical point in (a, b)."
ROLLE_PROOF = (
    "A continuous function attains its maximum and its minimum on a closed bounded interval. If both are "
    "attained at the endpoints then g is constant and every point is critical; otherwise an extremum lies "
    "inside the interval, and there the derivative vanishes by Fermat's criterion."
)
MVT_PROOF = (
    "Apply Lemma 3.1 to the auxiliary function g(x) = f(x) - f(a) - k(x - a), with the slope k chosen so "
    "that g(b) = g(a); the critical point it yields is the point c sought."
)
EXERCISE = "Show that a function whose derivative vanishes identically on an interval is constant there."


def analysis_book(path: Path, alone: bool = False, bare_exercises: bool = True, back_matter: bool = False) -> Path:
    """Chapter 3 of a textbook, "Differentiation": Lemma 3.1 (Rolle) with its proof, Theorem 3.2 (the
    mean value theorem, its head alone on its line when ``alone``) with a proof "by Lemma 3.1", the
    display (3.7) with words between its sides, an Example citing Theorem 3.2, and an Exercises
    section numbered "3.4." (or "Exercise 3.4." unless ``bare_exercises``); ``back_matter``: then
    the answers to the exercises and a glossary (:func:`back_matter`)."""
    book = Book()
    book.chapter(3, "Differentiation")
    book.paragraph([(FILLER * 3, "r")])
    book.section("3.1", "The derivative")
    book.paragraph([(FILLER * 4, "r")])
    book.statement(
        "Definition 3.0",
        "A function f is differentiable at a point x when the difference quotient "
        "of f at x has a finite limit; the limit is the derivative f'(x).",
        italic=False,
    )
    book.paragraph([(FILLER * 5, "r")])
    book.section("3.2", "Mean values")
    book.paragraph([(FILLER * 2, "r")])
    book.statement("Lemma 3.1", ROLLE, title="Rolle")
    book.proof(ROLLE_PROOF)
    book.statement("Theorem 3.2", MVT, title="Mean value theorem", alone=alone)
    book.proof(MVT_PROOF)
    book.paragraph(
        [
            (
                "A function with a bounded derivative is Lipschitz. In particular, if the derivatives of "
                "two functions agree everywhere, their difference is constant, so that",
                "r",
            )
        ]
    )
    book.display("f(x) = g(x) + C   for all x ∈ A", "(3.7)")
    book.paragraph(
        [("whenever A is an interval. The constant C is fixed by the value at a single point.", "r")], indent=0.0
    )
    book.paragraph(
        [
            (
                "Equation (3.7) fails when A is not an interval: on a union of two disjoint intervals the constant "
                "in equation (3.7) may take a different value on each of them.",
                "r",
            )
        ]
    )
    book.statement(
        "Example 3.3",
        "The function sin satisfies |sin x - sin y| ≤ |x - y| for all real x and y, "
        "by Theorem 3.2, because its derivative cos is bounded by one.",
        italic=False,
    )
    book.paragraph([(FILLER * 6, "r")])
    book.section("3.3", "Exercises")
    word = "" if bare_exercises else "Exercise "
    exercises = [
        ("3.4", EXERCISE),
        ("3.5", "Prove that the equation x^5 + x - 1 = 0 has exactly one real root."),
        ("3.6", "Find the points at which the function |x|^3 is twice differentiable."),
        ("3.7", "Give an example of a function differentiable everywhere whose derivative is not continuous."),
    ]
    for number, text in exercises:
        book.paragraph([(f"{word}{number}.", "b"), (text, "r")], indent=0.0, gap=LEAD / 3)
    if back_matter:
        add_back_matter(book)
    return book.save(path)


ANSWERS = [
    (
        "3.4",
        "By the mean value theorem f(y) - f(x) = f'(c)(y - x) = 0 for any two points x and y of the "
        "interval, so f takes one value throughout.",
    ),
    (
        "3.5",
        "The function x^5 + x - 1 is increasing, as its derivative 5x^4 + 1 is positive, and it "
        "changes sign on [0, 1]; so it has exactly one real root, near x = 0.755.",
    ),
    ("3.6", "Everywhere: the second derivative 6|x| is defined at every point, at zero too."),
    ("3.7", "Take f(x) = x^2 sin(1/x) with f(0) = 0; its derivative has no limit at zero."),
]
GLOSSARY = [
    (
        "chord",
        "The segment joining two points of a graph; its slope is the difference quotient of the "
        "function over the interval between them.",
    ),
    ("critical point", "A point at which the derivative of a function vanishes or does not exist."),
    (
        "Lipschitz function",
        "A function f with |f(x) - f(y)| at most a fixed constant times |x - y| for "
        "all x and y; the least such constant is its Lipschitz constant.",
    ),
    ("monotone function", "A function that is increasing throughout its domain or decreasing throughout it."),
    ("tangent", "The line through a point of a graph whose slope is the derivative there."),
]


def add_back_matter(book: Book) -> None:
    """An appendix of answers and a glossary, as a book class sets its back matter: each answer
    its number then its text, each glossary entry its term in bold then its definition, wrapped
    lines flush left (no hanging indent) and no space between entries."""
    book.head = "Answers to exercises"
    book.new_page(running_head=False)
    book._text(LEFT, 180, "Answers to exercises", "b", 24.9)
    book.y = 230
    for number, text in ANSWERS:
        book.paragraph([(f"{number}  {text}", "r")], indent=0.0)
    book.head = "Glossary"
    book.new_page(running_head=False)
    book._text(LEFT, 180, "Glossary", "b", 24.9)
    book.y = 230
    for term, text in GLOSSARY:
        book.paragraph([(term, "b"), (text, "r")], indent=0.0)


CHORD_NOTE = ["The chord's", "slope is the", "mean rate of", "change."]


def margin_note_page(path: Path) -> Path:
    """A page of chapter 3 with a margin note set in the body's type, as \\marginpar sets one: in the
    outer margin beside the third line of a paragraph."""
    book = Book()
    book.chapter(3, "Differentiation")
    book.paragraph([(FILLER * 2, "r")])
    book.section("3.1", "The derivative")
    book.paragraph([(FILLER * 4, "r")], note=(2, CHORD_NOTE))
    book.paragraph([(FILLER * 2, "r")])
    return book.save(path)
