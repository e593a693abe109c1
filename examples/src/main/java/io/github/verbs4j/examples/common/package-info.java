/**
 * Pieces every example program shares: RC connection set-up through the job's key-value store,
 * bounded waiting with back-off, and the formatting of failed completions.
 */
package io.github.verbs4j.examples.common;
