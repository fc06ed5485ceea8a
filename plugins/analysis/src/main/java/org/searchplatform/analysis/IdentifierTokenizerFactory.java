package org.searchplatform.analysis;

import org.apache.lucene.analysis.Tokenizer;
import org.elasticsearch.plugin.Inject;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.TokenizerFactory;

/** The sp_identifier tokenizer; max_token_length is checked here, when the index or request is created. */
@NamedComponent("sp_identifier")
public final class IdentifierTokenizerFactory implements TokenizerFactory {

    private final int maxTokenLength;

    @Inject
    public IdentifierTokenizerFactory(IdentifierTokenizerSettings settings) {
        int wanted = settings.maxTokenLength();
        if (wanted < 1 || wanted > IdentifierTokenizer.MAX_MAX_TOKEN_LENGTH) {
            throw new IllegalArgumentException("[sp_identifier] max_token_length must be between 1 and "
                + IdentifierTokenizer.MAX_MAX_TOKEN_LENGTH + ", got " + wanted);
        }
        this.maxTokenLength = wanted;
    }

    @Override
    public Tokenizer create() {
        return new IdentifierTokenizer(maxTokenLength);
    }
}
