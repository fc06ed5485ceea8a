package org.searchplatform.analysis;

import org.apache.lucene.analysis.TokenStream;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.TokenFilterFactory;

/** The filters the analyzers are made of, for custom analyzers in index settings (the distribution lacks them). */
public final class TokenFilterFactories {

    private TokenFilterFactories() {}

    /** sp_english_possessive: drops a trailing 's (and ’s). */
    @NamedComponent("sp_english_possessive")
    public static final class Possessive implements TokenFilterFactory {
        @Override
        public TokenStream create(TokenStream in) {
            return Chains.possessive(in);
        }
    }

    /** sp_english_stop: Lucene's English stop words; expects lowercase input. */
    @NamedComponent("sp_english_stop")
    public static final class EnglishStop implements TokenFilterFactory {
        @Override
        public TokenStream create(TokenStream in) {
            return Chains.englishStop(in);
        }
    }

    /** sp_porter_stem: the Porter stemmer; expects lowercase input. */
    @NamedComponent("sp_porter_stem")
    public static final class PorterStem implements TokenFilterFactory {
        @Override
        public TokenStream create(TokenStream in) {
            return Chains.stem(in, Chains.Stemmer.PORTER);
        }
    }

    /** sp_kstem: the KStem stemmer; expects lowercase input. */
    @NamedComponent("sp_kstem")
    public static final class KStem implements TokenFilterFactory {
        @Override
        public TokenStream create(TokenStream in) {
            return Chains.stem(in, Chains.Stemmer.KSTEM);
        }
    }

    /** sp_identifier_parts: the word-delimiter graph filter of sp_identifier (original kept, parts added). */
    @NamedComponent("sp_identifier_parts")
    public static final class IdentifierParts implements TokenFilterFactory {
        @Override
        public TokenStream create(TokenStream in) {
            return Chains.identifierParts(in);
        }
    }
}
