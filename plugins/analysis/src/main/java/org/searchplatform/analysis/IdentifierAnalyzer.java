package org.searchplatform.analysis;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.core.FlattenGraphFilter;

/**
 * The identifier tokenizer, word-delimiter parts beside the original token, lowercase, then the token graph
 * flattened (Lucene requires it for indexing). Flattening keeps the original's position length, so at search
 * time Elasticsearch still builds a graph query: the whole token, or the phrase of its parts.
 */
final class IdentifierAnalyzer extends Analyzer {

    @Override
    protected TokenStreamComponents createComponents(String fieldName) {
        IdentifierTokenizer source = new IdentifierTokenizer();
        TokenStream stream = Chains.lowercase(Chains.identifierParts(source));
        return new TokenStreamComponents(source, new FlattenGraphFilter(stream));
    }

    @Override
    protected TokenStream normalize(String fieldName, TokenStream in) {
        return new LowerCaseFilter(in);
    }
}
