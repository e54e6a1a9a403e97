/**
 * Tests of the documentation: every {@code java} block of {@code README.md} and {@code docs/} is
 * compiled against the examples' test class path, every {@code scala} block by Scala's interpreter,
 * and every fenced block must name its language, so that none is left out silently. Reads the
 * Markdown files only; imports no Stoker code of its own (the snippets do).
 */
package dev.stoker.examples.docs;
