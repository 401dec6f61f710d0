"""Past forms of common irregular English verbs ("took" -> "take"): a question asks how long
something takes and the text says it took 14 hours. Auxiliaries (be, have, do) are stop words;
forms that are also common other words or units ("left", "lay", "saw", "fell", "bit", "led",
"rose", "shot", "bound", "won", "met") are left out; "found" stays, as "not found" asks "find"."""

from __future__ import annotations

# base: past and past participle forms (the regular ones are Porter's step 1b, in word_forms)
_FORMS = {
    "arise": "arose arisen", "become": "became", "begin": "began begun", "bend": "bent",
    "bite": "bitten", "blow": "blew blown", "break": "broke broken", "bring": "brought",
    "build": "built", "buy": "bought", "catch": "caught", "choose": "chose chosen", "come": "came",
    "deal": "dealt", "dig": "dug", "draw": "drew drawn", "drink": "drank drunk", "drive": "drove driven",
    "eat": "ate eaten", "feed": "fed", "feel": "felt", "fight": "fought", "find": "found", "fly": "flew flown",
    "forbid": "forbade forbidden", "forget": "forgot forgotten", "freeze": "froze frozen",
    "get": "got gotten", "give": "gave given", "go": "went gone", "grow": "grew grown", "hang": "hung",
    "hear": "heard", "hide": "hid hidden", "hold": "held", "keep": "kept", "know": "knew known",
    "lend": "lent", "lose": "lost", "make": "made", "mean": "meant",
    "pay": "paid", "ride": "rode ridden", "ring": "rang rung", "rise": "risen", "run": "ran",
    "say": "said", "seek": "sought", "sell": "sold", "send": "sent", "shake": "shook shaken",
    "shine": "shone", "show": "shown", "shrink": "shrank shrunk", "sing": "sang sung",
    "sink": "sank sunk", "sleep": "slept", "slide": "slid", "speak": "spoke spoken",
    "spend": "spent", "spin": "spun", "stand": "stood", "steal": "stole stolen", "stick": "stuck",
    "strike": "struck", "swim": "swam swum", "swing": "swung", "take": "took taken", "teach": "taught",
    "tear": "tore torn", "tell": "told", "think": "thought", "throw": "threw thrown",
    "understand": "understood", "wake": "woke woken", "wear": "wore worn",
    "write": "wrote written",
}  # fmt: skip

BASE_OF = {form: base for base, forms in _FORMS.items() for form in forms.split()}
