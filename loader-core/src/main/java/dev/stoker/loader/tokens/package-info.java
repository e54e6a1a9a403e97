/**
 * Token sequences of any length as fixed-shape rows: documents packed into rows of a length (with
 * positions and document boundaries, for attention that does not cross documents) or padded one to
 * a row, over any streamed dataset of documents, tokenized on the fly where they are text.
 */
package dev.stoker.loader.tokens;
