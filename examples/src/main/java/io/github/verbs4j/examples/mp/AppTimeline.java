package io.github.verbs4j.examples.mp;

import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.WorkCompletion;

/**
 * A rank's application timeline, kept apart from its device's clock when time is modelled.
 *
 * <p>The node's clock ({@link Context#nowNanos()}) is the device's: a frame that arrives moves it
 * to the arrival, whatever the application is doing. Charging the application's computation on
 * that clock too would put the computation after every arrival the device happened to take first
 * in wall time, so two ranks' computations would stop overlapping (docs/modelled-time.md, *one
 * timeline per node*). Here the computation moves only the application's time; the device learns
 * it when the application next posts ({@link #beforePost}: the WRs carry the application's time,
 * as a doorbell rung then, and the device starts each no earlier), and the application learns the
 * device's time from the completions it takes ({@link #completed}: their timestamps), not from whatever else the
 * device has done since.
 *
 * <p>With wall time the application's time is the wall clock and nothing is charged. One thread
 * at a time (the communicator's). Public for the other message-passing layers of the examples (the
 * NPB replay's, {@code srqfc.NpbMpi}).
 */
public final class AppTimeline {
  private final Context ctx;
  private final boolean modelled;
  private long app;

  /** @param ctx the rank's context; the application's time starts at its clock's */
  public AppTimeline(Context ctx) {
    this.ctx = ctx;
    this.modelled = ctx.modelledTime();
    this.app = ctx.nowNanos();
  }

  /** @return the application's time */
  public long nowNanos() {
    return modelled ? app : ctx.nowNanos();
  }

  /**
   * The application computed for {@code nanos}.
   *
   * @param nanos not negative
   */
  public void compute(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("nanos=" + nanos + " must not be negative");
    }
    if (modelled) {
      app += nanos;
    }
  }

  /**
   * The application is about to post work: the device cannot start it before the application's
   * time, and work posted before keeps its own time ({@link Context#postAt}).
   */
  public void beforePost() {
    if (modelled) {
      ctx.postAt(app);
    }
  }

  /**
   * Puts a batch of completions taken from a CQ in the order of their timestamps (modelled time
   * only; stable, so each QP's own order stays). The device may deliver in one batch completions
   * that happened far apart in modelled time, because it ran late in wall time: the application
   * takes each at its own time, and posts what it asks for then ({@link #before}), not at the
   * latest one's.
   *
   * @param wcs the batch
   * @param n how many of {@code wcs} hold completions
   */
  public void inTimeOrder(WorkCompletion[] wcs, int n) {
    if (!modelled) {
      return;
    }
    for (int i = 1; i < n; i++) {
      WorkCompletion w = wcs[i];
      int j = i - 1;
      while (j >= 0 && wcs[j].timestampNanos() > w.timestampNanos()) {
        wcs[j + 1] = wcs[j];
        j--;
      }
      wcs[j + 1] = w;
    }
  }

  /** @return whether, in modelled time, {@code a} happened before {@code b} */
  public boolean before(WorkCompletion a, WorkCompletion b) {
    return modelled && a.timestampNanos() < b.timestampNanos();
  }

  /**
   * The application took a completion: it cannot have seen it before the device produced it.
   *
   * @param wc the completion (its timestamp is on the device's clock)
   */
  public void completed(WorkCompletion wc) {
    if (modelled && wc.timestampNanos() > app) {
      app = wc.timestampNanos();
    }
  }

  /**
   * The application waited for something that happened at {@code nanos} on the device's clock (a
   * completion it had taken earlier and only now needs, or a driver's look at its CQ at that time):
   * its time moves there if it is behind.
   *
   * @param nanos a time on the context's clock
   */
  public void waitedUntil(long nanos) {
    if (modelled && nanos > app) {
      app = nanos;
    }
  }
}
