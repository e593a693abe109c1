/**
 * Configuration: {@link io.github.verbs4j.verbs.config.VerbsConfig} reads {@code verbs.*} settings from
 * system properties, the environment and a file, and validates them against the declared {@link
 * io.github.verbs4j.verbs.config.ConfigKey}s.
 */
package io.github.verbs4j.verbs.config;
