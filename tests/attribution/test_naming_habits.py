"""Explicit cues with naming habits the 20 dev novels hardly use, read through the CLI path an
independent check uses: ``import-pdnc`` of a PDNC folder whose speakers are withheld,
``attribute`` with the shipped attributor, ``export quotes``.

The text is written for this test: one short scene per habit (a translated Russian novel's
patronymics and French titles, New York's "van der" families, a schoolroom's "Mr.
M'Choakumchild", a dialect "Mis'", a married name given in the gold list, "M." for
Monsieur, an elided "d'" opening a surname, archaic "quoth", initials), and tags less usual
than "said" ("used to say", "kept saying", "shot back", "at last said", "Denham's voice came"). Every cue names its
speaker by a form the gold character list holds, or as a relative of the character just
named ("said her father": Louisa's, whose list also gives her married name).
"""

from __future__ import annotations

import csv
import json

import pytest

from litlens.cli import main

CHARACTERS = {
    "Alexis Ivanovitch": ({"Alexis Ivanovitch", "Alexis"}, "M"),
    "The General": ({"The General", "General Zagorianski"}, "M"),
    "De Griers": ({"De Griers", "Marquis De Griers", "des Grieux"}, "M"),
    "Mr. Astley": ({"Mr. Astley", "Astley"}, "M"),
    "Mlle. Blanche": ({"Mlle. Blanche", "Blanche", "Mademoiselle Blanche"}, "F"),
    "Polina Alexandrovna": ({"Polina Alexandrovna", "Polina"}, "F"),
    "Antonida Vassilievna": ({"Antonida Vassilievna", "The Grandmother", "Granny"}, "F"),
    "Zoë Hélène": ({"Zoë", "Zoë Hélène"}, "F"),
    "Potapitch": ({"Potapitch"}, "M"),
    "Mrs. Manson Mingott": ({"Mrs. Manson Mingott", "Mrs. Mingott"}, "F"),
    "Newland Archer": ({"Newland Archer", "Archer", "Newland"}, "M"),
    "Ellen Olenska": ({"Ellen Olenska", "Madame Olenska", "the Countess", "Ellen"}, "F"),
    "Henry van der Luyden": ({"Henry van der Luyden", "Mr. van der Luyden"}, "M"),
    "Louisa van der Luyden": ({"Louisa van der Luyden", "Mrs. van der Luyden"}, "F"),
    "Sillerton Jackson": ({"Sillerton Jackson", "Mr. Jackson", "old Mr. Jackson"}, "M"),
    "Mr. Gradgrind": ({"Mr. Gradgrind", "Thomas Gradgrind", "Gradgrind"}, "M"),
    "Louisa": ({"Louisa", "Louisa Gradgrind", "Mrs. Bounderby"}, "F"),
    "Mr. Bounderby": ({"Mr. Bounderby", "Josiah Bounderby", "Bounderby"}, "M"),
    "Mrs. Sparsit": ({"Mrs. Sparsit"}, "F"),
    "Mr. M'Choakumchild": ({"Mr. M'Choakumchild", "M'Choakumchild"}, "M"),
    "Fannie Hamilton": ({"Fannie Hamilton", "Mis' Hamilton", "Fannie"}, "F"),
    "Berry Hamilton": ({"Berry Hamilton", "Berry"}, "M"),
    "John Andrew": ({"John Andrew", "John Andrew Last"}, "M"),
    "Tony Last": ({"Tony Last", "Tony"}, "M"),
    "Margaret Schlegel": ({"Margaret Schlegel", "Margaret", "Miss Schlegel"}, "F"),
    "Aunt Juley": ({"Aunt Juley", "Mrs. Munt"}, "F"),
    "Hercule Poirot": ({"Hercule Poirot", "Poirot", "M. Poirot"}, "M"),
    "Madame Merle": ({"Madame Merle", "Mme. Merle"}, "F"),
    "Mary Musgrove": ({"Mary Musgrove", "Mrs. Charles Musgrove"}, "F"),
    "Admiral Croft": ({"Admiral Croft", "the Admiral"}, "M"),
    "Sir Walter Elliot": ({"Sir Walter Elliot", "Sir Walter"}, "M"),
    "Ralph Denham": ({"Ralph Denham", "Denham", "Ralph"}, "M"),
    "Alec d'Urberville": ({"Alec d'Urberville", "d'Urberville", "Mr. d'Urberville"}, "M"),
    "The Duke of Omnium": ({"The Duke of Omnium", "the Duke"}, "M"),
    "St. John Rivers": ({"St. John Rivers", "St. John", "Mr. Rivers"}, "M"),
    "Sancho": ({"Sancho", "Sancho Panza"}, "M"),
    "J. B. Smith": ({"J. B. Smith", "Mr. Smith"}, "M"),
    "Sairey Gamp": ({"Sairey Gamp", "Mrs. Gamp"}, "F"),
}

# (speaker, quotation, paragraph with {q} where the quotation goes); (None, narration)
SCENES = [
    (None, "CHAPTER I\n\nI came back from my leave at last. Our party had been at the spa three days."),
    ("The General", "Well, Alexis, what news?", '"{q}" asked the General.'),
    ("Alexis Ivanovitch", "None, General,", '"{q}" I replied.'),
    ("De Griers", "Mlle. Blanche is waiting,", '"{q}" remarked De Griers.'),
    ("Mr. Astley", "Is she?", '"{q}" said Mr. Astley.'),
    ("Mlle. Blanche", "Certainly I am,", '"{q}" replied Mlle. Blanche, smiling at Polina.'),
    ("Polina Alexandrovna", "It is all one to me,", '"{q}" said Polina Alexandrovna.'),
    (None, "Then the door opened, and the old lady was carried in upon her chair."),
    ("Antonida Vassilievna", "So you are all here!", '"{q}" exclaimed the Grandmother.'),
    ("De Griers", "Madame, what a surprise!", '"{q}" said des Grieux, bowing low.'),
    ("Antonida Vassilievna", "Potapitch, to the tables.", '"{q}" cried Granny.'),
    ("Potapitch", "At once, Madame,", '"{q}" said Potapitch.'),
    ("Zoë Hélène", "May I come too?", '"{q}" asked Zoë.'),
    ("Antonida Vassilievna", "Come, child,", '"{q}" said Antonida Vassilievna.'),
    (None, "CHAPTER II\n\nIn the city the season had begun, and the opera house was full."),
    ("Mrs. Manson Mingott", "Who is that in our box?", '"{q}" asked Mrs. Manson Mingott.'),
    ("Newland Archer", "My cousin's cousin,", '"{q}" said Newland Archer.'),
    ("Sillerton Jackson", "I did not think they would try it,", '"{q}" said Sillerton Jackson.'),
    ("Ellen Olenska", "Newland, you remember me?", '"{q}" said Madame Olenska.'),
    ("Newland Archer", "Of course I do,", '"{q}" answered Archer.'),
    ("Henry van der Luyden", "We shall ask her to dine,", '"{q}" said Mr. van der Luyden.'),
    ("Louisa van der Luyden", "Yes, Henry, we must,", '"{q}" said Mrs. van der Luyden.'),
    ("Sillerton Jackson", "A handsome thing to do,", '"{q}" said old Mr. Jackson.'),
    ("Ellen Olenska", "How kind they are!", '"{q}" said the Countess.'),
    (None, "CHAPTER III\n\nThe schoolroom was plain and bare."),
    ("Mr. Gradgrind", "What I want is facts,", '"{q}" said Mr. Gradgrind.'),
    ("Mr. Gradgrind", "Give me your definition of a horse.", '"{q}" said Gradgrind.'),
    ("Mr. M'Choakumchild", "Very good,", '"{q}" said M\'Choakumchild.'),
    ("Mr. Bounderby", "I was born in a ditch,", '"{q}" said Bounderby.'),
    ("Mrs. Sparsit", "Indeed, sir!", '"{q}" said Mrs. Sparsit.'),
    ("Louisa", "Life is very short,", '"{q}" said Louisa.'),
    ("Mr. Gradgrind", "My dear Louisa!", '"{q}" said her father.'),
    (None, "Some years later, when she had married, the house was quiet."),
    ("Louisa", "I am tired,", '"{q}" said Mrs. Bounderby.'),
    ("Mr. Bounderby", "Tired! Of what?", '"{q}" said Mr. Bounderby.'),
    (None, "CHAPTER IV\n\nThe little house on the hill was quiet that evening."),
    ("Fannie Hamilton", "Berry, is that you?", '"{q}" said Mis\' Hamilton.'),
    ("Berry Hamilton", "Yes, Fannie, it's me,", '"{q}" said Berry.'),
    ("John Andrew", "Can I ride the pony?", '"{q}" asked John Andrew.'),
    ("Tony Last", "Not today,", '"{q}" said Tony.'),
    ("Margaret Schlegel", "You must not,", '"{q}" said Miss Schlegel.'),
    ("Aunt Juley", "I shall go there myself,", '"{q}" said Mrs. Munt.'),
    ("Hercule Poirot", "It is the little grey cells,", '"{q}" said M. Poirot.'),
    ("Madame Merle", "You are very clever,", '"{q}" said Mme. Merle.'),
    ("Mary Musgrove", "I am very unwell,", '"{q}" said Mrs. Charles Musgrove.'),
    ("Admiral Croft", "A fine day for it,", '"{q}" said Admiral Croft.'),
    ("Admiral Croft", "Well, well,", '"{q}" said the Admiral.'),
    ("Sir Walter Elliot", "The man is unbearable,", '"{q}" said Sir Walter.'),
    ("Ralph Denham", "I wish you would listen,", '"{q}" said Denham.'),
    (None, "CHAPTER V\n\nThe cart stopped at the gate of the great house, and a young man came out."),
    ("Alec d'Urberville", "Well, what can I do for you?", '"{q}" said d\'Urberville.'),
    ("The Duke of Omnium", "We dine at eight,", '"{q}" said the Duke.'),
    ("St. John Rivers", "You must come to India,", '"{q}" said St. John.'),
    ("Alec d'Urberville", "Never,", 'd\'Urberville said, "{q}"'),
    ("Sancho", "Let it be so,", '"{q}" quoth Sancho.'),
    ("J. B. Smith", "The matter is closed,", '"{q}" said J. B. Smith.'),
    ("Sairey Gamp", "Leave the bottle,", '"{q}" says Mrs. Gamp.'),
    (None, "CHAPTER VI\n\nThe fishing boats came in late, and the whole village stood on the quay."),
    ("Berry Hamilton", "The sea gives and the sea takes,", '"{q}" Berry used to say.'),
    ("Potapitch", "Not yet, not yet,", '"{q}" Potapitch kept saying.'),
    ("Mr. Astley", "Then I shall wait,", '"{q}" Mr. Astley shot back.'),
    ("Tony Last", "Here they are!", '"{q}" at last said Tony.'),
    ("Ralph Denham", "Late again,", '"{q}" Denham\'s voice came.'),
]


def _pdnc_folder(folder) -> dict[str, str]:
    """Write the scenes as a PDNC novel folder with the speaker column empty; the gold
    speaker of each quotation id."""
    folder.mkdir()
    text, gold, rows = "", {}, []
    for speaker, words, *paragraph in SCENES:
        if speaker is None:
            text += words + "\n\n"
            continue
        para = paragraph[0].replace("{q}", words)
        start = len(text) + para.index(words)
        qid = f"Q{len(rows)}"
        gold[qid] = speaker
        cue = para.rsplit('"', 1)[1].strip(" .,")
        rows.append([qid, words, repr([words]), json.dumps([[start, start + len(words)]]), "", "[]", "Explicit", cue,
                     "[[]]", "[[]]", "[[]]"])
        text += para + "\n\n"
    (folder / "novel_text.txt").write_text(text, encoding="utf-8")
    with open(folder / "character_info.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["Character ID", "Main Name", "Aliases", "Gender", "Category"])
        for k, (name, (aliases, sex)) in enumerate(CHARACTERS.items()):
            w.writerow([k, name, repr(sorted(aliases)), sex, "major"])
    with open(folder / "quotation_info.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["quoteID", "quoteText", "subQuotationList", "quoteByteSpans", "speaker", "addressees", "quoteType",
                    "referringExpression", "mentionTextsList", "mentionSpansList", "mentionEntitiesList"])
        w.writerows(rows)
    return gold


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("habits")
    gold = _pdnc_folder(root / "Habits")
    project, out = root / "habits.litlens", root / "quotes.jsonl"
    assert main(["import-pdnc", str(root / "Habits"), "-p", str(project)]) == 0
    assert main(["attribute", "-p", str(project)]) == 0
    assert main(["export", "quotes", "-p", str(project), "-o", str(out)]) == 0
    return gold, [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_every_explicit_cue_of_an_unfamiliar_naming_habit_finds_its_speaker(exported):
    gold, quotes = exported
    assert len(quotes) == len(gold)
    wrong = [(q["source_id"], q["referring_expression"], q["speaker"], gold[q["source_id"]])
             for q in quotes if q["speaker"] != gold[q["source_id"]]]
    assert wrong == []
