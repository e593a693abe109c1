/**
 * The verbs4j API: libibverbs' objects and calls with Java habits. Start at {@link
 * io.github.verbs4j.verbs.Verbs}; every enum carries the exact verbs.h value.
 */
package io.github.verbs4j.verbs;
