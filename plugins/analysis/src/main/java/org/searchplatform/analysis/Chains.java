package org.searchplatform.analysis;

import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.KStemFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterGraphFilter;

/** The filter chains every analyzer and filter factory of this plugin is built from: one definition each. */
final class Chains {

    /**
     * Word parts, number parts and case-change splits, the original token kept, no catenation and no split
     * between letters and digits (so {@code print0}, {@code md5sum} and {@code utf8} stay one part).
     */
    static final int IDENTIFIER_PART_FLAGS = WordDelimiterGraphFilter.GENERATE_WORD_PARTS
        | WordDelimiterGraphFilter.GENERATE_NUMBER_PARTS
        | WordDelimiterGraphFilter.SPLIT_ON_CASE_CHANGE
        | WordDelimiterGraphFilter.PRESERVE_ORIGINAL
        | WordDelimiterGraphFilter.STEM_ENGLISH_POSSESSIVE;

    private Chains() {}

    /** Stemmers an English chain can end with. */
    enum Stemmer {
        PORTER,
        KSTEM
    }

    static TokenStream possessive(TokenStream in) {
        return new EnglishPossessiveFilter(in);
    }

    static TokenStream lowercase(TokenStream in) {
        return new LowerCaseFilter(in);
    }

    /** Lucene's English stop set (the same 33 words as Elasticsearch's {@code _english_}). */
    static TokenStream englishStop(TokenStream in) {
        return new StopFilter(in, EnglishAnalyzer.ENGLISH_STOP_WORDS_SET);
    }

    static TokenStream stem(TokenStream in, Stemmer stemmer) {
        return switch (stemmer) {
            case PORTER -> new PorterStemFilter(in);
            case KSTEM -> new KStemFilter(in);
        };
    }

    /** Possessive, lowercase, stop words, stemmer: what follows the tokenizer in sp_english(_light). */
    static TokenStream english(TokenStream in, Stemmer stemmer) {
        return stem(englishStop(lowercase(possessive(in))), stemmer);
    }

    static TokenStream identifierParts(TokenStream in) {
        return new WordDelimiterGraphFilter(in, IDENTIFIER_PART_FLAGS, null);
    }
}
