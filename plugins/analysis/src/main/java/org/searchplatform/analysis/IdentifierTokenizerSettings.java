package org.searchplatform.analysis;

import org.elasticsearch.plugin.settings.AnalysisSettings;
import org.elasticsearch.plugin.settings.IntSetting;

/** Settings of the sp_identifier tokenizer; unknown keys are ignored by Elasticsearch, so keep this list short. */
@AnalysisSettings
public interface IdentifierTokenizerSettings {
    @IntSetting(path = "max_token_length", defaultValue = IdentifierTokenizer.DEFAULT_MAX_TOKEN_LENGTH)
    int maxTokenLength();
}
