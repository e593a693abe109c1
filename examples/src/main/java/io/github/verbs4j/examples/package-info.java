/**
 * The {@code verbs4j} command: {@link io.github.verbs4j.examples.Main} and its subcommands (the
 * launcher, the perftest-style benchmarks, Himeno). Programs depend on verbs-api only.
 */
package io.github.verbs4j.examples;
