from search_platform.retrieval.snippets import best_snippet, mark, passages, query_terms, windows


def test_query_terms_are_lower_cased_words_without_stopwords():
    assert query_terms("How do I water Tomatoes in the heat?") == frozenset({"water", "tomatoes", "heat"})


def test_windows_cut_at_word_boundaries():
    assert windows("aaa bbb ccc ddd", max_chars=7) == ["aaa bbb", "ccc ddd"]
    assert windows("toolongword x", max_chars=4) == ["toolongword", "x"]
    assert windows("", max_chars=5) == []


def test_passages_are_sentences_with_whitespace_collapsed():
    assert passages("First one.  Second\n one!   Third?") == ["First one.", "Second one!", "Third?"]


def test_mark_wraps_terms_case_insensitively():
    assert mark("Water the Tomatoes.", frozenset({"water", "tomatoes"})) == "<em>Water</em> the <em>Tomatoes</em>."


def test_best_snippet_is_the_sentence_sharing_most_query_terms():
    text = "Sun matters. Water tomatoes daily in hot weather. Mulch keeps water in."
    assert best_snippet(text, "water tomatoes hot") == "<em>Water</em> <em>tomatoes</em> daily in <em>hot</em> weather."


def test_a_tie_goes_to_the_earliest_passage():
    assert best_snippet("Bread rises. Bread bakes.", "bread") == "<em>Bread</em> rises."


def test_a_long_sentence_gives_its_best_window():
    text = " ".join(["filler"] * 40) + " the hinge code"
    assert best_snippet(text, "hinge", max_chars=20) == "filler the <em>hinge</em>"  # 40 % 3 fillers left


def test_no_overlap_falls_back_to_the_first_150_characters():
    text = "word " * 100
    assert best_snippet(text, "absent") == " ".join(text.split())[:150]
    assert len(best_snippet(text, "absent")) == 150


def test_empty_text_gives_an_empty_snippet():
    assert best_snippet("", "anything") == ""
