package io.github.verbs4j.ib.engine;

/**
 * The QPs with an armed timer (retransmit, RNR, ...) and the earliest deadline among them. A QP
 * joins when it arms one and leaves when a run finds none armed. Used only under the agent.
 */
final class TimerList {
  private final IbDevice dev;
  private EngineQp[] timed = new EngineQp[16];
  private int timedCount;
  private boolean anyTimer;
  private long nextDeadline;
  private boolean awaiting;

  TimerList(IbDevice dev) {
    this.dev = dev;
  }

  /** @return whether any timer is armed (then {@link #nextDeadline()} is valid) */
  boolean any() {
    return anyTimer;
  }

  /** @return the earliest armed deadline (port clock) */
  long nextDeadline() {
    return nextDeadline;
  }

  /** @return whether a timer is due at {@code t} */
  boolean due(long t) {
    return anyTimer && t - nextDeadline >= 0;
  }

  /** Arms (or moves earlier) the device's next deadline for {@code qp} (under the QP lock). */
  void arm(EngineQp qp, long deadline) {
    if (!qp.inTimerList) {
      qp.inTimerList = true;
      timed = IbDevice.put(timed, timedCount++, qp);
    }
    if (!anyTimer || deadline - nextDeadline < 0) {
      anyTimer = true;
      nextDeadline = deadline;
    }
  }

  /**
   * Recomputes the earliest deadline from the QPs' armed timers, dropping QPs with none (a timer
   * disarmed since it was armed, such as a retransmission timer an ACK stopped).
   */
  void refresh() {
    int w = 0;
    boolean any = false;
    boolean await = false;
    long next = 0;
    for (int i = 0; i < timedCount; i++) {
      EngineQp qp = timed[i];
      boolean keep;
      synchronized (qp.lock) {
        keep = qp.timerArmed();
        if (keep) {
          await |= qp.awaitsReply();
          long d = qp.nextDeadline();
          if (!any || d - next < 0) {
            next = d;
            any = true;
          }
        }
      }
      if (keep) {
        timed[w++] = qp;
      } else {
        qp.inTimerList = false;
      }
    }
    for (int i = w; i < timedCount; i++) {
      timed[i] = null;
    }
    timedCount = w;
    anyTimer = any;
    awaiting = await;
    nextDeadline = next;
  }

  /** @return whether, at the last {@link #refresh}, a QP waited for a reply (not an RNR wait) */
  boolean awaitingReply() {
    return anyTimer && awaiting;
  }

  int runTimers(long t) {
    int work = 0;
    int w = 0;
    boolean any = false;
    long next = 0;
    int n = timedCount;
    for (int i = 0; i < n; i++) {
      EngineQp qp = timed[i];
      boolean keep;
      synchronized (qp.lock) {
        try {
          if (qp.fireTimers(t)) {
            work++;
            dev.markDirty(qp);
          }
        } catch (RuntimeException e) {
          dev.fault(qp, e);
        }
        keep = qp.timerArmed();
        if (keep) {
          long d = qp.nextDeadline();
          if (!any || d - next < 0) {
            next = d;
            any = true;
          }
        }
      }
      if (keep) {
        timed[w++] = qp;
      } else {
        qp.inTimerList = false;
      }
    }
    // Timers armed while firing (a retry re-arms) were appended past n.
    for (int i = n; i < timedCount; i++) {
      EngineQp qp = timed[i];
      timed[w++] = qp;
      if (qp.timerArmed()) {
        long d = qp.nextDeadline();
        if (!any || d - next < 0) {
          next = d;
          any = true;
        }
      }
    }
    for (int i = w; i < timedCount; i++) {
      timed[i] = null;
    }
    timedCount = w;
    anyTimer = any;
    nextDeadline = next;
    return work;
  }
}
