/**
 * {@code verbs4j run -n N}: an embedded coordinator and N child JVMs whose output is prefixed by
 * rank; the run fails when a rank fails, and no child outlives it.
 */
package io.github.verbs4j.examples.launcher;
