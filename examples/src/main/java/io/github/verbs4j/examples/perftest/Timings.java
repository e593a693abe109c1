package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.verbs.Context;

/**
 * The time stamps of one measured size: when each WR was posted and (bandwidth tests) when the
 * completions at the {@code cq_mod} grid arrived, on the wall clock and, when {@code
 * verbs.time=modelled}, also on the context's modelled clock. Preallocated; stamping allocates
 * nothing.
 */
final class Timings {
  final long[] postedWall;
  final long[] completedWall;
  final long[] postedModel;
  final long[] completedModel;
  private final Context ctx;

  /**
   * @param iterations stamps per array
   * @param completions whether completion stamps are kept (bandwidth tests)
   * @param ctx the context whose clock gives modelled time, or null for wall time only
   */
  Timings(int iterations, boolean completions, Context ctx) {
    this.ctx = ctx;
    postedWall = new long[iterations];
    completedWall = completions ? new long[iterations] : null;
    postedModel = ctx != null ? new long[iterations] : null;
    completedModel = ctx != null && completions ? new long[iterations] : null;
  }

  /** @return whether modelled stamps are kept */
  boolean modelled() {
    return ctx != null;
  }

  /** @param i the WR posted now */
  void posted(int i) {
    postedWall[i] = System.nanoTime();
    if (ctx != null) {
      postedModel[i] = ctx.nowNanos();
    }
  }

  /** @param i the WR whose completion (and all before it) arrived now */
  void completed(int i) {
    completedWall[i] = System.nanoTime();
    if (ctx != null) {
      completedModel[i] = ctx.nowNanos();
    }
  }
}
