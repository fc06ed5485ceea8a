package org.searchplatform.analysis;

import org.apache.lucene.analysis.Analyzer;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.AnalyzerFactory;

/** The analyzers of the plugin; each name is listed in named_components.json. */
public final class AnalyzerFactories {

    private AnalyzerFactories() {}

    /** sp_english: standard tokenizer, possessive, lowercase, English stop words, Porter stemmer. */
    @NamedComponent("sp_english")
    public static final class English implements AnalyzerFactory {
        @Override
        public Analyzer create() {
            return new EnglishChainAnalyzer(Chains.Stemmer.PORTER);
        }
    }

    /** sp_english_light: as sp_english with the gentler KStem stemmer. */
    @NamedComponent("sp_english_light")
    public static final class EnglishLight implements AnalyzerFactory {
        @Override
        public Analyzer create() {
            return new EnglishChainAnalyzer(Chains.Stemmer.KSTEM);
        }
    }

    /**
     * sp_identifier: identifier tokenizer, word-delimiter parts beside the original, lowercase. Serves as the
     * search analyzer too: the flattened graph keeps position lengths, so a match query for os.path.join
     * becomes (os.path.join OR "os path join"), exactly what an unflattened search analyzer gives.
     */
    @NamedComponent("sp_identifier")
    public static final class Identifier implements AnalyzerFactory {
        @Override
        public Analyzer create() {
            return new IdentifierAnalyzer();
        }
    }
}
