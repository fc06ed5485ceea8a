package org.searchplatform.analysis;

import java.io.IOException;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;

/**
 * Splits on whitespace and ordinary punctuation but keeps technical tokens whole.
 *
 * <p>Separators: whitespace (including no-break spaces), control characters and {@code , ; ( ) [ ] { } " ` = |}
 * plus typographic double quotes. Everything else stays inside a token, so {@code --preserve-root},
 * {@code os.path.join}, {@code Vec::retain}, {@code <stdio.h>} and {@code snake_case} come out whole. A token then
 * loses sentence punctuation at its end ({@code . : ! ? …} and single quotes) and single quotes at its start;
 * a token left empty (an ellipsis, a lone quote) is dropped. Tokens longer than maxTokenLength are cut into
 * pieces of at most that length.
 *
 * <p>The whole input is read at reset(), as Lucene's PatternTokenizer does; field values are bounded.
 */
public final class IdentifierTokenizer extends Tokenizer {

    public static final int DEFAULT_MAX_TOKEN_LENGTH = 255;
    public static final int MAX_MAX_TOKEN_LENGTH = 16384;

    private final CharTermAttribute termAtt = addAttribute(CharTermAttribute.class);
    private final OffsetAttribute offsetAtt = addAttribute(OffsetAttribute.class);
    private final StringBuilder text = new StringBuilder();
    private final char[] readBuffer = new char[4096];
    private final int maxTokenLength;
    private int position;

    public IdentifierTokenizer(int maxTokenLength) {
        if (maxTokenLength < 1 || maxTokenLength > MAX_MAX_TOKEN_LENGTH) {
            throw new IllegalArgumentException(
                "max_token_length must be between 1 and " + MAX_MAX_TOKEN_LENGTH + ", got " + maxTokenLength);
        }
        this.maxTokenLength = maxTokenLength;
    }

    public IdentifierTokenizer() {
        this(DEFAULT_MAX_TOKEN_LENGTH);
    }

    static boolean isSeparator(char c) {
        if (Character.isWhitespace(c) || Character.isSpaceChar(c) || Character.isISOControl(c)) {
            return true;
        }
        return switch (c) {
            case ',', ';', '(', ')', '[', ']', '{', '}', '"', '`', '=', '|', '\u201C', '\u201D', '\u201E', '\u00AB',
                 '\u00BB' -> true;
            default -> false;
        };
    }

    static boolean isTrailingPunctuation(char c) {
        return switch (c) {
            case '.', ':', '!', '?', '\'', '\u2018', '\u2019', '\u2026' -> true;
            default -> false;
        };
    }

    static boolean isLeadingPunctuation(char c) {
        return c == '\'' || c == '\u2018' || c == '\u2019';
    }

    @Override
    public void reset() throws IOException {
        super.reset();
        text.setLength(0);
        int read;
        while ((read = input.read(readBuffer)) != -1) {
            text.append(readBuffer, 0, read);
        }
        position = 0;
    }

    @Override
    public boolean incrementToken() {
        clearAttributes();
        int length = text.length();
        while (position < length) {
            while (position < length && isSeparator(text.charAt(position))) {
                position++;
            }
            int start = position;
            while (position < length && !isSeparator(text.charAt(position))) {
                position++;
            }
            int end = position;
            while (start < end && isLeadingPunctuation(text.charAt(start))) {
                start++;
            }
            while (end > start && isTrailingPunctuation(text.charAt(end - 1))) {
                end--;
            }
            if (start == end) {
                continue;
            }
            if (end - start > maxTokenLength) {
                end = start + maxTokenLength;
                if (Character.isHighSurrogate(text.charAt(end - 1)) && end - start > 1) {
                    end--; // never cut a surrogate pair in half
                }
                position = end; // the rest of the raw token is scanned again as the next token
            }
            termAtt.setEmpty().append(text, start, end);
            offsetAtt.setOffset(correctOffset(start), correctOffset(end));
            return true;
        }
        return false;
    }

    @Override
    public void end() throws IOException {
        super.end();
        int finalOffset = correctOffset(text.length());
        offsetAtt.setOffset(finalOffset, finalOffset);
    }

    @Override
    public void close() throws IOException {
        super.close();
        text.setLength(0);
    }
}
