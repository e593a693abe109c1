package io.github.verbs4j.ib.engine;

/**
 * When a responder may hold an ACK back so that a packet the device sends soon (the application's
 * answer, the next response) carries it, and the ACKs held now. The responder asks {@link
 * #mayHold()} and never learns why; the runner that starts a duty cycle says what its run can
 * promise ({@link #runBy}):
 *
 * <ul>
 *   <li>{@link Run#THREAD}: a runner thread whose sleep is bounded by the hold's deadline — holds
 *       are allowed, each ends at its deadline at the latest;
 *   <li>{@link Run#CALL}: an application's verbs call, which returns to the application, who may
 *       answer at once — holds are allowed only if the port says when the application stops
 *       calling ({@link PacketPort#onCallersIdle}; then every held ACK leaves, {@link
 *       #requestFlush}). A port timer per hold would cost more than the frame a hold saves;
 *   <li>{@link Run#DELIVERY}: a thread that delivered packets nobody is waiting for — no holds.
 * </ul>
 *
 * A held ACK leaves when the device sends another packet in the same duty cycle (it joins that
 * frame), when its deadline passes, or on a flush. Used under the agent, except {@link
 * #requestFlush} (any thread).
 */
final class AckPolicy {
  /** Who runs the duty cycle. */
  enum Run {
    /** A runner thread that sleeps no longer than the next hold deadline. */
    THREAD,
    /** An application's verbs call. */
    CALL,
    /** A thread that delivered packets. */
    DELIVERY
  }

  private final long delayNanos;
  private boolean callersIdleKnown;
  private Run run = Run.THREAD;
  private EngineQp[] holders = new EngineQp[16];
  private int holderCount;
  private long deadline;
  private boolean newHolds;
  private volatile boolean flush;

  /** @param delayNanos the longest hold ({@code verbs.ib.ack-delay-ns}); 0 = never hold */
  AckPolicy(long delayNanos) {
    this.delayNanos = delayNanos;
  }

  /** The port will call {@link #requestFlush} when the application stops calling. */
  void callersIdleKnown() {
    callersIdleKnown = true;
  }

  /** @param r who runs the duty cycles from now on (the runner, under the agent) */
  void runBy(Run r) {
    run = r;
  }

  /** @return whether a responder may hold an ACK in this duty cycle */
  boolean mayHold() {
    return delayNanos > 0 && switch (run) {
      case THREAD -> true;
      case CALL -> callersIdleKnown;
      case DELIVERY -> false;
    };
  }

  /** @return the longest hold, ns */
  long delayNanos() {
    return delayNanos;
  }

  /** A responder holds an ACK of {@code qp} (under the QP lock). */
  void hold(EngineQp qp) {
    newHolds = true;
    if (!qp.inAckHolders) {
      qp.inAckHolders = true;
      holders = IbDevice.put(holders, holderCount++, qp);
    }
  }

  /** @return whether ACKs are held (then {@link #deadline()} is valid) */
  boolean any() {
    return holderCount > 0;
  }

  /** @return the earliest hold deadline (port clock) */
  long deadline() {
    return deadline;
  }

  /** @return whether the end of this duty cycle has holds to look at */
  boolean pending() {
    return holderCount > 0 || flush;
  }

  /** Asks for every held ACK to leave now (any thread): no answer is coming soon. */
  void requestFlush() {
    flush = true;
  }

  /** @return whether a flush was requested and not yet done (any thread) */
  boolean flushRequested() {
    return flush;
  }

  /**
   * End of a duty cycle: if it sent a packet, held ACKs leave now and join the frames being built;
   * a hold whose time ran out leaves alone; ACKs no longer held (another response sent them) leave
   * the list.
   *
   * @param t the duty cycle's time
   * @param sent whether the duty cycle sent a packet
   * @param end the port's time now (read only if a new hold starts)
   */
  void endOfCycle(long t, boolean sent, java.util.function.LongSupplier end) {
    boolean doFlush = flush;
    if (doFlush) {
      flush = false;
    }
    long endTime = 0;
    if (newHolds) {
      newHolds = false;
      endTime = end.getAsLong();
    }
    long earliest = 0;
    int w = 0;
    for (int i = 0; i < holderCount; i++) {
      EngineQp qp = holders[i];
      boolean keep;
      synchronized (qp.lock) {
        ResponseSender r = qp.responder.out;
        if (!qp.destroyed && r.ackHeld()) {
          if (sent) {
            r.releaseHeldAck();
          } else if (doFlush) {
            r.expireHeldAck();
          } else {
            r.startHold(endTime);
            if (t - r.ackDeadline() >= 0) {
              r.expireHeldAck();
            }
          }
        }
        keep = !qp.destroyed && r.ackHeld();
        if (keep) {
          long d = r.ackDeadline();
          if (w == 0 || d - earliest < 0) {
            earliest = d;
          }
        } else {
          qp.inAckHolders = false;
        }
      }
      if (keep) {
        holders[w++] = qp;
      }
    }
    for (int i = w; i < holderCount; i++) {
      holders[i] = null;
    }
    holderCount = w;
    deadline = earliest;
  }
}
