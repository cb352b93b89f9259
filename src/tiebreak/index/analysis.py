"""Text analysis: tokenizer, stopword lists and stemmers.

The default analyser approximates Lucene's ``EnglishAnalyzer`` (what Anserini indexes with):

0. **Unicode normalisation**: NFKC (``unicodedata.normalize("NFKC", text)``), for documents and
   queries alike, so ``cafe\u0301`` (e + combining acute) is the term ``café`` and the
   ligature ``ﬁ``, full-width ``Ｆｏｘ`` or superscript ``²`` become ``fi``, ``Fox``, ``2``. NFKC
   rather than NFC because a search engine wants compatibility variants folded too: it is the
   form of ICU's normaliser in Lucene and Elasticsearch (``icu_normalizer``, ``nfkc_cf``,
   Unicode Standard Annex #15). Indexes built before normalisation was added record none in
   their analyser configuration and keep analysing queries without it, so documents and
   queries always agree.

1. **tokenize**: lowercase, then the regex :data:`TOKEN_RE`. A token is a run of word characters
   (letters, digits, underscore). As in Unicode word breaking (UAX #29, which Lucene's
   StandardTokenizer implements), a single ``.``, ``'``, ``’`` or ``:`` between two letters joins
   ("u.s.a", "don't"), and a single ``.``, ``'``, ``’``, ``,`` or ``;`` between two digits joins
   ("3.14", "1,000"); letter/digit mixes split there ("a.1" -> "a", "1"). This is a regex
   approximation of UAX #29 (no special handling of scripts, emoji or Katakana).
2. **possessives**: a trailing ``'s`` / ``’s`` is removed (Lucene's EnglishPossessiveFilter).
3. **stopwords**: removed *before* stemming; removed tokens take no position, so positions count
   the kept tokens only.
4. **stemming**: ``porter`` (PyStemmer's Snowball "porter", i.e. the original Porter algorithm
   that Lucene's PorterStemFilter implements), ``krovetz`` (R. Krovetz, "Viewing morphology as
   an inference process", SIGIR 1993: the dictionary-based KStem, through the ``krovetzstemmer``
   package, a binding to the C++ KStem of the Lemur project -- what Indri stems with, and so
   what Lu (2018) indexes with; the ``krovetz`` extra), ``krovetz-like`` (our own light
   inflectional stemmer, :func:`light_stem`; **not** Krovetz's KStem), or ``none``.

The configuration is a small dict (:meth:`Analyzer.config`) stored in the index manifest and used
again at query time.
"""

from __future__ import annotations

import os
import re
import unicodedata
from functools import lru_cache

__all__ = ["Analyzer", "TOKEN_RE", "STOPWORDS_LUCENE", "STOPWORDS_SMART", "light_stem",
           "STEMMERS"]

TOKEN_RE = re.compile(r"\w+(?:(?:(?<=[^\W\d_])[.'’:](?=[^\W\d_])|(?<=\d)[.'’,;](?=\d))\w+)*")
_POSSESSIVE = re.compile(r"['’]s$")
#: Unicode normalisation forms an analyser applies (see the module docstring, step 0)
NORMALIZATIONS = ("NFKC", "NFC", "none")

#: Lucene's English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), 33 words.
STOPWORDS_LUCENE = frozenset("""
a an and are as at be but by for if in into is it no not of on or such that the their then there
these they this to was will with
""".split())

#: The SMART system's English stop list (our transcription: 570 words).
STOPWORDS_SMART = frozenset("""
a a's able about above according accordingly across actually after afterwards again against ain't
all allow allows almost alone along already also although always am among amongst an and another
any anybody anyhow anyone anything anyway anyways anywhere apart appear appreciate appropriate are
aren't around as aside ask asking associated at available away awfully b be became because become
becomes becoming been before beforehand behind being believe below beside besides best better
between beyond both brief but by c c'mon c's came can can't cannot cant cause causes certain
certainly changes clearly co com come comes concerning consequently consider considering contain
containing contains corresponding could couldn't course currently d definitely described despite
did didn't different do does doesn't doing don't done down downwards during e each edu eg eight
either else elsewhere enough entirely especially et etc even ever every everybody everyone
everything everywhere ex exactly example except f far few fifth first five followed following
follows for former formerly forth four from further furthermore g get gets getting given gives go
goes going gone got gotten greetings h had hadn't happens hardly has hasn't have haven't having he
he's hello help hence her here here's hereafter hereby herein hereupon hers herself hi him himself
his hither hopefully how howbeit however i i'd i'll i'm i've ie if ignored immediate in inasmuch
inc indeed indicate indicated indicates inner insofar instead into inward is isn't it it'd it'll
it's its itself j just k keep keeps kept know knows known l last lately later latter latterly least
less lest let let's like liked likely little look looking looks ltd m mainly many may maybe me mean
meanwhile merely might more moreover most mostly much must my myself n name namely nd near nearly
necessary need needs neither never nevertheless new next nine no nobody non none noone nor normally
not nothing novel now nowhere o obviously of off often oh ok okay old on once one ones only onto or
other others otherwise ought our ours ourselves out outside over overall own p particular
particularly per perhaps placed please plus possible presumably probably provides q que quite qv r
rather rd re really reasonably regarding regardless regards relatively respectively right s said
same saw say saying says second secondly see seeing seem seemed seeming seems seen self selves
sensible sent serious seriously seven several shall she should shouldn't since six so some somebody
somehow someone something sometime sometimes somewhat somewhere soon sorry specified specify
specifying still sub such sup sure t t's take taken tell tends th than thank thanks thanx that
that's thats the their theirs them themselves then thence there there's thereafter thereby
therefore therein theres thereupon these they they'd they'll they're they've think third this
thorough thoroughly those though three through throughout thru thus to together too took toward
towards tried tries truly try trying twice two u un under unfortunately unless unlikely until unto
up upon us use used useful uses using usually uucp v value various very via viz vs w want wants was
wasn't way we we'd we'll we're we've welcome well went were weren't what what's whatever when
whence whenever where where's whereafter whereas whereby wherein whereupon wherever whether which
while whither who who's whoever whole whom whose why will willing wish with within without won't
wonder would wouldn't x y yes yet you you'd you'll you're you've your yours yourself yourselves z
zero
""".split())

STEMMERS = ("porter", "krovetz", "krovetz-like", "none")
_VOWELS = set("aeiou")


def _has_vowel(s: str) -> bool:
    return any(c in _VOWELS for c in s) or (len(s) > 1 and "y" in s[1:])


@lru_cache(maxsize=200_000)
def light_stem(w: str) -> str:
    """A light inflectional stemmer (plural ``-s``/``-es``/``-ies``, past ``-ed``, ``-ing``).

    Our own rules, in the spirit of "weak" stemmers such as Harman's S-stemmer and the
    inflectional part of Krovetz (1993), but without any dictionary, so **it is not Krovetz**:

    * words of 3 characters or fewer, or containing a digit, are kept;
    * ``-ies`` -> ``-y`` (studies -> study), ``-sses`` -> ``-ss``, ``-xes/-ches/-shes/-zes`` drop
      ``-es``; ``-ss``, ``-us``, ``-is`` are kept; any other final ``-s`` is dropped;
    * ``-ied`` -> ``-y``; ``-eed`` is kept; ``-ed`` and ``-ing`` are dropped when the rest has a
      vowel and at least 3 characters; a doubled final consonant is then undoubled (stopped ->
      stop), except ``ll``, ``ss``, ``zz``.
    """
    if len(w) <= 3 or any(c.isdigit() for c in w):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("sses"):
        return w[:-2]
    if w.endswith(("xes", "ches", "shes", "zes")):
        return w[:-2]
    if w.endswith(("ss", "us", "is")):
        return w
    if w.endswith("s"):
        return w[:-1]
    if w.endswith("ied") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("eed"):
        return w
    for suf in ("ed", "ing"):
        if w.endswith(suf):
            stem = w[: -len(suf)]
            if len(stem) >= 3 and _has_vowel(stem):
                if (len(stem) >= 2 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS
                        and stem[-1] not in "lsz"):
                    stem = stem[:-1]
                return stem
            return w
    return w


def _load_stopwords(spec: str) -> tuple[str, frozenset[str]]:
    """(name stored in the manifest, words) for ``lucene``, ``smart``, ``none`` or a file path."""
    if spec == "lucene":
        return "lucene", STOPWORDS_LUCENE
    if spec == "smart":
        return "smart", STOPWORDS_SMART
    if spec in ("none", "", None):
        return "none", frozenset()
    if os.path.isfile(spec):
        with open(spec, encoding="utf-8", errors="replace") as fh:
            words = frozenset(w.lower() for line in fh for w in line.split())
        return "file", words
    raise ValueError(f"stopwords: expected lucene, smart, none or a file, got {spec!r}")


class Analyzer:
    """Turns text into index terms (see the module docstring for the exact steps).

    Parameters
    ----------
    stemmer : {"porter", "krovetz", "krovetz-like", "none"}
    stopwords : "lucene" | "smart" | "none" | path of a file (whitespace-separated words) |
        an iterable of words
    normalize : {"NFKC", "NFC", "none"}
        Unicode normalisation of the text before tokenizing (default NFKC, see the module
        docstring).
    """

    def __init__(self, stemmer: str = "porter", stopwords="lucene", normalize: str = "NFKC"):
        if normalize not in NORMALIZATIONS:
            raise ValueError(f"normalize: expected one of {', '.join(NORMALIZATIONS)}, got "
                             f"{normalize!r}")
        self.normalize = normalize
        if stemmer not in STEMMERS:
            raise ValueError(f"stemmer: expected one of {', '.join(STEMMERS)}, got {stemmer!r}")
        self.stemmer = stemmer
        if isinstance(stopwords, str) or stopwords is None:
            self.stopwords_name, self.stopwords = _load_stopwords(stopwords)
        else:
            self.stopwords_name, self.stopwords = "list", frozenset(w.lower() for w in stopwords)
        if stemmer == "porter":
            import Stemmer

            self._stem_words = Stemmer.Stemmer("porter").stemWords
        elif stemmer == "krovetz":
            try:
                import krovetzstemmer
            except ImportError:
                raise ImportError("the krovetz stemmer needs the krovetzstemmer package: pip "
                                  "install 'tiebreak[krovetz]'") from None
            stem = krovetzstemmer.Stemmer().stem
            self._stem_words = lambda ws: [stem(w) for w in ws]
        elif stemmer == "krovetz-like":
            self._stem_words = lambda ws: [light_stem(w) for w in ws]
        else:
            self._stem_words = None

    def tokenize(self, text: str) -> list[str]:
        """Normalised, lowercased tokens with possessives removed (before stopping and
        stemming)."""
        if self.normalize != "none" and not text.isascii():
            text = unicodedata.normalize(self.normalize, text)
        toks = TOKEN_RE.findall(text.lower())
        return [_POSSESSIVE.sub("", t) if t.endswith(("'s", "’s")) else t for t in toks]

    def analyze(self, text: str) -> list[str]:
        """Final index terms of ``text``, in order."""
        sw = self.stopwords
        toks = [t for t in self.tokenize(text) if t and t not in sw]
        if self._stem_words is None:
            return toks
        # like the original Porter algorithm, words of 1-2 characters are not stemmed
        stems = self._stem_words(toks)
        return [s if len(t) > 2 and s else t for t, s in zip(toks, stems)]

    def config(self) -> dict:
        """JSON-able description, stored in the manifest (``from_config`` rebuilds it)."""
        cfg = {"tokenizer": "regex-v1", "lowercase": True, "possessive": True,
               "stemmer": self.stemmer, "stopwords": self.stopwords_name,
               "normalize": self.normalize}
        if self.stopwords_name in ("file", "list"):
            cfg["stopword_list"] = sorted(self.stopwords)
        return cfg

    @classmethod
    def from_config(cls, cfg: dict) -> Analyzer:
        if cfg.get("tokenizer") != "regex-v1":
            raise ValueError(f"unknown tokenizer {cfg.get('tokenizer')!r}")
        sw = cfg.get("stopwords", "lucene")
        if sw in ("file", "list"):
            sw = cfg.get("stopword_list", [])
        # an index written before normalisation existed analysed its documents without it
        return cls(stemmer=cfg.get("stemmer", "porter"), stopwords=sw,
                   normalize=cfg.get("normalize", "none"))

    def __repr__(self) -> str:
        return f"Analyzer(stemmer={self.stemmer!r}, stopwords={self.stopwords_name!r})"
