package org.searchplatform.analysis;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.standard.StandardTokenizer;

/** Standard tokenizer, English possessive, lowercase, English stop words, then a stemmer. */
final class EnglishChainAnalyzer extends Analyzer {

    private final Chains.Stemmer stemmer;

    EnglishChainAnalyzer(Chains.Stemmer stemmer) {
        this.stemmer = stemmer;
    }

    @Override
    protected TokenStreamComponents createComponents(String fieldName) {
        StandardTokenizer source = new StandardTokenizer();
        return new TokenStreamComponents(source, Chains.english(source, stemmer));
    }

    @Override
    protected TokenStream normalize(String fieldName, TokenStream in) {
        return new LowerCaseFilter(in);
    }
}
