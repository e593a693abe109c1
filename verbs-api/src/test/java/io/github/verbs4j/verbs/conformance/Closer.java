package io.github.verbs4j.verbs.conformance;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Closes what a fixture created, last created first, collecting every failure (the first thrown,
 * the rest suppressed) so that one failing close never hides a leak behind it.
 */
final class Closer implements AutoCloseable {
  private final Deque<AutoCloseable> stack = new ArrayDeque<>();

  <T extends AutoCloseable> T add(T resource) {
    if (resource != null) {
      stack.push(resource);
    }
    return resource;
  }

  @Override
  public void close() {
    RuntimeException first = null;
    while (!stack.isEmpty()) {
      try {
        stack.pop().close();
      } catch (Exception e) {
        RuntimeException r = e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
        if (first == null) {
          first = r;
        } else {
          first.addSuppressed(r);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
