"""The words that label figures, tables and document parts, in the languages docgraph reads.

English first, as before; then German, French, Spanish, Italian, Portuguese, Dutch, Polish,
Russian, and Chinese or Japanese (图 3, 表 2, 第 3 章). Captions start with a label word ("Abbildung
3:", "Tableau 2."); references name one mid-sentence ("siehe Abschnitt 4.2", "на рисунке 3"), so
the reference words take the inflected forms a sentence needs. A word ending in "." is an
abbreviation: the number may follow it without a space.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Caption words other than English, as written at the start of a caption (title case).
FIGURE_CAPTION_WORDS = (
    "Abbildung",
    "Abb.",
    "Bild",
    "Figura",
    "Figuur",
    "Afbeelding",
    "Rysunek",
    "Rys.",
    "Рисунок",
    "Рис.",
)
TABLE_CAPTION_WORDS = (
    "Tabelle",
    "Tableau",
    "Tabla",
    "Cuadro",
    "Tabella",
    "Tabela",
    "Quadro",
    "Tabel",
    "Таблица",
    "Табл.",
)
# Chinese and Japanese write the label before the number, often without a space: "图3", "表 2-1".
CJK_FIGURE = "[图圖図]"
CJK_TABLE = "(?<![代列发發图圖报報时時课課])表"  # not 代表 "represents", 列表 "list", 图表 "chart", ...

# Reference words other than English, per kind, as regular expressions matched without case.
REFERENCE_WORDS: dict[str, tuple[str, ...]] = {
    "figure": (
        r"Abbildung(?:en)?",
        r"Abb\.",
        r"Bild(?:er|ern)?",
        r"Figuras?",
        r"Figu(?:ur|ren)",
        r"Afbeelding(?:en)?",
        r"Rysun(?:ek|ku|ki|kach|kiem)",
        r"Rys\.",
        r"Рисун(?:ок|ка|ке|ком|ки|ков|кам|ках|ками)",
        r"Рис\.",
    ),
    "table": (
        r"Tabelle(?:n)?",
        r"Tableaux?",
        r"Tablas?",
        r"Cuadros?",
        r"Tabella",
        r"Tabelas?",
        r"Quadros?",
        r"Tabel(?:len)?",
        r"Таблиц(?:а|ы|е|у|ей|ам|ах|ами)",
        r"Табл\.",
    ),
    "section": (
        r"Abschnitt(?:e|en|s)?",
        r"Abschn\.",
        r"Secci(?:ón|ones)",
        r"Se(?:cç|ç)(?:ão|ões)",
        r"Sezion(?:e|i)",
        r"Secties?",
        r"Paragraaf",
        r"Раздел(?:а|е|ом|ы|ов|ах)?",
    ),
    "chapter": (
        r"Kapiteln?",
        r"Kap\.",
        r"Chapitres?",
        r"Cap[íi]tulos?",
        r"Capitol[oi]",
        r"Hoofdstuk(?:ken)?",
        r"Rozdzia(?:ł|le|łu)",
        r"Глав(?:а|ы|е|у|ой|ам|ах)",
    ),
    "appendix": (
        r"Anh(?:ang|änge|ängen)",
        r"Ap[ée]ndices?",
        r"Anexos?",
        r"Appendic(?:e|i)",
        r"Bijlagen?",
        r"Za(?:łącznik|łączniku)",
        r"Приложени(?:е|я|и|ю|ем)",
    ),
    "equation": (
        r"Gleichung(?:en)?",
        r"Gl\.",
        r"Équations?",
        r"Ecuaci(?:ón|ones)",
        r"Equazion(?:e|i)",
        r"Equa(?:ção|ções)",
        r"Vergelijking(?:en)?",
        r"Równani(?:e|a|u)",
        r"Уравнени(?:е|я|и|ю|ем)",
    ),
    "page": (
        r"Seiten?",
        r"P[áa]ginas?",
        r"Pág\.",
        r"Pagine",
        r"Stron(?:a|ie|y)",
        r"Страниц(?:а|ы|е|у|ах)",
        r"Стр\.",
    ),
    # Legal documents: clauses and articles ("Klausel 4", "Art. 12"), and what is annexed to them.
    "clause": (
        r"Klauseln?",
        r"Ziffern?",
        r"Ziff\.",
        r"Cl[áa]usulas?",
        r"Clausol[ae]",
    ),
    "article": (
        r"Artikel(?:n|s)?",
        r"Art[íi]culos?",
        r"Articol[oi]",
        r"Artigos?",
        r"Artyku(?:ł|łu|le)",
        r"Стать(?:я|и|е|ю|ей)",
    ),
    "annex": (
        r"Annexes?",
        r"Anlagen?",
        r"Allegat[oi]",
    ),
    "claim": (  # a patent's claims: "nach Anspruch 2", "selon la revendication 2"
        r"Anspr(?:uch|uchs|üche|üchen)",
        r"revendications?",
        r"reivindicaci(?:ón|ones)",
        r"rivendicazion[ei]",
    ),
    "slide": (
        r"Folien?",
        r"Diapositivas?",
        r"Diapositives?",
        r"Слайд(?:ы|а|е|ах)?",
    ),
}
# Chinese and Japanese reference words, written before the number without a space.
CJK_REFERENCE_WORDS = {"figure": CJK_FIGURE, "table": CJK_TABLE}
# Words joining the numbers after a plural reference word ("Tabellen 2 und 3", "таблицы 2 и 3").
LIST_WORDS = ("and", "or", "und", "oder", "et", "ou", "y", "e", "o", "en", "i", "lub", "и", "или")
# A plural reference word takes a list of numbers ("Figures 2, 3", "Abbildungen 2 und 3", "FIGS. 2A
# and 2B").
PLURAL_ENDINGS = ("s", "s.", "§§", "pp.", "en", "ux", "i", "ы", "и", "ах")
# A caption that says its table or figure goes on from an earlier page: "Table 3 (continued)", "Table
# 3 - cont.", "Tabelle 2 (Fortsetzung)", "表3（续）": the word in brackets, or ending the caption (but
# words that end captions otherwise: "Fees of the suite")
_GOES_ON = (
    r"(?:continued|cont(?:'|\.)?d?\.?|fortsetzung|forts\.|suite|continuación|continua(?:zione|ção)?|vervolg"
    r"|ciąg dalszy|продолжение|续|續|続き?)"
)
_GOES_ON_LAST = r"(?:continued|cont(?:'|\.)?d\.?|cont\.|fortsetzung|continuación|vervolg|продолжение)"  # no "suite"
CONTINUED = re.compile(
    rf"[(\[（]\s*{_GOES_ON}(?!\w)[^)\]）]{{0,40}}[)\]）]|(?<!\w){_GOES_ON_LAST}\s*[.:]?\s*$", re.IGNORECASE
)
# Words that may precede a chapter or section number in a heading ("Kapitel 3 Grundlagen"), and an
# appendix letter ("Anhang B").
HEADING_WORDS = ("Kapitel", "Abschnitt", "Chapitre", "Capítulo", "Capitolo", "Hoofdstuk", "Rozdział", "Глава", "Раздел")
APPENDIX_WORDS = ("Anhang", "Annexe", "Apéndice", "Anexo", "Appendice", "Bijlage", "Załącznik", "Приложение")
# Words before a legal document's article or clause number and the number or letter of what is
# annexed to it or groups its parts ("Article 5 ...", "Schedule 2 ...", "Annex III ...", "Part II ...").
ARTICLE_WORDS = ("Article", "Artikel", "Artículo", "Articolo", "Artigo", "Artykuł", "Статья")
CLAUSE_WORDS = ("Clause", "Klausel", "Ziffer", "Cláusula", "Clausola")
ANNEX_WORDS = ("Schedule", "Annex", "Anlage", "Allegato", "Exhibit")
PART_WORDS = ("Part", "Teil", "Partie", "Parte", "Deel", "Część", "Часть")
# A legal document's "Article 5 ...", "§ 5 ...", "Clause 7 ...", "SCHEDULE 2 – ...", "Annex III ...",
# "Part II ...": the number, Roman numeral or letter after the word, as "Appendix B" gives "B".
_LEGAL_HEADING_WORDS = "|".join(
    f for w in (*ARTICLE_WORDS, *CLAUSE_WORDS, *ANNEX_WORDS, *PART_WORDS) for f in (w, w.upper())
)
LEGAL_HEADING_NUMBER = re.compile(
    rf"^(?:(?:{_LEGAL_HEADING_WORDS})\s+|§\s*)(\d{{1,3}}(?:\.\d{{1,3}})*|[IVXLC]{{1,7}}|[A-Z])\.?(?=[:\s.–—-]|$)"
)
# A heading that is a label alone ("Chapter 3", "PART II", "Anhang B"), its title set on the next line
_LABEL_WORDS = "|".join(
    ("chapter", "appendix", *HEADING_WORDS, *APPENDIX_WORDS, *ARTICLE_WORDS, *CLAUSE_WORDS, *ANNEX_WORDS, *PART_WORDS)
)
BARE_HEADING_LABEL = re.compile(
    rf"^\s*(?i:{_LABEL_WORDS})\s+(?:\d{{1,3}}|[IVXLC]{{1,6}}|[A-Z])\.?\s*$|^\s*第\s*\d{{1,3}}\s*[章部篇]\s*$"
)
# The status a standard sets between an annex's label and its title: "(normative)", "(informative)"
HEADING_STATUS = re.compile(r"^\(\s*[^\W\d_][^()]{0,30}\)$")
# A heading "Kapitel 3 ..." is what "Kapitel 3" refers to, as "Chapter 3 ..." is for "Chapter 3".
TITLE_WORDS = {
    "chapter": frozenset({"chapter", "kapitel", "chapitre", "capítulo", "capitolo", "hoofdstuk", "rozdział", "глава"}),
    "appendix": frozenset({"appendix", *(w.lower() for w in APPENDIX_WORDS)}),
    "article": frozenset(w.lower() for w in ARTICLE_WORDS),
    "clause": frozenset(w.lower() for w in CLAUSE_WORDS),
    "schedule": frozenset({"schedule"}),
    "annex": frozenset({"annex", "annexe", "anlage", "anhang", "anexo", "allegato"}),
    "exhibit": frozenset({"exhibit"}),
    "part": frozenset(w.lower() for w in PART_WORDS),
    "note": frozenset({"note", "nota"}),
}
# Headings of what is attached to a legal document or groups its parts ("Schedule 2 ...", "Annex III
# ...", "Part II ..."): numbered in a series of their own, not in the clauses' numbering.
ATTACHMENT_TITLE_WORDS = frozenset(w.lower() for w in (*ANNEX_WORDS, *PART_WORDS))
# A Chinese or Japanese heading's number: "第3章", "第 2 节", "第1節".
CJK_HEADING_NUMBER = re.compile(r"^\s*第\s*(\d{1,3})\s*[章节節部篇]\s*")
# What a label's number may not run on into: a Latin, Greek or Cyrillic letter or a digit. A CJK
# character may follow ("图3所示"), where a word boundary would not be found.
NUMBER_END = r"(?![0-9A-Za-z_\u00c0-\u024f\u0370-\u04ff])"


def caption_word_pattern(words: Iterable[str]) -> str:
    """An alternation of caption ``words`` in title and upper case; a full word needs a space
    before its number, an abbreviation ("Abb.") need not have one."""
    forms = sorted({form for word in words for form in (word, word.upper())}, key=len, reverse=True)
    return "|".join(re.escape(f) + (r"\s*" if f.endswith(".") else r"\s+") for f in forms)


# Headings of a document's front matter, in the languages above: parts of a document, never its title.
FRONT_MATTER_HEADING = re.compile(
    r"^\s*(?:abstract|summary|executive summary|synopsis|contents|table of contents|introduction|"
    r"preface|foreword|overview|keywords|key words|acknowledge?ments?|"
    r"r[ée]sum[ée]|table des mati[èe]res|sommaire|zusammenfassung|inhalt|inhaltsverzeichnis|einleitung|"
    r"resumen|resumo|[íi]ndice|sum[áa]rio|introducci[óo]n|introdu[çc][ãa]o|introduzione|sommario)\b",
    re.IGNORECASE,
)
# The label of a notice box (an admonition: "Warning", "Note", "Tip"), set bold on a line of its own
# over the box's text: a label, not a heading, so the text after the box stays in its section.
NOTICE_LABEL = re.compile(
    r"^\s*(?i:warning|caution|danger|note|notice|important|tip|hint|attention|remark|"
    r"warnung|achtung|vorsicht|gefahr|hinweis|wichtig|tipp|avertissement|remarque|astuce|conseil|"
    r"advertencia|aviso|precauci[óo]n|nota|importante|consejo|avvertenza|attenzione|suggerimento)\s*:?\s*$"
)
# The label a minute's outcome opens with, set bold at the start of its line ("ACTION: Ravi Patel to
# report ...", "RESOLVED: That the policy be approved"): the line is a paragraph of the minute, not
# a heading, so the minute's next outcome and text stay under the minute's own heading.
# A record's field label: "Date:", "In attendance:", "Report of:", a capitalised label of one to
# three words and its colon (minutes' header fields, a report's cover box).
FIELD_LABEL = re.compile(r"^[A-Z][A-Za-z'’-]*(?: [A-Za-z][A-Za-z'’-]*){0,2}:(?=\s|$)")
MINUTE_LABEL = re.compile(r"^\s*(?i:actions?|decisions?|resolved|agreed|noted)\s*:")
# A deed's date line on its cover, the day and month left blank to be filled in on completion
# ("DATED            2024", "Dated: 14 March 2024"): a field, not a heading over the lease under it.
DATE_LINE = re.compile(r"^\s*(?i:dated?)\s*:?\s+(?:\d{1,2}(?:st|nd|rd|th)?\s+)?(?:[A-Za-z]+\s+)?(?:19|20)\d{2}\s*$")
# A copyright line ("© ISO 2021", "© 2024 Acme Ltd. All rights reserved."): set bold and large on a
# standard's cover, it is a notice, never a heading.
COPYRIGHT_LINE = re.compile(r"^\s*©\s*\S")
# A record's field on a line of its own, a label of words and its value a date, a number or a code
# ("Date: 14/03/2024", "Neutral Citation Number: [2024] EWCA Civ 123", "Case No: CA-2023-001234"): set
# bold, it is still a field; a heading's label carries its own number ("Ground 1: ...", "Part 3: ...").
VALUE_FIELD = re.compile(r"^\s*[A-Z][A-Za-z'’.-]*(?: [A-Za-z][A-Za-z'’.-]*){0,3}:\s+(?=[^\s\d]*\d)\S.{0,60}$")
# What opens a patent's claims: a heading "Claims", a line "What is claimed is:" (US), or "We claim:".
CLAIMS_OPENING = re.compile(
    r"^\s*(?:what\s+is\s+claimed\s+is|what\s+is\s+claimed|(?:we|i)\s+claim|the\s+invention\s+claimed\s+is"
    r"|claims|patentansprüche|revendications|reivindicaciones|rivendicazioni|conclusies)\s*:?\s*$",
    re.IGNORECASE,
)

# A newsletter's jump lines, the whole line, brackets and a closing stop or arrow allowed: "Continued on
# page 5", "(continued on p. 4)", "Turn to page 7"; and above the rest, "Continued from page 1".
_CONTINUED = r"(?:continued|cont(?:'d|\.|d\.?))"
_JUMP_PAGE = r"(?:page|pg\.?|p\.)\s*\d+"
JUMP_OUT = re.compile(rf"^\W*(?:{_CONTINUED}\s+(?:on|over\s+on)|turn\s+to)\s+{_JUMP_PAGE}\W*$", re.IGNORECASE)
JUMP_IN = re.compile(rf"^\W*{_CONTINUED}\s+from\s+{_JUMP_PAGE}\W*$", re.IGNORECASE)
