"""Quotations of direct speech and the characters who speak them.

Where to look (each module one responsibility; start at ``detect.py``):

Quotation detection, in pipeline order
  ``detect.py``    the entry point :func:`~litlens.quotes.detect.detect_quotations` and the
                   whole behaviour told stage by stage in its docstring
  ``marks.py``     quote style of a book, quote marks -> quoted segments, repairs of texts
                   that lost their marks in an ASCII conversion
  ``nested.py``    retold speech and stage directions cut out of a quotation
  ``grouping.py``  segments -> quotations: joins around a cue, beats, splits at asides
  ``filters.py``   not speech: titles and words in narration, names given, verse, songs,
                   reported speech, the narrator's own fragments
  ``written.py``   not speech either: letters, notices, written or imagined words, epigraphs
  ``keep.py``      keep or drop each candidate: the rules' signals, and LightGBM trees learned
                   from PDNC over them (``resources/quote_keep.txt``)
  ``types.py``     explicit / anaphoric / implicit, from the cue that belongs to a quotation
  ``cues.py``      speech cues before and after a quotation ("said he", "Elizabeth replied,")
                   read by grouping, filters, typing and speaker attribution
  ``lexicon.py``   speech verbs and nouns, honorifics, pronouns; :class:`Names` tells proper
                   names from other capitalised words

Scoring against PDNC
  ``pdnc.py``      reading PDNC's annotation files
  ``evaluate.py``  matching predicted to gold quotations (IoU >= 0.5) and scores

Characters
  ``characters.py`` the entry point for character discovery, and the modules it imports
  (``names.py``, ``mentions.py``, ``forms.py``, ``aliases.py``, ``gender.py``, ...)
"""
